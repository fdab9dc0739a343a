"""Fakes for what a tool reaches outside itself: its secrets, and a downstream HTTP service for `ctx.http`."""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..secrets import SecretSource, SecretUnavailable


class StaticSecrets:
    """The business secret as Secrets Manager or `.env.local` would hold it, from a dict.

    Args:
        values: Secret name to value; a name it lacks (or an empty value) is `missing`, as in a deployment.
    """

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self.values = dict(values or {})

    def get(self, name: str) -> str:
        """The secret's value.

        Args:
            name: The secret's name, as the tool asks for it (`ctx.secret(name)`).

        Returns:
            Its value.

        Raises:
            SecretUnavailable: The name is not there.
        """
        value = self.values.get(name)
        if not value:
            raise SecretUnavailable(name, "missing", "the test's StaticSecrets")
        return value


# The framework's own keys in the business secret (multi round-trip state, log fingerprints): never declared.
FRAMEWORK_SECRETS = frozenset({"request_state_key", "log_fingerprint_key"})


class DeclaredSecrets:
    """A secret source that gives a business only the keys it declares (`Business(secrets=[...])`).

    The test kit puts it in front of a declaring business's secrets, so a tool that reads a key its business
    does not declare fails its tests (error result 50020, the log line naming the fix) and the declared list,
    which `make run` and the smoke check compare with the real secret, cannot drift from the code.

    Args:
        source: The secrets the test gives.
        business: The business's name, for the message.
        declared: The keys it declares.
    """

    def __init__(self, source: SecretSource, business: str, declared: Iterable[str]) -> None:
        self.source = source
        self.business = business
        self.declared = frozenset(declared) | FRAMEWORK_SECRETS

    def get(self, name: str) -> str:
        """The secret's value, when the business declares it.

        Args:
            name: The key, as the tool asks for it.

        Returns:
            Its value.

        Raises:
            SecretUnavailable: The business does not declare it, or the source has no value for it.
        """
        if name not in self.declared:
            raise SecretUnavailable(
                name,
                f"not declared by business '{self.business}' (add it to Business(secrets=[...]))",
                "the business's declared secrets",
            )
        return self.source.get(name)


@dataclass(frozen=True)
class ServiceRequest:
    """One request the fake service received.

    Attributes:
        method: The HTTP method.
        path: The path, without the query.
        query: The query parameters (the last value of each).
        headers: The headers, names lower-cased.
        body: The body bytes.
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None


Route = Callable[[ServiceRequest], tuple[int, Any]] | tuple[int, Any]


@dataclass
class FakeService:
    """A downstream HTTP service on 127.0.0.1 (start it with `fake_service()`).

    Each request is answered, in this order: the next of `statuses` (a scripted error burst), else the route of
    its path (a `(status, JSON body)` pair or a function of the request returning one), else `200` echoing the
    query as `{"code": 0, "query": {...}}`. `latency_ms` delays every answer. Every request lands in `seen`.

    Attributes:
        url: `http://127.0.0.1:<port>`: the base URL to hand the tool (e.g. as a secret).
        port: The port it listens on.
        routes: Path to route.
        statuses: Statuses answered first, one per request, with `{"code": status, "message": "scripted"}`.
        latency_ms: Milliseconds to wait before each answer.
        seen: The requests received, oldest first.
    """

    url: str = ""
    port: int = 0
    routes: dict[str, Route] = field(default_factory=dict)
    statuses: list[int] = field(default_factory=list)
    latency_ms: int = 0
    seen: list[ServiceRequest] = field(default_factory=list)

    def route(self, path: str, status: int, body: Any) -> None:
        """Answer `path` with `status` and the JSON `body` from now on.

        Args:
            path: The request path, e.g. `/items/i-1`.
            status: The HTTP status.
            body: The JSON body.
        """
        self.routes[path] = (status, body)

    def fail_next(self, *statuses: int) -> None:
        """Answer the next requests with these statuses, in order, whatever their path.

        Args:
            *statuses: HTTP statuses, e.g. `503, 503`.
        """
        self.statuses.extend(statuses)

    def reset(self) -> None:
        """Forget the routes, scripted statuses, latency and the requests seen."""
        self.routes.clear()
        self.statuses.clear()
        self.seen.clear()
        self.latency_ms = 0

    def answer(self, request: ServiceRequest) -> tuple[int, Any]:
        """The status and JSON body `request` gets (and record it).

        Args:
            request: The request received.

        Returns:
            (HTTP status, JSON body).
        """
        self.seen.append(request)
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)
        if self.statuses:
            status = self.statuses.pop(0)
            return status, {"code": status, "message": "scripted"}
        route = self.routes.get(request.path)
        if callable(route):
            return route(request)
        if route is not None:
            return route
        return 200, {"code": 0, "query": request.query}


class _QuietOnHangUp(ThreadingHTTPServer):
    """A client that hangs up before its answer is written (a caller's timeout, the very case a slow fake is
    for) is no error of the fake's: nothing is printed. Any other exception is reported as the server reports it."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError, ...
            return
        super().handle_error(request, client_address)


@contextmanager
def fake_service() -> Iterator[FakeService]:
    """Run a `FakeService` on a free 127.0.0.1 port for the duration of the block.

    Yields:
        The running service.
    """
    service = FakeService()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            split = urllib.parse.urlsplit(self.path)
            request = ServiceRequest(
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

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = _QuietOnHangUp(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    service.port = int(server.server_address[1])
    service.url = f"http://127.0.0.1:{service.port}"
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
