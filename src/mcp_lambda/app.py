"""FastAPI app factory: routes /mcp to the protocol layer. Built once per container."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response

from .downstream import HttpClient
from .observability import ToolTelemetry, get_logger, log_internal_error, quiet_libraries
from .platform_api import PlatformApiClient
from .protocol import McpServer
from .protocol.jsonrpc import INTERNAL_ERROR
from .secrets import SecretSource, build_secret_source
from .sessions import SessionStore, build_session_store
from .settings import Settings, get_settings
from .tools import Business, load_business
from .tools.context import Services
from .tools.executor import ResultCheck, ToolExecutor
from .transport import McpEndpoint, http_error

REPO_ROOT = Path(__file__).resolve().parents[2]


def manifest_path(settings: Settings, business: Business) -> Path:
    """`MANIFEST_DIR/<business>.yaml`; by default the repo's `manifest/` (or one bundled beside the code)."""
    if settings.manifest_dir:
        return Path(settings.manifest_dir) / f"{business.name}.yaml"
    for base in (REPO_ROOT / "manifest", Path(__file__).resolve().parents[1] / "manifest"):
        candidate = base / f"{business.name}.yaml"
        if candidate.exists():
            return candidate
    return REPO_ROOT / "manifest" / f"{business.name}.yaml"


def bind_business_manifest(
    settings: Settings, business: Business
) -> tuple[ResultCheck | None, dict[str, dict[str, Any]]]:
    """The manifest's result check and output schemas; a business without a manifest file is served unchecked."""
    path = manifest_path(settings, business)
    if not path.exists():
        logging.getLogger("mcp_lambda").warning(
            "no manifest for business '%s': tool results are served unchecked", business.name
        )
        return None, {}
    from .manifest import bind_manifest  # raises ManifestError at start when the manifest is invalid

    bound = bind_manifest(business, path)
    schemas = {spec.name: s for spec in business.tools if (s := bound.output_schema(spec.name)) is not None}
    return bound.check, schemas


def create_app(
    settings: Settings | None = None,
    business: Business | None = None,
    sessions: SessionStore | None = None,
    secrets: SecretSource | None = None,
) -> FastAPI:
    settings = settings or get_settings()
    business = business or load_business(settings.business)
    logger = get_logger(business.name)
    quiet_libraries()
    result_check, output_schemas = bind_business_manifest(settings, business)
    http = HttpClient.from_settings(settings, logger)  # one per container: pools and breakers per host
    services = Services(
        logger=logger,
        secrets=secrets or build_secret_source(settings),
        platform_api=PlatformApiClient.from_settings(settings, logger, http),
        http=http,
    )
    executor = ToolExecutor(result_check, ToolTelemetry(business.name), business.error_map)
    sessions = sessions or build_session_store(settings)
    server = McpServer.create(business, settings, services, sessions, executor, output_schemas)
    endpoint = McpEndpoint(server, settings)

    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None, title=f"mcp-{business.name}")
    # For the handler's decorators and `make bench` (sessions.reads/.writes).
    app.state.logger, app.state.sessions = logger, sessions
    app.add_api_route("/mcp", endpoint.__call__, methods=["POST", "GET", "DELETE"], include_in_schema=False)

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
