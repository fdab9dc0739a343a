"""`make run`: a local HTTP server that turns each request into an API Gateway payload-2.0 event and answers
it with the Lambda handler declared in template.yaml, so local behaviour is deployed behaviour.

Hand-written on the standard library because no maintained package emulates API Gateway without Docker.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from ..simulator import with_simulator
from .events import LocalContext, http_event, response_body

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def make_request_handler(handler: LambdaHandler, max_body_bytes: int) -> type[BaseHTTPRequestHandler]:
    # One Lambda container serves one request at a time on one thread with one event loop (as Mangum expects):
    # every invocation runs on this single worker, serialized like the real thing.
    worker = ThreadPoolExecutor(
        max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop())
    )

    class ApiGatewayRequestHandler(BaseHTTPRequestHandler):
        server_version = "mcp-lambda-local"
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > max_body_bytes * 6:  # API Gateway's own 10 MB payload cap, roughly
                self.send_error(413)
                return
            body = self.rfile.read(length) if length else None
            split = urlsplit(self.path)
            headers = {name: value for name, value in self.headers.items()}
            event = http_event(
                self.command, split.path, headers, body, query=split.query, source_ip=self.client_address[0]
            )
            result = worker.submit(handler, event, LocalContext()).result()
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

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return with_simulator(ApiGatewayRequestHandler)  # GET / and /_sim/*: the local-only simulator page


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the MCP Lambda handler locally.")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    parser.add_argument(
        "--handler", default="mcp_lambda.handler.handler", help="module.function, as in template.yaml"
    )
    args = parser.parse_args(argv)
    # DNS-rebinding protection for a loopback server: only local Host names are answered.
    os.environ.setdefault("ALLOWED_HOSTS", "localhost:*,127.0.0.1:*,[::1]:*,localhost,127.0.0.1,[::1]")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    module_name, _, function_name = args.handler.rpartition(".")
    handler: LambdaHandler = getattr(importlib.import_module(module_name), function_name)
    from mcp_lambda.settings import get_settings

    server = ThreadingHTTPServer(
        (args.host, args.port), make_request_handler(handler, get_settings().max_body_bytes)
    )
    print(
        f"MCP server for business '{get_settings().business}' at http://{args.host}:{args.port}/mcp",
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
