"""The one CORS expectation: what API Gateway sends a browser for the CorsConfiguration we deploy. The template
test checks template.yaml yields it; the make-run test checks the local server sends it."""

from __future__ import annotations

# API Gateway (HTTP API) answers a preflight from an allowed origin with 204 and these headers, each list
# comma-joined as configured; the function is never invoked for it.
PREFLIGHT_STATUS = 204


def expected_preflight(origin: str) -> dict[str, str]:
    return {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": "POST,GET,DELETE",
        # "*" does not cover Authorization (Fetch spec), so the template names it too.
        "access-control-allow-headers": "*,authorization",
        "access-control-max-age": "600",
    }


def expected_response_headers(origin: str) -> dict[str, str]:
    """What API Gateway adds to the function's answer to an allowed origin (the session id is readable)."""
    return {"access-control-allow-origin": origin, "access-control-expose-headers": "mcp-session-id"}
