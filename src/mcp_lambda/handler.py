"""Lambda entry point: Mangum(app) wrapped by Powertools decorators. Built once per container, reused while warm."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths
from mangum import Mangum

from .app import create_app
from .observability import get_metrics

app = create_app()
logger: Logger = app.state.logger
metrics = get_metrics(logger.service)
_asgi_handler = Mangum(app, lifespan="off", api_gateway_base_path="/")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics(capture_cold_start_metric=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response: dict[str, Any] = _asgi_handler(event, context)
    if not response.get("body"):
        # Mangum labels every payload-2.0 response JSON; an empty 202/200 must carry no Content-Type at all.
        headers = response.get("headers") or {}
        headers.pop("content-type", None)
    return response
