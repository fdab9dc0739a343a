"""The simulator's local-only routes on the `make run` server; every other request goes on to the handler.

    GET  /                      the page
    GET  /_sim/static/<file>    its script and style sheet (package files: no build step, no network)
    GET  /_sim/info             the business being served and its manifest file
    GET  /_sim/logs?id=<id>...  the log lines of the requests with these JSON-RPC ids
    POST /_sim/report           verdict, model view, cards and lists of one result the page received from /mcp

Nothing here answers MCP: the page talks to /mcp like any client, through the real handler.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp_lambda.settings import Settings, get_settings
from mcp_lambda.transport.policy import host_allowed, is_json_content_type, origin_allowed

from .logs import LogCapture
from .report import BadRequest, Simulation

STATIC = resources.files(__package__) / "static"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
}
# The page loads nothing from anywhere else, and nothing may frame it.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; "
        # The MCP Apps panel: the sandbox proxy on the other loopback name, as a web host frames it.
        "frame-src http://127.0.0.1:* http://localhost:*"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
# The MCP Apps sandbox proxy is framed by the page from the other loopback name, and the views it loads inherit
# its policy (srcdoc): only who may frame it is fixed here; each view's own CSP comes with the view.
SANDBOX_FILES = frozenset({"sandbox.html", "sandbox.js"})
SANDBOX_HEADERS = {
    "content-security-policy": "frame-ancestors http://127.0.0.1:* http://localhost:*",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
MAX_REPORT_BYTES = 16 * 1024 * 1024


class SimulatorRoutes:
    """Answers the simulator's requests on a BaseHTTPRequestHandler; `serve` says whether it took one."""

    def __init__(self, settings: Settings, scopes: tuple[str, ...] | None = None) -> None:
        self.settings = settings
        self.simulation = Simulation.for_settings(settings, scopes)
        self.logs = LogCapture.attach(self.simulation.business.name)

    def serve(self, request: BaseHTTPRequestHandler) -> bool:
        path = urlsplit(request.path).path
        if not (path == "/" or path.startswith("/_sim/")):
            return False
        if not host_allowed(request.headers.get("host"), self.settings.allowed_hosts):
            self._json(request, 403, {"error": "this Host is not allowed"})
        elif request.command == "GET" and path == "/":
            self._file(request, "index.html")
        elif request.command == "GET" and path.startswith("/_sim/static/"):
            self._file(request, path.removeprefix("/_sim/static/"))
        elif request.command == "GET" and path == "/_sim/info":
            self._json(request, 200, self.simulation.describe())
        elif request.command == "GET" and path == "/_sim/logs":
            ids = parse_qs(urlsplit(request.path).query).get("id", [])
            self._json(request, 200, {"lines": self.logs.lines_of([_jsonrpc_id(value) for value in ids])})
        elif request.command == "POST" and path == "/_sim/report":
            self._report(request)
        else:
            self._json(request, 404 if path != "/" else 405, {"error": f"no {request.command} {path} here"})
        return True

    def _report(self, request: BaseHTTPRequestHandler) -> None:
        if not origin_allowed(request.headers.get("origin"), self.settings.allowed_origins):
            self._json(request, 403, {"error": "this Origin is not allowed"})
            return
        if not is_json_content_type(request.headers.get("content-type")):
            self._json(request, 415, {"error": "send application/json"})
            return
        length = int(request.headers.get("content-length") or 0)
        if length > MAX_REPORT_BYTES:
            self._json(request, 413, {"error": "too large"})
            return
        try:
            asked = json.loads(request.rfile.read(length) or b"null")
            if not isinstance(asked, dict) or not isinstance(asked.get("result"), dict):
                raise BadRequest("send {tool, result, ids?, selections?}")
            lines = self.logs.lines_of(asked.get("ids") or [])
            report = self.simulation.report(
                str(asked.get("tool")), asked["result"], lines, asked.get("selections") or []
            )
        except (ValueError, BadRequest) as exc:  # JSONDecodeError is a ValueError
            self._json(request, 400, {"error": str(exc)})
            return
        self._json(request, 200, report)

    def _file(self, request: BaseHTTPRequestHandler, name: str) -> None:
        suffix = name[name.rfind(".") :] if "." in name else ""
        file = STATIC / name
        if "/" in name or suffix not in CONTENT_TYPES or not file.is_file():
            self._json(request, 404, {"error": f"no file {name}"})
            return
        headers = SANDBOX_HEADERS if name in SANDBOX_FILES else SECURITY_HEADERS
        self._send(request, 200, CONTENT_TYPES[suffix], file.read_bytes(), headers)

    def _json(self, request: BaseHTTPRequestHandler, status: int, body: Any) -> None:
        self._send(request, status, "application/json", json.dumps(body, ensure_ascii=False).encode())

    @staticmethod
    def _send(
        request: BaseHTTPRequestHandler,
        status: int,
        content_type: str,
        payload: bytes,
        headers: dict[str, str] = SECURITY_HEADERS,
    ) -> None:
        if status >= 400:  # a refused request's body may be unread: do not reuse the connection
            request.close_connection = True
        request.send_response(status)
        request.send_header("content-type", content_type)
        for name, value in headers.items():
            request.send_header(name, value)
        request.send_header("content-length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)


def _jsonrpc_id(value: str) -> Any:
    """The page names its JSON-RPC ids as text in the query; a number travels as a number."""
    try:
        return int(value)
    except ValueError:
        return value


def with_simulator(
    base: type[BaseHTTPRequestHandler], scopes: tuple[str, ...] | None = None
) -> type[BaseHTTPRequestHandler]:
    """`base` (the API Gateway stand-in) with the simulator's GET/POST routes in front of it; `scopes` are
    those every request's caller is granted (make run SCOPES=a,b), None for no caller."""
    routes = SimulatorRoutes(get_settings(), scopes)

    class WithSimulator(base):  # type: ignore[valid-type,misc]
        def do_GET(self) -> None:
            if not routes.serve(self):
                super().do_GET()

        def do_POST(self) -> None:
            if not routes.serve(self):
                super().do_POST()

    return WithSimulator
