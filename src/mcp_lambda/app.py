"""FastAPI app factory: routes /mcp to the protocol layer. Built once per container (`mcp_lambda.composition`)."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .apps import CardViewSet
from .auth import CACHE_CONTROL, METADATA_PATHS, Authenticator
from .downstream import HttpClient
from .idempotency import IdempotencyStore
from .observability import ToolLogger, ToolTelemetry, get_logger, log_internal_error, quiet_libraries
from .platform_api import PlatformApiClient
from .protocol import McpServer
from .protocol.jsonrpc import INTERNAL_ERROR
from .secrets import SecretSource, build_secret_source
from .sessions import SessionStore
from .settings import Settings
from .stores import build_circuit_store, build_store
from .tools import Business
from .tools.context import Services
from .tools.executor import ResultCheck, ToolExecutor
from .tools.fingerprints import LogFingerprints
from .tools.quotas import build_quotas
from .transport import McpEndpoint, http_error

if TYPE_CHECKING:
    from .manifest import Manifest
    from .tasks import TaskInvoker, TaskStore
    from .tools.quotas import QuotaStore

REPO_ROOT = Path(__file__).resolve().parents[2]
# Where a business's manifest is looked for without MANIFEST_DIR: the repo's, or one bundled beside the code.
DEFAULT_MANIFEST_DIRS = [REPO_ROOT / "manifest", Path(__file__).resolve().parents[1] / "manifest"]
# The endpoint, with and without the trailing slash some clients add (template.yaml routes both).
MCP_PATHS = ("/mcp", "/mcp/")
MCP_METHODS = ["POST", "GET", "DELETE"]


def manifest_path(settings: Settings, business: Business) -> Path:
    """`MANIFEST_DIR/<business>.json` (what `make build` compiles) or `.yaml`; by default the repo's `manifest/`
    (or one bundled beside the code)."""
    bases = [Path(settings.manifest_dir)] if settings.manifest_dir else DEFAULT_MANIFEST_DIRS
    return _find_manifest(bases, business.name) or bases[0] / f"{business.name}.yaml"


def _find_manifest(bases: list[Path], name: str) -> Path | None:
    for base in bases:
        for suffix in (".json", ".yaml"):
            candidate = base / f"{name}{suffix}"
            if candidate.exists():
                return candidate
    return None


def bind_business_manifest(
    settings: Settings, business: Business
) -> tuple[ResultCheck | None, dict[str, dict[str, Any]], Manifest | None]:
    """The manifest's result check, output schemas and the manifest itself (its card bindings).

    A business that no manifest describes (no file in MANIFEST_DIR or the default locations) is served
    unchecked, with a warning naming the path looked at. A MANIFEST_DIR without the business's file while a
    default location has one is a mistake that would silently serve results unchecked: it refuses to start.

    Raises:
        ManifestError: The manifest is invalid, or MANIFEST_DIR lacks the file a default location has.
    """
    path = manifest_path(settings, business)
    if not path.exists():
        elsewhere = _find_manifest(DEFAULT_MANIFEST_DIRS, business.name) if settings.manifest_dir else None
        if elsewhere is not None:
            from .manifest.errors import MISSING_FILE, ManifestError, Problem

            message = (
                f"MANIFEST_DIR={settings.manifest_dir} has no {business.name}.yaml or .json, but {elsewhere} "
                f"exists: put the manifest in MANIFEST_DIR or unset MANIFEST_DIR"
            )
            raise ManifestError([Problem(str(path), "", MISSING_FILE, message)])
        logging.getLogger("mcp_lambda").warning(
            "no manifest for business '%s' (looked for %s): tool results are served unchecked; write one to "
            "check them (docs/manifest.md)",
            business.name,
            path,
        )
        return None, {}, None
    from .manifest import bind_manifest  # raises ManifestError at start when the manifest is invalid

    bound = bind_manifest(business, path)
    schemas = {spec.name: s for spec in business.tools if (s := bound.output_schema(spec.name)) is not None}
    return bound.check, schemas, bound.manifest


def add_protected_resource_metadata(app: FastAPI, authenticator: Authenticator, business: Business) -> None:
    """RFC 9728 metadata at both well-known paths, without authentication: where a client learns how to sign in."""
    scopes = sorted({scope for spec in business.tools for scope in spec.scopes})

    async def protected_resource(request: Request) -> Response:
        document = authenticator.metadata(request, scopes, business.title or business.name)
        # Public by nature: any origin may read it (browser-based clients discover through it too).
        headers = {"cache-control": CACHE_CONTROL, "access-control-allow-origin": "*"}
        return JSONResponse(document, headers=headers)

    for path in METADATA_PATHS:
        app.add_api_route(path, protected_resource, methods=["GET"], include_in_schema=False)


def create_server(
    settings: Settings,
    business: Business,
    sessions: SessionStore,
    idempotency: IdempotencyStore | None = None,
    tasks: TaskStore | None = None,
    invoker: TaskInvoker | None = None,
    secrets: SecretSource | None = None,
    quota_store: QuotaStore | None = None,
) -> McpServer:
    """The protocol server for `business`, whatever transport carries it (HTTP here; stdio in dev/)."""
    logger = get_logger(business.name, settings.log_format)
    quiet_libraries()
    result_check, output_schemas, manifest = bind_business_manifest(settings, business)
    views = CardViewSet.build(business, manifest)  # raises CardViewError at start when they do not fit
    # One per container: pools and circuits per host, the circuits in the store PROTECTION_STORE names.
    http = HttpClient.from_settings(
        settings, logger, functools.partial(build_circuit_store, settings, logger)
    )
    services = Services(
        logger=logger,
        secrets=secrets or build_secret_source(settings),
        platform_api=PlatformApiClient.from_settings(settings, logger, http),
        http=http,
    )
    fingerprints = LogFingerprints.from_settings(settings, services.secrets, logger)
    # Raises SettingsError at start when TOOL_QUOTAS names a tool the business does not have.
    quotas = build_quotas(
        business.tools,
        settings.tool_quotas,
        business.name,
        lambda: quota_store or build_store("quotas", settings),
    )
    executor = ToolExecutor(
        result_check, ToolTelemetry(business.name), business.error_map, fingerprints, quotas
    )
    idempotency = idempotency or build_store("idempotency", settings)
    return McpServer.create(
        business,
        settings,
        services,
        sessions,
        executor,
        output_schemas,
        idempotency,
        tasks=tasks,
        invoker=invoker,
        views=views,
    )


def create_app(settings: Settings, business: Business, server: McpServer, logger: ToolLogger) -> FastAPI:
    """The FastAPI app serving `server` at /mcp (and, when authentication is on, the protected-resource metadata).

    Args:
        settings: The container's settings.
        business: The business the server serves.
        server: The protocol server (`create_server`).
        logger: The business's logger: unhandled errors and `server_started` are logged on it.

    Returns:
        The app; `mcp_lambda.composition.build_runtime` builds it with everything it needs.
    """
    authenticator = Authenticator(settings)
    endpoint = McpEndpoint(server, settings, authenticator, logger)

    # No slash redirects: a 307 to https://... breaks clients of a plain-HTTP server; /mcp/ is served as /mcp.
    app = FastAPI(
        openapi_url=None, docs_url=None, redoc_url=None, title=f"mcp-{business.name}", redirect_slashes=False
    )
    for path in MCP_PATHS:
        # A plain Starlette route: the endpoint reads the request itself, so FastAPI's dependency solving (and
        # its validation of a return value that is already a Response) would only cost time on every request.
        app.router.add_route(path, endpoint.__call__, methods=MCP_METHODS, include_in_schema=False)
    if authenticator.protects:
        add_protected_resource_metadata(app, authenticator, business)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        # The last line of defence: log the stack, never send it.
        error_id = log_internal_error(logger, "unhandled_error", exc)
        return http_error(500, INTERNAL_ERROR, f"Internal error (error id {error_id})")

    logger.info(
        "server_started",
        extra={
            "event": "server_started",
            "version": business.version,
            "environment": settings.environment,
            "tool_count": len(business.tools),
        },
    )
    return app
