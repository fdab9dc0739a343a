"""`HostCircuits`: a circuit per downstream host, driven by Powertools' circuit breaker, in a store of any kind.

Each host's circuit is named `circuit#<scope>#<host>` (the scope is the business: two businesses sharing a table
never share a circuit). In a fleet-wide store (DynamoDB) that name is the item every container reads; in a store
of one process (`MemoryCircuitStore`) the name gets a suffix per `HostCircuits`, because Powertools counts
failures per circuit name process-wide and two clients of one process (tests) must not add up.

The call runs inside the state machine (Powertools holds no lock across it): a closed circuit runs it and counts
its failures (`DownstreamUnavailable`, `DownstreamTimeout`; any answer below 500 is a success), an open one
raises `CircuitOpen` without running it, and after the recovery time one caller of the fleet runs it as the
probe whose outcome closes or reopens the circuit. Each transition is logged once (`downstream_circuit_changed`)
by the container that made it, and an opening or a closing is counted as an EMF metric (`CircuitOpened`,
`CircuitClosed`, dimension `service`).

Imported on the first outbound call only.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.circuit_breaker import (
    CircuitBreakerConfig,
    CircuitInfo,
    CircuitState,
    CircuitTransition,
    circuit_breaker,
)
from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerPersistenceLayer

from ..observability import ToolLogger, write_count_metric
from .errors import CircuitOpen, DownstreamTimeout, DownstreamUnavailable

# What an open circuit's `retry_after_ms` is once its recovery time has passed but another caller holds the probe.
PROBE_RETRY_MS = 1000
# The log's state names (the ones `downstream_circuit_changed` has always carried).
STATE_NAMES = {CircuitState.CLOSED: "closed", CircuitState.OPEN: "open", CircuitState.HALF_OPEN: "half-open"}
# The transitions counted as metrics, by the state reached.
COUNTED = {CircuitState.OPEN: "CircuitOpened", CircuitState.CLOSED: "CircuitClosed"}

_SERIALS = itertools.count(1)


class HostCircuits:
    """The circuits of one HttpClient's hosts.

    Args:
        store: Where the circuit states live: a `MemoryCircuitStore`, or a fleet-wide Powertools persistence layer
            (`mcp_lambda.aws.DynamoDBCircuitStore`).
        logger: Where transitions are logged.
        scope: The first part of each circuit's name and the metrics' `service`: the business.
        failure_threshold: Consecutive failures that open a closed circuit.
        reset_seconds: How long a circuit stays open; rounded up to whole seconds (Powertools counts seconds).
        cache_seconds: How long a container trusts the state it read last before reading the store again (0:
            every call reads it).
    """

    def __init__(
        self,
        store: CircuitBreakerPersistenceLayer,
        logger: ToolLogger,
        *,
        scope: str,
        failure_threshold: int,
        reset_seconds: float,
        cache_seconds: int,
    ) -> None:
        self.store = store
        self.logger = logger
        self.scope = scope
        self.recovery_seconds = max(1, math.ceil(reset_seconds))
        self.config = CircuitBreakerConfig(
            failure_threshold=failure_threshold,
            recovery_timeout=self.recovery_seconds,
            success_threshold=1,  # one trial decides
            handled_exceptions=(DownstreamUnavailable, DownstreamTimeout),
            local_cache_max_age=cache_seconds,
        )
        self._suffix = "" if getattr(store, "fleet_wide", True) else f"#local-{next(_SERIALS)}"
        self._guards: dict[str, Callable[..., Any]] = {}
        self._lock = threading.Lock()

    def name(self, host: str) -> str:
        """The circuit name (the store's item id) of `host`."""
        return f"circuit#{self.scope}#{host}{self._suffix}"

    def call(self, host: str, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` through `host`'s circuit.

        Args:
            host: `scheme://host:port` of the call.
            fn: The call; its `DownstreamUnavailable` and `DownstreamTimeout` count as failures.
            *args: Its arguments.

        Returns:
            What `fn` returns.

        Raises:
            CircuitOpen: The circuit is open: `fn` was not called; `retry_after_ms` is the time it stays open.
        """
        guard = self._guards.get(host)
        if guard is None:
            with self._lock:
                guard = self._guards.get(host) or self._guards.setdefault(host, self._guard(host))
        return guard(fn, *args)

    def state(self, host: str) -> str:
        """`host`'s circuit state as this container sees it now (`closed`, `open`, `half-open`)."""
        return STATE_NAMES[self.store.get_state(self.name(host)).state]

    def _guard(self, host: str) -> Callable[..., Any]:
        def refuse(fn: Any, *args: Any, circuit: CircuitInfo) -> Any:
            raise CircuitOpen(f"circuit open for {host}", retry_after_ms=self._left_open_ms(circuit))

        def transition(change: CircuitTransition) -> None:
            self._transition(host, change)

        protect = circuit_breaker(
            name=self.name(host),
            persistence_store=self.store,
            on_circuit_open=refuse,
            on_transition=transition,
            config=self.config,
        )
        return protect(_run)

    def _left_open_ms(self, circuit: CircuitInfo) -> int:
        if circuit.opened_at is None:
            return PROBE_RETRY_MS
        left = circuit.opened_at + self.recovery_seconds - time.time()
        return max(1, math.ceil(left * 1000)) if left > 0 else PROBE_RETRY_MS

    def _transition(self, host: str, change: CircuitTransition) -> None:
        to_state = STATE_NAMES[change.to_state]
        fields = {
            "event": "downstream_circuit_changed",
            "host": host,
            "from_state": STATE_NAMES[change.from_state],
            "to_state": to_state,
        }
        log = self.logger.warning if change.to_state == CircuitState.OPEN else self.logger.info
        log("downstream_circuit_changed", extra=fields)
        metric = COUNTED.get(change.to_state)
        if metric is not None:
            write_count_metric(metric, self.scope, {"host": host, "from_state": fields["from_state"]})


def _run(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)
