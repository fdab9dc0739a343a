"""AWS calls of the function: one budget (timeouts, attempts, the request deadline) and one DynamoDB table base.

`budget` holds `AwsBudget`, `BudgetedClient` and the failure vocabulary (`failure_reason`, `THROTTLE_CODES`,
`AwsCallTimedOut`); `table` holds `DynamoDBTable`, the base of the session and task stores, and
`DeadlineBoundClient`, the same deadline for a client a library (Powertools) calls itself. botocore is imported
on first use, not here.
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
from .table import DeadlineBoundClient, DynamoDBTable

__all__ = [
    "MAX_BACKOFF_SECONDS",
    "THROTTLE_CODES",
    "AwsBudget",
    "AwsCallTimedOut",
    "BudgetedClient",
    "DeadlineBoundClient",
    "DynamoDBTable",
    "client_config",
    "failure_reason",
]
