"""The one local stand-in for the Lambda Invoke API: `make run` starts a task's worker through it the way AWS
does, and replays, recordings, tests and benches record the invocations a request queues.

The runtime's own `LambdaInvoker` (boto3 `invoke(InvocationType="Event")`) is pointed here with
AWS_ENDPOINT_URL_LAMBDA (`environment()` or `configure_environment()`); the invocation is answered 202 at once
and, with `execute=True`, its event handed to a background worker thread that calls the same Lambda handler with
it, with the worker timeout as the context's deadline (Lambda's own limit is not enforced here: a task that overruns
it is reported failed by the reaper, as in AWS). With `execute=False` (the default) invocations are only recorded
(`invocations`), unrun: a replay or a recording then delivers each to the handler itself.

    with LocalLambda("mcp-replay-demo") as invoke_api:
        environ.update(invoke_api.environment())
        ...
        event = invoke_api.invocations.pop(0)

Hand-written on the standard library because no maintained package emulates the Invoke API without Docker.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from .apigateway import LocalContext

LambdaHandler = Callable[[dict[str, Any], Any], Any]
INVOKE_PATH = re.compile(r"^/2015-03-31/functions/(?P<name>[^/]+)/invocations$")
# Concurrent task workers of one `make run` process (Lambda would run each in a container of its own).
WORKERS = 8


class LocalLambda:
    """The Invoke API for one function name, on 127.0.0.1 and `port` (0, the default: a free one).

    Raises OSError (from the constructor) when `port` is taken.
    """

    def __init__(
        self,
        function_name: str,
        handler: LambdaHandler | None = None,
        *,
        execute: bool = False,
        timeout_seconds: int = 900,
        port: int = 0,
    ) -> None:
        self.function_name = function_name
        self.handler = handler
        self.execute = execute
        self.timeout_seconds = timeout_seconds
        self.invocations: list[dict[str, Any]] = []
        self.qualifiers: list[str | None] = []  # the `Qualifier` (version or alias) of each invocation
        self._pool = ThreadPoolExecutor(
            max_workers=WORKERS,
            thread_name_prefix="lambda-worker",
            initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop()),
        )
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _request_handler(self))
        self._thread: threading.Thread | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> LocalLambda:
        """Serve on a daemon thread (a short poll: `stop` waits for it)."""
        serve = functools.partial(self._server.serve_forever, poll_interval=0.02)
        self._thread = threading.Thread(target=serve, name="local-lambda", daemon=True)
        self._thread.start()
        return self

    def __enter__(self) -> LocalLambda:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def environment(self) -> dict[str, str]:
        """The variables that point a handler's Lambda client here (with placeholder credentials)."""
        return {
            "AWS_ENDPOINT_URL_LAMBDA": self.endpoint_url,
            "AWS_LAMBDA_FUNCTION_NAME": self.function_name,
            "AWS_DEFAULT_REGION": "us-east-1",
            # The stand-in ignores the signature; botocore only refuses to sign without any credentials.
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
        }

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def configure_environment(self, environ: Any = os.environ) -> None:
        """Point the runtime's Lambda client here; fake credentials only when none are configured at all."""
        environ["AWS_ENDPOINT_URL_LAMBDA"] = self.endpoint_url
        environ["AWS_LAMBDA_FUNCTION_NAME"] = self.function_name
        environ.setdefault("AWS_DEFAULT_REGION", environ.get("AWS_REGION", "us-east-1"))
        import botocore.session

        if botocore.session.Session().get_credentials() is None:
            # Locally the Invoke API stand-in ignores the signature; boto3 only refuses to sign without any.
            environ.setdefault("AWS_ACCESS_KEY_ID", "local")
            environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")

    def context(self) -> LocalContext:
        return LocalContext(
            function_name=self.function_name,
            invoked_function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:{self.function_name}",
            deadline_ms=int(time.time() * 1000) + self.timeout_seconds * 1000,
        )

    def accept(self, event: dict[str, Any]) -> None:
        """An `Event` invocation: record it and, when running, hand it to a worker thread."""
        self.invocations.append(event)
        if self.execute:
            self._pool.submit(self._deliver, event)

    def invoke(self, event: dict[str, Any]) -> Any:
        """A `RequestResponse` invocation: run it now and answer its result."""
        self.invocations.append(event)
        assert self.handler is not None, "the handler is not loaded yet"
        return self.handler(event, self.context())

    def _deliver(self, event: dict[str, Any]) -> None:
        try:
            assert self.handler is not None, "the handler is not loaded yet"
            self.handler(event, self.context())
        except Exception:  # what Lambda would log for a failed asynchronous invocation
            sys.stderr.write(f"local lambda: the asynchronous invocation failed\n{traceback.format_exc()}")


def _request_handler(service: LocalLambda) -> type[BaseHTTPRequestHandler]:
    class InvokeApi(BaseHTTPRequestHandler):
        server_version = "mcp-lambda-local-invoke"
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            path, _, query = self.path.partition("?")
            found = INVOKE_PATH.match(path)
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if found is None:
                self._answer(404, {"message": "Not found"}, "ResourceNotFoundException")
                return
            if found.group("name") not in (service.function_name, _arn(service.function_name)):
                self._answer(
                    404, {"Type": "User", "message": "Function not found"}, "ResourceNotFoundException"
                )
                return
            try:
                event = json.loads(raw or b"{}")
            except ValueError:
                self._answer(
                    400, {"Type": "User", "message": "Invalid JSON payload"}, "InvalidRequestContentException"
                )
                return
            qualifier = parse_qs(query).get("Qualifier")
            service.qualifiers.append(qualifier[0] if qualifier else None)
            kind = self.headers.get("x-amz-invocation-type", "RequestResponse")
            if kind == "Event":
                service.accept(event)
                self._answer(202, None)
            elif kind == "RequestResponse":
                self._answer(200, service.invoke(event))
            else:
                self._answer(400, {"Type": "User", "message": f"Unsupported invocation type {kind}"})

        def _answer(self, status: int, payload: Any, error_type: str | None = None) -> None:
            body = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("x-amzn-requestid", str(uuid.uuid4()))
            if error_type:
                self.send_header("x-amzn-errortype", error_type)
            if body:
                self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # the worker's own log lines say what happened

    return InvokeApi


def _arn(function_name: str) -> str:
    return f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
