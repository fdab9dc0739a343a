"""A stand-in for the Lambda Invoke API that records the task worker invocations a request queues.

The handler starts a task's worker with `lambda:InvokeFunction` (`InvocationType=Event`) on itself. Pointed here
(`AWS_ENDPOINT_URL_LAMBDA`, see `environment`), each such invocation is answered 202 and kept in `invocations`,
unrun: a replay or a recording then delivers it to the handler itself, as one step of the conversation.

    with InvokeApiRecorder("mcp-replay-demo") as invoke_api:
        environ.update(invoke_api.environment())
        ...
        event = invoke_api.invocations.pop(0)
"""

from __future__ import annotations

import functools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class InvokeApiRecorder:
    """The Invoke API of one function, on 127.0.0.1 and a free port; `Event` invocations are recorded only."""

    def __init__(self, function_name: str) -> None:
        self.function_name = function_name
        self.invocations: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _request_handler(self))
        self._thread: threading.Thread | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def environment(self) -> dict[str, str]:
        """The variables that point the handler's Lambda client here (with placeholder credentials)."""
        return {
            "AWS_ENDPOINT_URL_LAMBDA": self.endpoint_url,
            "AWS_LAMBDA_FUNCTION_NAME": self.function_name,
            "AWS_DEFAULT_REGION": "us-east-1",
            # The stand-in ignores the signature; botocore only refuses to sign without any credentials.
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
        }

    def __enter__(self) -> InvokeApiRecorder:
        # A short poll: shutdown() waits for it, once per conversation.
        serve = functools.partial(self._server.serve_forever, poll_interval=0.02)
        self._thread = threading.Thread(target=serve, name="invoke-api", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _request_handler(recorder: InvokeApiRecorder) -> type[BaseHTTPRequestHandler]:
    expected_path = f"/2015-03-31/functions/{recorder.function_name}/invocations"

    class InvokeApi(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            kind = self.headers.get("x-amz-invocation-type", "RequestResponse")
            if self.path.partition("?")[0] != expected_path or kind != "Event":
                self._answer(
                    404 if kind == "Event" else 400, b'{"message": "only Event invocations of itself"}'
                )
                return
            recorder.invocations.append(json.loads(raw or b"{}"))
            self._answer(202, b"")

        def _answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return  # a test's output is its assertions

    return InvokeApi
