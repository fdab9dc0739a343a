"""The quota counters in the protection table (`PROTECTION_TABLE`), shared by every container of the business.

One item per caller, tool and window (`id` = `quota#<scope>#<tool>#<caller hash>#<window start>`, beside the
circuit breakers' `circuit#...` items), counted by one conditional UpdateItem per call (`ADD #count :one` while
`#count < :limit`) and deleted by the table's TTL (`expiration`) after its window. One attempt only: a retried ADD
whose first answer was lost would count the call twice, and a failed count lets the call through anyway.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...aws import AwsBudget, failure_reason
from ..table import ConditionFailed, DynamoDBTable
from .base import QuotaStoreUnavailable

if TYPE_CHECKING:
    from .. import StoreConfig

COUNT_ATTRIBUTE = "count"
# The protection table's shape (shared with the circuit states: Powertools' item shape, key `id`).
KEY_ATTRIBUTE = "id"
TTL_ATTRIBUTE = "expiration"


class DynamoDBQuotaStore(DynamoDBTable):
    """Quota counters in a DynamoDB table keyed by the string `id`, with TTL on `expiration`.

    Args:
        table_name: The protection table.
        client: A boto3 DynamoDB client to use instead of one made with `budget` (tests, DynamoDB Local).
        budget: Timeouts and the request deadline; held to one attempt.
    """

    store_name = "quota store"
    unavailable_error = QuotaStoreUnavailable

    def __init__(self, table_name: str, *, client: Any = None, budget: AwsBudget | None = None) -> None:
        budget = budget or AwsBudget()
        one_try = replace(
            budget,
            max_attempts=1,
            wait_seconds=min(budget.wait_seconds, budget.connect_seconds + budget.read_seconds),
        )
        super().__init__(table_name, client=client, budget=one_try)

    def hit(self, key: str, limit: int, expires_at: int) -> bool:
        """Count one call under `key` unless the counter holds `limit` already (see `QuotaStore.hit`).

        Raises:
            QuotaStoreUnavailable: The table failed or did not answer in time.
        """
        try:
            self.call(
                "update_item",
                Key=self.key(key),
                UpdateExpression="ADD #count :one SET #expiration = :expiration",
                ConditionExpression="attribute_not_exists(#count) OR #count < :limit",
                ExpressionAttributeNames={"#count": COUNT_ATTRIBUTE, "#expiration": TTL_ATTRIBUTE},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit)},
                    ":expiration": {"N": str(expires_at)},
                },
            )
        except ConditionFailed:
            return False
        return True

    def failure(self, exc: BaseException, operation: str) -> Exception:
        # Not logged here: the quota check logs the one `quota_store_unavailable` line (and lets the call through).
        return QuotaStoreUnavailable(f"quota store unavailable: {failure_reason(exc)}")


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("quotas", settings)`)."""
    return DynamoDBQuotaStore(config.settings.table_of(config.kind), budget=config.budget)
