"""`make run`: a local HTTP server that turns each request into an API Gateway payload-2.0 event and answers
it with the Lambda handler declared in template.yaml, so local behaviour is deployed behaviour.

Hand-written on the standard library because no maintained package emulates API Gateway without Docker.

One handler instance is one Lambda container: one request at a time, on one thread with one event loop.
`--workers n` (`WORKERS=n make run`) runs n independent instances of the handler module, like n warm containers:
each has its own app, breakers and rate counters; they share the session store (the first instance's embedded
one, or DynamoDB). They also share the process's Logger, so under concurrency a line's Lambda-context keys may be
a neighbour's (each tool-call line's own `request_id` is always right). A burst of connections queues in the listen backlog instead of being reset.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import json
import os
import queue
import re
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from .events import LocalContext, http_event, response_body

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]
LISTEN_BACKLOG = 1024  # socketserver's default of 5 resets a burst of connections
DECIMAL = re.compile(r"[0-9]+")


class Container:
    """One handler instance with its single worker thread and event loop (as Mangum expects)."""

    def __init__(self, handler: LambdaHandler) -> None:
        self.handler = handler
        self.worker = ThreadPoolExecutor(
            max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop())
        )

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        return self.worker.submit(self.handler, event, LocalContext()).result()


class Containers:
    """Each request goes to an idle container, or waits for one: serialized per container, like Lambda."""

    def __init__(self, handlers: list[LambdaHandler]) -> None:
        self.idle: queue.SimpleQueue[Container] = queue.SimpleQueue()
        for handler in handlers:
            self.idle.put(Container(handler))

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        container = self.idle.get()
        try:
            return container.invoke(event)
        finally:
            self.idle.put(container)


def make_request_handler(
    handler: LambdaHandler | Containers, max_body_bytes: int
) -> type[BaseHTTPRequestHandler]:
    containers = handler if isinstance(handler, Containers) else Containers([handler])

    class ApiGatewayRequestHandler(BaseHTTPRequestHandler):
        server_version = "mcp-lambda-local"
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            if "transfer-encoding" in self.headers:
                # API Gateway passes the body on whole; this stand-in reads only Content-Length bodies.
                self._refuse(411, "Length Required: send the body with a Content-Length")
                return
            declared = self.headers.get("content-length")
            if declared is not None and not DECIMAL.fullmatch(declared.strip()):
                self._refuse(400, "Bad Request: Content-Length must be a non-negative integer")
                return
            length = int(declared) if declared else 0
            if length > max_body_bytes * 6:  # API Gateway's own 10 MB payload cap, roughly
                self._refuse(413, "Payload Too Large")
                return
            body = self.rfile.read(length) if length else None
            split = urlsplit(self.path)
            headers = {name: value for name, value in self.headers.items()}
            event = http_event(
                self.command, split.path, headers, body, query=split.query, source_ip=self.client_address[0]
            )
            result = containers.invoke(event)
            payload = response_body(result)
            self.send_response(int(result.get("statusCode", 200)))
            for name, value in (result.get("headers") or {}).items():
                if name.lower() != "content-length":
                    self.send_header(name, value)
            for cookie in result.get("cookies") or []:
                self.send_header("set-cookie", cookie)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)

        def _refuse(self, status: int, message: str) -> None:
            """Answer before reading a body whose end is unknown, and close the connection after it."""
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
            payload = json.dumps(error).encode()
            self.close_connection = True
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return ApiGatewayRequestHandler


class LocalServer(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away before its answer was written: nothing to report
        super().handle_error(request, client_address)


def load_handlers(target: str, count: int) -> list[LambdaHandler]:
    """`count` independent instances of the handler `module.function`: the module itself, then fresh copies of it
    (each runs its module code again: its own app, as a new container would), all on the first one's session store
    (the embedded memory store is one per app, and containers share their store as they share a table)."""
    module_name, _, function_name = target.rpartition(".")
    first = importlib.import_module(module_name)
    handlers = [getattr(first, function_name)]
    origin = importlib.util.find_spec(module_name)
    shared = getattr(getattr(getattr(first, "app", None), "state", None), "sessions", None)
    import mcp_lambda.app as app_module

    building = app_module.build_session_store
    if shared is not None:
        app_module.build_session_store = lambda settings: shared
    try:
        for index in range(1, count):
            assert origin is not None and origin.origin is not None
            spec = importlib.util.spec_from_file_location(f"{module_name}_worker{index}", origin.origin)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            handlers.append(getattr(module, function_name))
    finally:
        app_module.build_session_store = building
    return handlers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the MCP Lambda handler locally.")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    parser.add_argument(
        "--handler", default="mcp_lambda.handler.handler", help="module.function, as in template.yaml"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WORKERS") or "1"),
        help="independent handler instances (containers) serving at once (default 1)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    # DNS-rebinding protection for a loopback server: only local Host names are answered.
    os.environ.setdefault("ALLOWED_HOSTS", "localhost:*,127.0.0.1:*,[::1]:*,localhost,127.0.0.1,[::1]")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    containers = Containers(load_handlers(args.handler, args.workers))
    from mcp_lambda.settings import get_settings

    server = LocalServer(
        (args.host, args.port), make_request_handler(containers, get_settings().max_body_bytes)
    )
    workers = f" ({args.workers} workers)" if args.workers > 1 else ""
    print(
        f"MCP server for business '{get_settings().business}' at http://{args.host}:{args.port}/mcp{workers}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
