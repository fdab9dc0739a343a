"""Exactly-once records in DynamoDB: Powertools' DynamoDB layer on the function's idempotency table.

Importing this module costs nothing: Powertools' layer (and boto3) are imported by the first keyed call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...aws import AwsBudget, BudgetedClient
from ..table import DeadlineBoundClient
from .base import EXPIRY_ATTRIBUTE, PARTITION_KEY, Layers

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
    from mypy_boto3_dynamodb.client import DynamoDBClient

    from .. import StoreConfig
else:
    BasePersistenceLayer = Any
    DynamoDBClient = Any


class DynamoDBIdempotencyStore(BudgetedClient):
    """Powertools' DynamoDB layer on one table shared by every container of the function.

    The layer calls the client itself, through a `DeadlineBoundClient`: each call is held to the function's AWS
    budget and never outlives the request deadline (a failure reaches `ExactlyOnce` wrapped by Powertools).
    """

    aws_service = "dynamodb"

    def __init__(
        self, table_name: str, *, client: DynamoDBClient | None = None, budget: AwsBudget | None = None
    ) -> None:
        self.table_name = table_name
        self._layers = Layers()
        # Made on first use: a container that never serves a keyed call never pays for boto3.
        self._own_client(client, budget)

    def forget_client(self) -> None:
        """After a SnapStart restore: the next call makes a client (and Powertools layers on it) of its own."""
        super().forget_client()
        self._layers = Layers()

    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        return self._layers.get(
            expires_after_seconds,
            lambda: DynamoDBPersistenceLayer(
                table_name=self.table_name,
                key_attr=PARTITION_KEY,
                expiry_attr=EXPIRY_ATTRIBUTE,
                boto3_client=DeadlineBoundClient(self.client, self.budget),
            ),
        )


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("exactly_once", settings)`)."""
    return DynamoDBIdempotencyStore(config.settings.table_of(config.kind), budget=config.budget)
