"""A circuit breaker per downstream host (pybreaker), state per container, each transition logged once.

Imported on the first outbound call only. The outcome of a call is recorded after it, not by running the call
inside `breaker.call()`: pybreaker holds its lock for the whole call, and an abandoned (hung) call would then block
every later call to the same host.
"""

from __future__ import annotations

import math
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pybreaker

from ..observability import ToolLogger


class HostBreakers:
    def __init__(self, logger: ToolLogger, failure_threshold: int, reset_seconds: float) -> None:
        self.logger = logger
        self.failure_threshold = failure_threshold
        self.reset_seconds = reset_seconds
        self._breakers: dict[str, tuple[pybreaker.CircuitBreaker, pybreaker.CircuitMemoryStorage]] = {}
        self._lock = threading.Lock()

    def left_open_ms(self, host: str) -> int | None:
        """How long the host's circuit stays open; None when a call may go out (closed, or a trial is due)."""
        breaker, storage = self._of(host)
        opened_at = storage.opened_at
        if breaker.current_state != pybreaker.STATE_OPEN or opened_at is None:
            return None
        left = (opened_at + timedelta(seconds=self.reset_seconds) - datetime.now(UTC)).total_seconds()
        return max(1, math.ceil(left * 1000)) if left > 0 else None

    def record(self, host: str, failure: BaseException | None) -> None:
        """Count one call's outcome: a failure, or a success (which also closes a half-open circuit)."""
        breaker, _ = self._of(host)

        def outcome() -> None:
            if failure is not None:
                raise failure

        try:
            breaker.call(outcome)
        except pybreaker.CircuitBreakerError:
            pass  # opened meanwhile by another call; this outcome no longer matters
        except BaseException as exc:
            if exc is not failure:
                raise

    def state(self, host: str) -> str:
        return str(self._of(host)[0].current_state)

    def _of(self, host: str) -> tuple[pybreaker.CircuitBreaker, pybreaker.CircuitMemoryStorage]:
        with self._lock:
            found = self._breakers.get(host)
            if found is None:
                storage = pybreaker.CircuitMemoryStorage(pybreaker.STATE_CLOSED)
                breaker = pybreaker.CircuitBreaker(
                    fail_max=self.failure_threshold,
                    reset_timeout=self.reset_seconds,
                    state_storage=storage,
                    listeners=[_TransitionLog(self.logger, host)],
                    throw_new_error_on_trip=False,
                    name=host,
                )
                found = self._breakers[host] = (breaker, storage)
            return found


class _TransitionLog(pybreaker.CircuitBreakerListener):
    def __init__(self, logger: ToolLogger, host: str) -> None:
        self.logger = logger
        self.host = host

    def state_change(self, cb: Any, old_state: Any, new_state: Any) -> None:
        to_state = getattr(new_state, "name", None)
        fields = {
            "event": "downstream_circuit_changed",
            "host": self.host,
            "from_state": getattr(old_state, "name", None),
            "to_state": to_state,
        }
        log = self.logger.warning if to_state == pybreaker.STATE_OPEN else self.logger.info
        log("downstream_circuit_changed", extra=fields)
