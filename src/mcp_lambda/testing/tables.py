"""A business's own DynamoDB table in its tests: the table its `stack.yaml` declares, made on DynamoDB Local.

    with business_table("shop", "ShopReservationsTable") as table:
        monkeypatch.setenv("SHOP_RESERVATIONS_TABLE", table.name)
        for name, value in table.environment.items():
            monkeypatch.setenv(name, value)

The table gets the fragment's key schema, attributes and indexes under a fresh name, and is deleted afterwards.
DynamoDB Local is the one `AWS_ENDPOINT_URL_DYNAMODB` names, else one this process starts (the jar
`make services-install` installs; `local_services.py`) and stops at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import KitError
from .local_services import dynamodb_local

# boto3 needs a region and credentials even for DynamoDB Local; these never reach AWS.
LOCAL_AWS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}
_STARTED: list[Any] = []
_LOCK = threading.Lock()


@dataclass(frozen=True)
class BusinessTable:
    """A table of the business's stack, on DynamoDB Local.

    Attributes:
        name: The table's name (fresh for each use).
        endpoint_url: DynamoDB Local's URL.
        client: A boto3 DynamoDB client for it (to look at what a tool stored).
        environment: The variables that point boto3 in the code under test at it (endpoint, region, credentials).
    """

    name: str
    endpoint_url: str
    client: Any = field(repr=False)
    environment: dict[str, str] = field(default_factory=dict)


def dynamodb_local_url() -> str:
    """DynamoDB Local's URL: `AWS_ENDPOINT_URL_DYNAMODB`, else one started for this process.

    Returns:
        The endpoint URL.

    Raises:
        KitError: None is configured and none could be started (java, or the jar, is missing).
    """
    given = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
    if given:
        return given
    with _LOCK:
        if not _STARTED:
            try:
                service = dynamodb_local().start()
            except (ImportError, RuntimeError) as exc:
                raise KitError(
                    f"no DynamoDB Local: set AWS_ENDPOINT_URL_DYNAMODB or run make services-install ({exc})"
                ) from None
            atexit.register(service.stop)
            _STARTED.append(service)
        return str(_STARTED[0].endpoint_url)


def table_definition(business: str, resource: str) -> dict[str, Any]:
    """The properties of the table `resource` in the business's `stack.yaml` (its package's folder).

    Args:
        business: The business's package name.
        resource: The table's logical id in its stack.yaml.

    Returns:
        The resource's Properties.

    Raises:
        KitError: The business has no stack.yaml, or no DynamoDB table of that name in it.
    """
    import yaml

    module = importlib.import_module(f"businesses.{business}")
    path = Path(str(module.__file__)).parent / "stack.yaml"
    if not path.is_file():
        raise KitError(f"business '{business}' has no stack.yaml ({path})")

    class Loader(yaml.SafeLoader):
        """Reads the short intrinsics (`!Ref x`) as None: a table's keys never use them."""

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    resources = (yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}).get("Resources") or {}
    table = resources.get(resource) or {}
    if table.get("Type") != "AWS::DynamoDB::Table":
        tables = sorted(
            name for name, entry in resources.items() if entry.get("Type") == "AWS::DynamoDB::Table"
        )
        raise KitError(
            f"{path} has no DynamoDB table {resource!r}; its tables: {', '.join(tables) or 'none'}"
        )
    properties: dict[str, Any] = table.get("Properties") or {}
    return properties


def _create_arguments(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "TableName": name,
        "KeySchema": properties["KeySchema"],
        "AttributeDefinitions": properties["AttributeDefinitions"],
        "BillingMode": "PAY_PER_REQUEST",
    }
    for indexes in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if properties.get(indexes):
            keep = ("IndexName", "KeySchema", "Projection")
            arguments[indexes] = [
                {key: index[key] for key in keep if key in index} for index in properties[indexes]
            ]
    return arguments


@contextlib.contextmanager
def business_table(business: str, resource: str) -> Iterator[BusinessTable]:
    """The table `resource` of the business's stack.yaml, made on DynamoDB Local under a fresh name.

    Args:
        business: The business's package name.
        resource: The table's logical id in its stack.yaml.

    Yields:
        The table; it is deleted on exit.

    Raises:
        KitError: No such table in the stack, or no DynamoDB Local.
    """
    import boto3

    properties = table_definition(business, resource)
    endpoint_url = dynamodb_local_url()
    client = boto3.client(
        "dynamodb",
        endpoint_url=endpoint_url,
        region_name=LOCAL_AWS["AWS_DEFAULT_REGION"],
        aws_access_key_id=LOCAL_AWS["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=LOCAL_AWS["AWS_SECRET_ACCESS_KEY"],
    )
    name = f"{business}-{resource}-{uuid.uuid4().hex[:8]}"
    client.create_table(**_create_arguments(name, properties))
    client.get_waiter("table_exists").wait(TableName=name)
    try:
        yield BusinessTable(
            name, endpoint_url, client, {**LOCAL_AWS, "AWS_ENDPOINT_URL_DYNAMODB": endpoint_url}
        )
    finally:
        with contextlib.suppress(Exception):  # the server may be gone already (a test stopped it)
            client.delete_table(TableName=name)
