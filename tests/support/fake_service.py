"""A fake downstream HTTP service on 127.0.0.1 for tests of `ctx.http` and the tools that use it.

`routes` maps a path to a function of the request returning (status, JSON body); by default every path echoes
the query (`{"code": 0, "query": {...}}`). `statuses` are answered first, in order, to script a burst of errors.
Every request is recorded (method, path, query, headers) so a test can see what reached the service.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


Route = Callable[[Seen], tuple[int, Any]]


@dataclass
class FakeService:
    url: str = ""
    port: int = 0
    routes: dict[str, Route] = field(default_factory=dict)
    statuses: list[int] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)

    def answer(self, request: Seen) -> tuple[int, Any]:
        self.seen.append(request)
        if self.statuses:
            status = self.statuses.pop(0)
            return status, {"code": status, "message": "scripted"}
        route = self.routes.get(request.path)
        if route is not None:
            return route(request)
        return 200, {"code": 0, "query": request.query}


@contextmanager
def fake_service() -> Iterator[FakeService]:
    service = FakeService()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            split = urllib.parse.urlsplit(self.path)
            request = Seen(
                self.command,
                split.path,
                dict(urllib.parse.parse_qsl(split.query)),
                {k.lower(): v for k, v in self.headers.items()},
                body,
            )
            status, payload = service.answer(request)
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("x-tt-logid", f"L-{len(service.seen)}")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = do_PUT = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    service.port = int(server.server_address[1])
    service.url = f"http://127.0.0.1:{service.port}"
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
