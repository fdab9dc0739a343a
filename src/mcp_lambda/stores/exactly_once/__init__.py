"""Where exactly-once records live: the `IdempotencyStore` contract and its memory and DynamoDB backends.

The runner that gives a retried `tools/call` the first call's result is `mcp_lambda.calls.exactly_once`.
"""

from __future__ import annotations

from .base import IdempotencyStore
from .dynamodb import DynamoDBIdempotencyStore
from .memory import MemoryIdempotencyStore

__all__ = ["DynamoDBIdempotencyStore", "IdempotencyStore", "MemoryIdempotencyStore"]
