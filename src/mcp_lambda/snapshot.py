"""Lambda SnapStart (template parameter `SnapStart=true`): the runtime hooks around the snapshot.

Lambda initializes a published version once, snapshots the initialized environment (memory and disk) and resumes
every new environment of that version from the snapshot instead of initializing it again.

- Before the snapshot, once per version: the expensive start-up work, so no restored environment repeats it.
  Importing the code, building the app, binding the manifest and compiling the argument validators is what the
  handler module does anyway; this hook then serves a stateless `server/discover` and `tools/list` in process
  (the first request's lazy imports and caches), builds the FastAPI app with one request to a path only it serves
  (`/`, a 404: the Lambda handler answers /mcp without it, so a container builds it on first use), loads what only
  some requests load on first use (the tasks extension's modules, the Task, StoredCaller and legacy Session validators, the tools' argument validators
  where `make build` compiled their schemas), and, when the settings use an AWS service, imports boto3 and loads
  those services' API models.
- After the restore, in each environment before its first request: renew what must not be shared between
  environments resumed from one snapshot. `random` is reseeded (os.urandom and `secrets`, which mint session ids,
  task ids and error ids, are fresh per environment already); boto3 gets a new default session (credentials
  resolved in this environment; the loaded models are kept); every AWS client, cached secret value and outbound
  connection pool the framework made is forgotten (`restore.py`) and made again on first use.

`snapshot_restore_py` exists only in the Lambda runtime (Python 3.12+): elsewhere nothing is registered.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from . import restore
from .protocol.framing import modern_request
from .settings import Settings, get_settings

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
_LOADED: list[Any] = []  # the botocore session whose parsed API models every later session reuses


def register(handler: Handler, settings: Settings | None = None) -> bool:
    """Register the hooks with the Lambda runtime; False where there is no runtime to register with."""
    try:
        from snapshot_restore_py import (
            register_after_restore,
            register_before_snapshot,
        )
    except ImportError:  # not in Lambda (or a runtime before 3.12): no snapshot will ever be taken
        return False
    register_before_snapshot(before_snapshot, handler, settings)
    register_after_restore(after_restore)
    return True


def before_snapshot(handler: Handler, settings: Settings | None = None) -> None:
    """Do once, before the snapshot, what every restored environment would otherwise do on its first request."""
    for method in ("server/discover", "tools/list"):
        response = handler(warm_up_event(method), _SnapshotContext())
        if response.get("statusCode") != 200:
            raise RuntimeError(f"SnapStart warm-up: {method} answered {response.get('statusCode')}")
    response = handler(app_warm_up_event(), _SnapshotContext())
    if response.get("statusCode") != 404:
        raise RuntimeError(f"SnapStart warm-up: GET / answered {response.get('statusCode')}")
    load_on_first_use_parts()
    services = aws_services(settings or get_settings())
    if services:
        _load_models(services)


def after_restore() -> None:
    """Renew, in this restored environment, what the snapshot's environment made."""
    random.seed()  # from os.urandom: this environment's own sequence (retry jitter), not the snapshot's
    _renew_boto3_session()
    restore.renew()


def load_on_first_use_parts() -> None:
    """Import and build, once, what a container otherwise loads on the first request that needs it."""
    from .protocol import tasks  # noqa: F401  the tasks extension's methods (TasksOnFirstUse builds them)
    from .stores.sessions import Session
    from .stores.tasks import StoredCaller, Task
    from .tools.schema import build_deferred_models

    for model in (Task, StoredCaller, Session):  # defer_build: their validators are built by the first use
        model.model_rebuild()
    build_deferred_models()  # the tools' argument validators, when make build compiled their schemas


def aws_services(settings: Settings) -> list[str]:
    """The AWS services the settings make the function call."""
    services = set()
    stores = (
        settings.session_store,
        settings.idempotency_store,
        settings.tasks_store,
        settings.protection_store,
    )
    if "dynamodb" in stores:
        services.add("dynamodb")
    if settings.secret_id:
        services.add("secretsmanager")
    if settings.tasks_store == "dynamodb" and settings.aws_lambda_function_name:
        services.add("lambda")  # a task's worker is an asynchronous self-invocation
    return sorted(services)


def app_warm_up_event() -> dict[str, Any]:
    """`GET /` as API Gateway delivers it: a path only the FastAPI app serves (with a 404)."""
    event = warm_up_event("ping")
    event.update(routeKey="GET /", rawPath="/", body=None)
    event["requestContext"]["http"].update(method="GET", path="/")
    return event


def warm_up_event(method: str) -> dict[str, Any]:
    """A stateless 2026-07-28 request as API Gateway (HTTP API, payload 2.0) delivers it."""
    body, headers = modern_request(method, request_id=0)
    return {
        "version": "2.0",
        "routeKey": "POST /mcp",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "requestId": "snapstart-warm-up",
            "stage": "$default",
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }


class _SnapshotContext:
    """The Lambda context of a warm-up request (there is no invocation before the snapshot)."""

    function_name = "snapstart-warm-up"
    aws_request_id = "snapstart-warm-up"

    def get_remaining_time_in_millis(self) -> int:
        return 10_000


def _load_models(services: list[str]) -> None:
    import boto3
    import botocore.session

    session = botocore.session.get_session()
    for service in services:
        session.get_service_model(service)  # parses and caches the API model (no credentials, no connection)
    boto3.setup_default_session(botocore_session=session)
    _LOADED[:] = [session]


def _renew_boto3_session() -> None:
    import sys

    boto3 = sys.modules.get("boto3")
    if boto3 is None or boto3.DEFAULT_SESSION is None:
        return  # boto3 was never used before the snapshot: nothing of it to renew
    import botocore.session

    session = botocore.session.get_session()
    if _LOADED:  # the parsed models stay; credentials (and everything else) are resolved anew
        session.register_component("data_loader", _LOADED[0].get_component("data_loader"))
    boto3.setup_default_session(botocore_session=session)
