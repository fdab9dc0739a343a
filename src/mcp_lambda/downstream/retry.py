"""urllib3's Retry with full-jitter exponential backoff, which never retries or sleeps past the request deadline.

Imported on the first outbound call only (urllib3 costs cold-start time a container that never calls out saves).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from urllib3 import Retry

from ..deadlines import NO_DEADLINE, Deadline


@dataclass
class AttemptCounter:
    """Failed attempts of one call, shared by the chain of Retry copies urllib3 makes (one per attempt)."""

    failed: int = 0


class DeadlineRetry(Retry):
    deadline: Deadline = NO_DEADLINE
    counter: AttemptCounter

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.counter = AttemptCounter()

    def new(self, **kw: Any) -> DeadlineRetry:
        retry = super().new(**kw)
        retry.deadline, retry.counter = self.deadline, self.counter
        return retry

    def increment(self, *args: Any, **kwargs: Any) -> DeadlineRetry:
        self.counter.failed += 1  # called once for every attempt that did not succeed, whatever happens next
        return super().increment(*args, **kwargs)

    def is_exhausted(self) -> bool:
        return bool(super().is_exhausted()) or self.deadline.expired

    def get_backoff_time(self) -> float:
        # Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): uniform in [0, factor * 2**n).
        retries = len(self.history)
        if retries == 0 or self.backoff_factor <= 0:
            return 0.0
        ceiling = min(self.backoff_max, self.backoff_factor * 2 ** (retries - 1))
        return self.deadline.cap(random.uniform(0, ceiling))
