"""Lambda entry point: Mangum(app) wrapped by Powertools decorators. Built once per container, reused while warm."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from .app import create_app
from .lambda_adapter import lambda_handler
from .observability import get_metrics

app = create_app()
logger: Logger = app.state.logger
metrics = get_metrics(logger.service)
_asgi_handler = lambda_handler(app)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
# Powertools prints the ColdStart record even with POWERTOOLS_METRICS_DISABLED (make run sets it): ask first.
@metrics.log_metrics(capture_cold_start_metric=not is_metrics_disabled())
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _asgi_handler(event, context)
