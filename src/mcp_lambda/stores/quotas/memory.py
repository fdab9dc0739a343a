"""The quota counters in this process: `make run`'s default and the unit tests'."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .. import StoreConfig


class MemoryQuotaStore:
    """The counters in this process (`make run`, tests): the same semantics as the shared table, expiry included.

    Args:
        clock: Epoch seconds now (default `time.time`); counters past their expiry are forgotten.
    """

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or _now
        self._counts: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()
        self._prune_at = 0.0

    def hit(self, key: str, limit: int, expires_at: int) -> bool:
        now = self._clock()
        with self._lock:
            if now >= self._prune_at:  # at most once a minute: drop every expired counter
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
                self._prune_at = now + 60
            count, expiry = self._counts.get(key, (0, expires_at))
            if expiry <= now:
                count = 0
            if count >= limit:
                return False
            self._counts[key] = (count + 1, max(expiry, expires_at))
            return True


def _now() -> float:
    return time.time()  # looked up per call, so a test can move this module's clock


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("quotas", settings)`)."""
    return MemoryQuotaStore()
