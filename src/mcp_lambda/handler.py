"""Lambda entry point: Mangum(app) behind Powertools' metrics decorator. Built once per container, reused while warm.

The container's parts are `runtime` (`composition.build_runtime`): its app, server, logger and stores.

Every log line carries `correlation_id`, the API Gateway request id (what Powertools' `inject_lambda_context`
with `correlation_paths.API_GATEWAY_HTTP` sets), and none of the Lambda context fields that decorator adds
(`function_name`, `function_arn`, `function_memory_size`, `function_request_id`, `cold_start`): CloudWatch has
them once per invocation already (the log group, the START/REPORT lines), and on every line they were a third of
its bytes. A tool's line can still add them: `ctx.logger.append_keys(...)`.

With SnapStart (template parameter `SnapStart=true`), `snapshot.py`'s hooks run around the snapshot.

Start-up makes many long-lived objects (modules, classes, validators) and almost no garbage, so the cyclic
collector's passes over them during the import would free nothing. The collector is paused from here until the
handler is built, and `gc.freeze()` then moves everything start-up made out of the collector's reach (CPython's
documented pattern for long-lived start-up state): later passes walk only what requests allocate, and the little
start-up garbage is never reclaimed. What it saves: docs/performance.md.
"""

from __future__ import annotations

import gc
from typing import Any

gc.disable()
try:
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    from . import snapshot
    from .composition import build_runtime
    from .lambda_adapter import lambda_handler
    from .observability import get_metrics

    runtime = build_runtime()
    logger = runtime.logger
    metrics = get_metrics(logger.service)
    _asgi_handler = lambda_handler(runtime)
    snapshot.register(_asgi_handler)
finally:  # also when start-up fails (a test that imports a misconfigured handler carries on collecting)
    gc.freeze()
    gc.enable()


def _handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    logger.set_correlation_id(api_gateway_request_id(event))
    return _asgi_handler(event, context)


# Powertools prints the ColdStart record even with POWERTOOLS_METRICS_DISABLED (make run sets it): ask first.
_first_invocation = metrics.log_metrics(capture_cold_start_metric=not is_metrics_disabled())(_handle)
_cold = True


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The Lambda entry point: `event` (an API Gateway HTTP API event, or a task worker's) in, the Lambda result out.

    The first invocation runs under Powertools' `log_metrics` (its ColdStart record). Every invocation ends with
    Powertools' `flush_metrics` when there is something to flush: what business code added with its own
    `Metrics()` (Powertools' instances share one metric set). With nothing to flush, Powertools' decorator would
    only warn "No application metrics to publish", on every invocation.
    """
    global _cold
    if _cold:
        _cold = False
        return _first_invocation(event, context)
    try:
        return _handle(event, context)
    finally:
        if metrics.metric_set:
            metrics.flush_metrics()


def api_gateway_request_id(event: Any) -> str | None:
    """`requestContext.requestId` (Powertools' `correlation_paths.API_GATEWAY_HTTP`), without a JMESPath query."""
    context = event.get("requestContext") if isinstance(event, dict) else None
    value = context.get("requestId") if isinstance(context, dict) else None
    return value if isinstance(value, str) else None
