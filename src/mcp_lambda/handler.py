"""Lambda entry point: Mangum(app). The app is built once per container and reused while warm."""

from __future__ import annotations

from typing import Any

from mangum import Mangum

from .app import create_app

app = create_app()
_asgi_handler = Mangum(app, lifespan="off", api_gateway_base_path="/")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response: dict[str, Any] = _asgi_handler(event, context)
    if not response.get("body"):
        # Mangum labels every payload-2.0 response JSON; an empty 202/200 must carry no Content-Type at all.
        headers = response.get("headers") or {}
        headers.pop("content-type", None)
    return response
