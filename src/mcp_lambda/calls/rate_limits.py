"""Rate protection for tools declared with `@tool(limits=CallLimits(rate="5/second"))`: per caller principal, per tool, per
container, counted by `limits` (moving window, in memory).

A guard, not the limit: each Lambda container counts only the calls it serves, so N warm containers let up to N
times the rate through, and a new container starts from zero. The global limit is the HTTP API stage's throttling
(`ThrottlingRateLimit` / `ThrottlingBurstLimit` in template.yaml), which every request passes through.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ..errors import ToolFailure
from ..tools.options import parse_rate_limit


class RateLimited(ToolFailure):
    """The caller used up this tool's rate in this container; error result 42900 with `retry_after_ms`."""

    def __init__(self, limit: str, retry_after_ms: int) -> None:
        super().__init__(f"rate limit {limit} reached")
        self.limit = limit
        self.retry_after_ms = retry_after_ms


class RateLimits:
    """The container's counters; created on the first call of a rate-limited tool."""

    def __init__(self) -> None:
        self._limiter: Any = None
        self._items: dict[str, Any] = {}

    def check(self, tool_name: str, rate_limit: str | None, principal: str | None) -> None:
        """Count one call of the tool by `principal`; raise RateLimited when it is over the tool's rate."""
        if rate_limit is None:
            return
        item = self._items.get(tool_name)
        if item is None:
            item = self._items[tool_name] = parse_rate_limit(rate_limit)
        if self._limiter is None:
            from limits.storage import MemoryStorage
            from limits.strategies import MovingWindowRateLimiter

            self._limiter = MovingWindowRateLimiter(MemoryStorage())
        keys = (principal or "anonymous", tool_name)
        if not self._limiter.hit(item, *keys):
            reset_at = self._limiter.get_window_stats(item, *keys).reset_time
            retry_after_ms = max(1, math.ceil((reset_at - time.time()) * 1000))
            raise RateLimited(rate_limit, retry_after_ms)
