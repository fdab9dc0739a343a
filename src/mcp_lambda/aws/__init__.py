"""AWS calls of the function: one budget (timeouts, attempts, the request deadline) for every client.

`budget` holds `AwsBudget`, `BudgetedClient` and the failure vocabulary (`failure_reason`, `THROTTLE_CODES`,
`AwsCallTimedOut`). The DynamoDB table base of the stores is `mcp_lambda.stores.table`. botocore is imported on
first use, not here.
"""

from __future__ import annotations

from .budget import (
    MAX_BACKOFF_SECONDS,
    THROTTLE_CODES,
    AwsBudget,
    AwsCallTimedOut,
    BudgetedClient,
    client_config,
    failure_reason,
)

__all__ = [
    "MAX_BACKOFF_SECONDS",
    "THROTTLE_CODES",
    "AwsBudget",
    "AwsCallTimedOut",
    "BudgetedClient",
    "client_config",
    "failure_reason",
]
