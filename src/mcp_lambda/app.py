"""FastAPI app factory: routes /mcp to the protocol layer. Built once per container (`mcp_lambda.composition`)."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .auth import CACHE_CONTROL, METADATA_PATHS, Authenticator
from .observability import ToolLogger
from .protocol import McpServer
from .settings import Settings
from .tools import Business
from .transport import MCP_METHODS, MCP_PATHS, HttpResponse, McpEndpoint, internal_error_response


def add_protected_resource_metadata(
    app: FastAPI, authenticator: Authenticator, business: Business, field_scopes: tuple[str, ...] = ()
) -> None:
    """RFC 9728 metadata at both well-known paths, without authentication: where a client learns how to sign in.

    `scopes_supported` lists every scope a tool declares and every scope a manifest field requires.
    """
    scopes = sorted({scope for spec in business.tools for scope in spec.scopes} | set(field_scopes))

    async def protected_resource(request: Request) -> Response:
        document = authenticator.metadata(request, scopes, business.title or business.name)
        # Public by nature: any origin may read it (browser-based clients discover through it too).
        headers = {"cache-control": CACHE_CONTROL, "access-control-allow-origin": "*"}
        return JSONResponse(document, headers=headers)

    for path in METADATA_PATHS:
        app.add_api_route(path, protected_resource, methods=["GET"], include_in_schema=False)


def create_app(
    settings: Settings,
    business: Business,
    server: McpServer,
    logger: ToolLogger,
    endpoint: McpEndpoint | None = None,
) -> FastAPI:
    """The FastAPI app serving `server` at /mcp (and, when authentication is on, the protected-resource metadata).

    Args:
        settings: The container's settings.
        business: The business the server serves.
        server: The protocol server (`mcp_lambda.composition.build_server`).
        logger: The business's logger: unhandled errors and `server_started` are logged on it.
        endpoint: The /mcp endpoint (default: one built on `server` with the settings' authenticator); the
            Lambda handler answers /mcp requests on the same one (`mcp_lambda.lambda_adapter`).

    Returns:
        The app; `mcp_lambda.composition.build_runtime` builds it with everything it needs.
    """
    endpoint = endpoint or McpEndpoint(server, settings, Authenticator(settings), logger)
    authenticator = endpoint.authenticator

    # No slash redirects: a 307 to https://... breaks clients of a plain-HTTP server; /mcp/ is served as /mcp.
    app = FastAPI(
        openapi_url=None, docs_url=None, redoc_url=None, title=f"mcp-{business.name}", redirect_slashes=False
    )

    async def mcp(request: Request) -> Response:
        return _starlette(await endpoint(request))

    for path in MCP_PATHS:
        # A plain Starlette route: the endpoint reads the request itself, so FastAPI's dependency solving (and
        # its validation of a return value that is already a Response) would only cost time on every request.
        app.router.add_route(path, mcp, methods=MCP_METHODS, include_in_schema=False)
    if authenticator.protects:
        add_protected_resource_metadata(app, authenticator, business, server.field_scopes)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        return _starlette(internal_error_response(logger, exc))

    return app


def _starlette(response: HttpResponse) -> Response:
    """The endpoint's response as Starlette's own (what its routes and exception handlers are typed to return):
    the same status, headers and body."""
    converted = Response(response.body, status_code=response.status)
    converted.raw_headers = list(response.raw_headers)
    return converted
