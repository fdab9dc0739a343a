"""Exactly-once tool calls: a retried `tools/call` with the same key gets the first call's result.

Built on Powertools Idempotency (`IdempotencyHandler`, `DynamoDBPersistenceLayer`, and an in-memory
`BasePersistenceLayer` for the embedded default), so the semantics are Powertools': a conditional write claims the
key, the final result completes it, a failure deletes the claim, a claim left by a crashed invocation expires with
that invocation. Powertools and boto3 are imported on the first call that needs the store, not at cold start.
"""

from __future__ import annotations

from .calls import STORED_OUTCOMES, Caller, ExactlyOnce
from .stores import DynamoDBIdempotencyStore, IdempotencyStore, MemoryIdempotencyStore

__all__ = [
    "STORED_OUTCOMES",
    "Caller",
    "DynamoDBIdempotencyStore",
    "ExactlyOnce",
    "IdempotencyStore",
    "MemoryIdempotencyStore",
]
