"""The ASGI app as a Lambda handler: Mangum for API Gateway HTTP API events, plus the one fix-up it needs, and
the task worker for the internal event a task's asynchronous self-invocation carries (recognised first)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from mangum import Mangum

from .tasks import parse_task_event

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def lambda_handler(app: FastAPI) -> LambdaHandler:
    asgi = Mangum(app, lifespan="off", api_gateway_base_path="/")

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        job = parse_task_event(event)
        if job is not None:
            task_id, run = job
            outcome: dict[str, Any] = app.state.run_task(
                task_id, run, getattr(context, "aws_request_id", None)
            )
            return outcome
        response: dict[str, Any] = asgi(event, context)
        if not response.get("body"):
            # Mangum labels every payload-2.0 response JSON; an empty 202/200 must carry no Content-Type at all.
            (response.get("headers") or {}).pop("content-type", None)
        return response

    return handle
