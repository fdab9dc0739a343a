"""The quota store's contract: one atomic, bounded count per call (`QuotaStore.hit`)."""

from __future__ import annotations

from typing import Protocol

from ...errors import StoreUnavailable


class QuotaStoreUnavailable(StoreUnavailable):
    """The quota store is throttled, unreachable or slow: the call is let through (never reaches a client)."""

    default_message = "quota store unavailable"


class QuotaStore(Protocol):
    """Where the counters live: one atomic count per call."""

    def hit(self, key: str, limit: int, expires_at: int) -> bool:
        """Count one call under `key` unless `limit` calls are counted there already.

        Args:
            key: The counter (`quota#<scope>#<tool>#<caller hash>#<window start>`).
            limit: The most calls the counter may hold.
            expires_at: Epoch seconds after which the counter may be forgotten.

        Returns:
            True when the call was counted; False when the counter is full (nothing counted).

        Raises:
            StoreUnavailable: The store cannot answer (the call is then let through).
        """
        ...
