"""`make run`: a local HTTP server that turns each request into an API Gateway payload-2.0 event and answers
it with the Lambda handler declared in template.yaml, so local behaviour is deployed behaviour (CORS preflight
included: API Gateway's CorsConfiguration from template.yaml, for ALLOWED_ORIGINS).

Hand-written on the standard library because no maintained package emulates API Gateway without Docker.
`--reload` (make run RELOAD=1) restarts it on changes under src/, dev/ and manifest/ with watchfiles.

One handler instance is one Lambda container: one request at a time, on one thread with one event loop.
`--workers n` (`WORKERS=n make run`) runs n independent instances of the handler module, like n warm containers
(workers.py): each has its own app, breakers and rate counters; they share every store, as containers share
DynamoDB: sessions, exactly-once records and tasks (embedded in memory by default, or the DynamoDB tables the
settings name), and the business's own module-level state. They also share the process's Logger, so under
concurrency a line's Lambda-context keys may be a neighbour's (each tool-call line's own `request_id` is always
right). A burst of connections queues in the
listen backlog instead of being reset.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import logging
import os
import queue
import re
import shlex
import signal
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar
from urllib.parse import urlsplit

from mcp_lambda.testing.invoke_api import LocalLambda

from .. import log_format
from ..inventory import HELP as INVENTORY_HELP
from ..inventory import demo_inventory
from ..simulator import with_simulator
from .access_log import access_line
from .cors import CorsConfiguration, is_preflight, preflight_headers, response_headers
from .events import LocalContext, http_event, response_body
from .ports import free_port_after
from .workers import LambdaHandler, load_handlers

if TYPE_CHECKING:
    from mcp_lambda.settings import Settings

T = TypeVar("T")
# API Gateway renames a Lambda's WWW-Authenticate response header to this (clients never see the original).
REMAPPED_WWW_AUTHENTICATE = "x-amzn-remapped-www-authenticate"
REPO = Path(__file__).resolve().parents[3]
LISTEN_BACKLOG = 1024  # socketserver's default of 5 resets a burst of connections
DECIMAL = re.compile(r"[0-9]+")
WATCHED = ("src", "dev", "manifest")
LOCAL_DEFAULTS = {
    # DNS-rebinding protection for a loopback server: only local Host names are answered.
    "ALLOWED_HOSTS": "localhost:*,127.0.0.1:*,[::1]:*,localhost,127.0.0.1,[::1]",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "LOG_FORMAT": "text",  # LOG_FORMAT=json prints the production (Lambda) lines
}


@dataclass(frozen=True)
class LocalGateway:
    """What the local API Gateway stand-in needs besides the handler."""

    max_body_bytes: int
    allowed_origins: tuple[str, ...]
    cors: CorsConfiguration
    access_log: bool  # LOG_FORMAT=text: one line per request (tools/call lines come from the executor)
    log_level: int
    remap_www_authenticate: bool = False  # as API Gateway does (--remap-www-authenticate)
    # make run SCOPES=a,b: every request carries a JWT authorizer's context granting these (AUTH_MODE=apigateway).
    scopes: tuple[str, ...] | None = None

    def authorizer(self) -> dict[str, Any] | None:
        """The authorizer context each request carries: a caller granted `scopes`; None without SCOPES."""
        if self.scopes is None:
            return None
        from mcp_lambda.testing import Identity, authorizer_context

        return authorizer_context(Identity("simulator", self.scopes), os.environ["AUTH_ISSUER"])


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
    handler: LambdaHandler | Containers, gateway: LocalGateway
) -> type[BaseHTTPRequestHandler]:
    # One Lambda container serves one request at a time on one thread with one event loop (as Mangum expects):
    # every invocation runs on its container's single worker, serialized like the real thing.
    containers = handler if isinstance(handler, Containers) else Containers([handler])

    class ApiGatewayRequestHandler(BaseHTTPRequestHandler):
        server_version = "mcp-lambda-local"
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            started = time.time()
            if "transfer-encoding" in self.headers:
                # API Gateway passes the body on whole; this stand-in reads only Content-Length bodies.
                self._refuse(411, "Length Required: send the body with a Content-Length")
                return
            declared = self.headers.get("content-length")
            if declared is not None and not DECIMAL.fullmatch(declared.strip()):
                self._refuse(400, "Bad Request: Content-Length must be a non-negative integer")
                return
            length = int(declared) if declared else 0
            if length > gateway.max_body_bytes * 6:  # API Gateway's own 10 MB payload cap, roughly
                self._refuse(413, "Payload Too Large")
                return
            body = self.rfile.read(length) if length else None
            # API Gateway tells the function the client's scheme this way (there it is always https).
            headers = {
                name: value for name, value in self.headers.items() if name.lower() != "x-forwarded-proto"
            }
            headers["x-forwarded-proto"] = "http"
            origin = self.headers.get("origin")
            if gateway.allowed_origins and is_preflight(self.command, headers):
                # API Gateway answers the preflight itself; the function never sees it.
                self._send(204, preflight_headers(gateway.cors, origin, gateway.allowed_origins), b"")
                return
            split = urlsplit(self.path)
            event = http_event(
                self.command,
                split.path,
                headers,
                body,
                query=split.query,
                source_ip=self.client_address[0],
                authorizer=gateway.authorizer(),
            )
            result = containers.invoke(event)
            payload = response_body(result)
            status = int(result.get("statusCode", 200))
            out = {
                REMAPPED_WWW_AUTHENTICATE
                if k.lower() == "www-authenticate" and gateway.remap_www_authenticate
                else k: v
                for k, v in (result.get("headers") or {}).items()
                if k.lower() != "content-length"
            }
            out.update(response_headers(gateway.cors, origin, gateway.allowed_origins))
            self._send(status, out, payload, result.get("cookies") or [])
            if gateway.access_log:
                self._log(started, body, status, payload, str(out.get("content-type", "")))

        def _send(
            self, status: int, headers: dict[str, str], payload: bytes, cookies: Sequence[str] = ()
        ) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            for cookie in cookies:
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

        def _log(
            self, started: float, body: bytes | None, status: int, payload: bytes, content_type: str
        ) -> None:
            duration_ms = (time.time() - started) * 1000
            line = access_line(started, body, status, payload, content_type, duration_ms, self.command)
            if line is not None and logging.getLevelName(line[0]) >= gateway.log_level:
                print(line[1], flush=True)

        do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the handler's own log lines (and, in text mode, our access line) say what happened

    # GET / and /_sim/*: the local-only simulator page
    return with_simulator(ApiGatewayRequestHandler, gateway.scopes)


class LocalServer(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away before its answer was written: nothing to report
        super().handle_error(request, client_address)


def fail(message: str) -> NoReturn:
    """A start-up problem: one line naming it and the fix, and a non-zero exit (no traceback)."""
    print(f"make run: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def load_handler(dotted: str, workers: int = 1) -> list[LambdaHandler]:
    """Import the handler `workers` times (its cold start builds the app), turning the known start-up errors into
    one line."""
    from mcp_lambda.composition import BusinessNotFound
    from mcp_lambda.manifest import ManifestError
    from mcp_lambda.settings import SettingsError
    from mcp_lambda.tools.business import BusinessDefinitionError
    from mcp_lambda.tools.errors import ToolSignatureError

    from ..businesses import not_found

    try:
        handlers = load_handlers(dotted, workers)
    except SettingsError as exc:
        fail(f"{exc}; fix the variable in your environment (docs/configuration.md)")
    except BusinessNotFound as exc:
        fail(str(not_found(exc.name)))
    except BusinessDefinitionError as exc:
        fail(str(exc))
    except ToolSignatureError as exc:
        fail(f"a tool cannot be served: {exc}")
    except ManifestError as exc:
        fail(exc.summary())
    return handlers


def bind(host: str, port: int) -> LocalServer:
    """Listen on `host:port` before anything is built, so a port in use is the first and only thing said.

    Connections that arrive before `serve` sets the request handler wait in the listen backlog.
    """
    return listening(lambda: LocalServer((host, port), BaseHTTPRequestHandler), host, port, "PORT")


def listening(start: Callable[[], T], host: str, port: int, variable: str, what: str = "") -> T:
    """`start()`, which listens on `host:port`; a port in use is said plainly, with a free one to set instead.

    Args:
        start: Opens the listening socket (raises OSError when it cannot).
        host: The address listened on.
        port: The port (0: any free one).
        variable: The make variable that sets the port.
        what: Who listens, when not the MCP server itself (`"the stand-in inventory's "`).

    Returns:
        What `start` returned.
    """
    try:
        return start()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fail(
                f"{what}port {port} on {host} is already in use; stop the other server or pick a free one: "
                f"make run {variable}={free_port_after(host, port)}"
            )
        fail(f"cannot listen on {host}:{port} ({exc.strerror or exc}); pick another {variable}")


def unchecked_note(settings: Settings) -> str:
    """What the start-up line adds for a business no manifest describes (it is served unchecked)."""
    from mcp_lambda.composition import load_business
    from mcp_lambda.manifest.locate import manifest_path

    path = manifest_path(settings, load_business(settings.business))
    return "" if path.exists() else f" (no manifest: tool results are served unchecked; looked for {path})"


def secrets_note(settings: Settings, env_file: Path | None = None) -> str | None:
    """The start-up line naming the secret keys the business declares and `make run` cannot find (None: all found).

    Args:
        settings: The settings (the business, `SECRET_ID`).
        env_file: The `.env.local` to look in (default: the repository's).

    Returns:
        One line, keys and reasons only (never a value), or None.
    """
    from mcp_lambda.composition import load_business
    from mcp_lambda.secrets import ENV_FILE, build_secret_source, missing_secrets

    business = load_business(settings.business)
    if not business.secrets:
        return None
    env_file = env_file or ENV_FILE
    missing = missing_secrets(business.secrets, build_secret_source(settings, env_file))
    if not missing:
        return None
    where = (
        f"the secret SECRET_ID={settings.secret_id}"
        if settings.secret_id
        else f"{env_file} (name=value lines)"
    )
    listed = ", ".join(f"{name} ({reason})" for name, reason in missing)
    return (
        f"make run: business '{business.name}' declares secrets it cannot find: {listed}; put them in {where}: "
        "until then the tools that read them answer 50020"
    )


@dataclass(frozen=True)
class SidePorts:
    """The ports `make run` opens beside the MCP one (0: a free one, when asked for)."""

    invoke_api: int  # the local Lambda Invoke API that starts task and job workers (INVOKE_PORT)
    inventory: int  # the demo's stand-in inventory (INVENTORY_PORT)

    @classmethod
    def after(cls, port: int) -> SidePorts:
        """The defaults: the two ports right after the MCP one (3001 and 3002 for 3000)."""
        return cls(port + 1, port + 2)


def serve(
    host: str,
    port: int,
    dotted_handler: str,
    remap_www_authenticate: bool = False,
    workers: int = 1,
    side: SidePorts | None = None,
    scopes: tuple[str, ...] | None = None,
) -> None:
    from mcp_lambda.settings import SettingsError, get_settings, seconds

    side = side or SidePorts.after(port)
    server = bind(host, port)
    log_format.install()  # LOG_FORMAT=text, before the handler's import creates the logger
    os.environ["SERVED_AT"] = f"http://{host}:{port}/mcp"  # named by the server_started line
    # Tasks and jobs: the runtime invokes "itself" asynchronously; here the Invoke API is a local stand-in whose
    # worker threads call this same handler with the internal task event.
    function_name = f"mcp-local-{os.environ.get('BUSINESS') or 'demo'}"
    invoke_api = listening(
        lambda: LocalLambda(function_name, execute=True, port=side.invoke_api).start(),
        "127.0.0.1",
        side.invoke_api,
        "INVOKE_PORT",
        "the local Lambda Invoke API's ",
    )
    invoke_api.configure_environment()
    beside = contextlib.ExitStack()  # what runs beside the server: the demo's stand-in inventory
    try:
        try:
            settings = get_settings()
        except SettingsError as exc:
            fail(f"{exc}; fix the variable in your environment (docs/configuration.md)")
        inventory = listening(
            lambda: beside.enter_context(demo_inventory(settings.business, side.inventory)),
            "127.0.0.1",
            side.inventory,
            "INVENTORY_PORT",
            "the stand-in inventory's ",
        )
        if inventory is not None:  # read again: the stand-in is declared in EGRESS_ALLOW now
            get_settings.cache_clear()
            settings = get_settings()
        handlers = load_handler(dotted_handler, workers)
    except SystemExit:
        server.server_close()
        invoke_api.stop()
        beside.close()
        raise
    invoke_api.handler = handlers[0]
    invoke_api.timeout_seconds = seconds(settings.task_worker_timeout)
    gateway = LocalGateway(
        max_body_bytes=settings.max_body_bytes,
        allowed_origins=settings.allowed_origins,
        cors=CorsConfiguration.from_template(),
        access_log=settings.log_format == "text",
        log_level=logging.getLogger(settings.business).getEffectiveLevel(),
        remap_www_authenticate=remap_www_authenticate,
        scopes=scopes,
    )
    server.RequestHandlerClass = make_request_handler(Containers(handlers), gateway)
    many = f" ({workers} workers)" if workers > 1 else ""
    print(
        f"MCP server for business '{settings.business}' at http://{host}:{port}/mcp{many}{unchecked_note(settings)}",
        flush=True,
    )
    if scopes is not None:
        granted = ", ".join(scopes) or "none"
        print(
            f"every request is a caller granted the scopes: {granted} (SCOPES; AUTH_MODE=apigateway)",
            flush=True,
        )
    print(
        f"task and job workers start through a local Lambda Invoke API at {invoke_api.endpoint_url}",
        flush=True,
    )
    if inventory is not None:
        print(f"check_stock asks a stand-in inventory at {inventory} ({INVENTORY_HELP})", flush=True)
    note = secrets_note(settings)
    if note is not None:
        print(note, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        invoke_api.stop()
        beside.close()


def reload(
    host: str, port: int, dotted_handler: str, watched: Sequence[Path], extra: Sequence[str] = ()
) -> int:
    """Serve in a child process and restart it whenever a file under `watched` changes."""
    try:
        from watchfiles import run_process
    except ImportError:
        fail("RELOAD=1 needs watchfiles, a development dependency: run make venv")
    command = [sys.executable, "-m", "mcp_lambda_dev.local.server", "--host", host, "--port", str(port)]
    command += ["--handler", dotted_handler, *extra]
    print(f"make run: reloading on changes under {', '.join(str(path) for path in watched)}", flush=True)
    return int(run_process(*watched, target=shlex.join(command), target_type="command"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the MCP Lambda handler locally.")
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "3000")))
    parser.add_argument(
        "--handler", default="mcp_lambda.handler.handler", help="module.function, as in template.yaml"
    )
    parser.add_argument(
        "--remap-www-authenticate",
        action="store_true",
        help=f"rename WWW-Authenticate to {REMAPPED_WWW_AUTHENTICATE}, as API Gateway does",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("WORKERS") or "1"),
        help="independent handler instances (containers) serving at once (default 1)",
    )
    parser.add_argument(
        "--invoke-port",
        type=int,
        default=_port_variable("INVOKE_PORT"),
        help="the local Lambda Invoke API's port (default PORT+1; 0: any free one)",
    )
    parser.add_argument(
        "--inventory-port",
        type=int,
        default=_port_variable("INVENTORY_PORT"),
        help="the demo's stand-in inventory's port (default PORT+2; 0: any free one)",
    )
    parser.add_argument("--reload", action="store_true", help="restart on changes (make run RELOAD=1)")
    parser.add_argument(
        "--scopes",
        default=None,
        help="a,b: every request is a caller granted these scopes, through AUTH_MODE=apigateway (make run SCOPES=)",
    )
    parser.add_argument(
        "--watch",
        action="append",
        type=Path,
        help="with --reload: a directory to watch (default: src, dev, manifest)",
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    # Ctrl+C (and the reloader's SIGINT) stops the server even when started with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for name, value in LOCAL_DEFAULTS.items():
        os.environ.setdefault(name, value)
    scopes = None if args.scopes is None else tuple(args.scopes.replace(",", " ").split())
    if scopes is not None:  # API Gateway's JWT authorizer, stood in for: the function trusts its context
        from mcp_lambda.testing import DEFAULT_ISSUER

        os.environ["AUTH_MODE"] = "apigateway"
        os.environ.setdefault("AUTH_ISSUER", DEFAULT_ISSUER)
    if args.reload:
        watched = args.watch or [REPO / name for name in WATCHED if (REPO / name).is_dir()]
        extra = ["--workers", str(args.workers)]
        extra += ["--scopes", args.scopes] if args.scopes is not None else []
        extra += [] if args.invoke_port is None else ["--invoke-port", str(args.invoke_port)]
        extra += [] if args.inventory_port is None else ["--inventory-port", str(args.inventory_port)]
        extra += ["--remap-www-authenticate"] if args.remap_www_authenticate else []
        raise SystemExit(reload(args.host, args.port, args.handler, watched, extra))
    defaults = SidePorts.after(args.port)
    side = SidePorts(
        defaults.invoke_api if args.invoke_port is None else args.invoke_port,
        defaults.inventory if args.inventory_port is None else args.inventory_port,
    )
    serve(args.host, args.port, args.handler, args.remap_www_authenticate, args.workers, side, scopes)


def _port_variable(name: str) -> int | None:
    """A port from the environment (make run INVOKE_PORT=...), or None for the default."""
    value = os.environ.get(name)
    return int(value) if value else None


if __name__ == "__main__":
    main()
