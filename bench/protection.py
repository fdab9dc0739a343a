"""`make bench-protection`: what the downstream circuit breaker adds to one outbound call, printed for `make bench`.

One GET through `HttpClient` to the test kit's fake service on 127.0.0.1, in one process: unguarded (the same client
with the circuit bypassed), with the memory store, and with the protection table on DynamoDB Local
(started here, as `make bench` does; BENCH_DYNAMODB_ENDPOINT points at one already running) at the default cache
window and at `CIRCUIT_CACHE_SECONDS=0`. The DynamoDB clients are wired from the settings alone, as a server is.
Prints the median and p99 per call, the ratio of each median to the unguarded one, the circuit alone (µs per
call of a call that does nothing) and the table reads per call.
This is a measurement, not a test: it never fails on a slow figure.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_lambda.downstream import EgressPolicy, HttpClient
from mcp_lambda.settings import Settings
from mcp_lambda.stores import build_store
from mcp_lambda.testing import fake_service
from mcp_lambda_dev import services
from mcp_lambda_dev.aws_counters import DynamoDBCalls

LOGGER = logging.getLogger("bench-protection")
LOOPBACK = EgressPolicy(["127.0.0.1"])  # the fake service, declared as a business declares its downstreams
ROUNDS = 5
WARM_UP = 20
LOCAL_AWS = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def p99(samples: list[float]) -> float:
    return sorted(samples)[max(0, int(len(samples) * 0.99) - 1)]


def timed(call: Callable[[], Any], calls: int) -> list[float]:
    """Per-call latency in µs, after a warm-up (connections, the first state read)."""
    for _ in range(WARM_UP):
        call()
    samples = []
    for _ in range(calls):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    return samples


def _nothing() -> None:
    return None


class PassThrough:
    """Circuits that are none: the call, straight."""

    store = None

    def call(self, host: str, fn: Callable[..., Any], *args: Any) -> Any:
        return fn(*args)


class Unguarded(HttpClient):
    """The same client without a circuit: the baseline."""

    @property
    def circuits(self) -> Any:
        return PassThrough()


@contextlib.contextmanager
def dynamodb_endpoint() -> Iterator[str | None]:
    endpoint = os.environ.get("BENCH_DYNAMODB_ENDPOINT")
    if endpoint:
        yield endpoint
        return
    try:
        local = services.dynamodb_local().start()
    except services.ServiceError as exc:
        print(f"  DynamoDB rows skipped ({exc})")
        yield None
        return
    try:
        yield local.endpoint_url
    finally:
        local.stop()


def client_of(settings: Settings) -> HttpClient:
    return HttpClient.from_settings(
        settings, LOGGER, lambda: build_store("circuits", settings, LOGGER), egress=LOOPBACK
    )


@dataclass
class Case:
    """One row: a client, its samples and, with a table, the table's calls counted from outside the store."""

    name: str
    client: HttpClient
    samples: list[float] = field(default_factory=list)
    table_calls: DynamoDBCalls | None = None

    def run(self, url: str, calls: int) -> None:
        self.samples += timed(lambda: self.client.get(url), calls)

    def guard_us(self, host: str, runs: int = 5000) -> float:
        """The circuit alone: µs per call of a call that does nothing, through the host's circuit."""
        started = time.perf_counter_ns()
        for _ in range(runs):
            self.client.circuits.call(host, _nothing)
        return (time.perf_counter_ns() - started) / 1000 / runs

    def watch_table(self) -> None:
        """Build the circuits and their store (no call yet); count the calls of a store that has a table."""
        # Imported here: it imports boto3, which only a row with a table needs.
        from mcp_lambda.stores.circuits.dynamodb import DynamoDBCircuitStore

        store: Any = self.client.circuits.store
        if isinstance(store, DynamoDBCircuitStore):
            self.table_calls = DynamoDBCalls().watch(store.client)

    def reads(self) -> str:
        if self.table_calls is None:
            return ""
        return f"  table reads/call {self.table_calls.reads / (len(self.samples) + WARM_UP * ROUNDS + 1):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000, help="calls per row")
    calls = parser.parse_args().calls
    LOGGER.setLevel(logging.WARNING)  # the call line costs the same in every row; leave it out
    for name, value in LOCAL_AWS.items():
        os.environ.setdefault(name, value)
    # Every row runs while DynamoDB Local is up (its JVM shares the cores), in rounds taken in turn, so that the
    # machine's drift falls on every row alike.
    with dynamodb_endpoint() as endpoint, fake_service() as service:
        url = f"{service.url}/stock"
        memory = client_of(Settings(business="bench"))
        cases = [
            Case("unguarded", Unguarded.from_settings(Settings(business="bench"), LOGGER, egress=LOOPBACK)),
            Case("memory store", memory),
        ]
        with protection_table(endpoint) as table:
            if table is not None:
                for label, cache in (("DynamoDB Local, cache 5 s", 5), ("DynamoDB Local, cache 0 s", 0)):
                    settings = Settings(
                        business="bench",
                        protection_store="dynamodb",
                        protection_table=table,
                        circuit_cache_seconds=cache,
                    )
                    cases.append(Case(label, client_of(settings)))
            for case in cases:
                case.watch_table()
                case.client.get(url)
            for _ in range(ROUNDS):
                for case in cases:
                    case.run(url, calls // ROUNDS)
            reads = [case.reads() for case in cases]
            # Uncached, each pass is a table read: fewer passes.
            guards = [case.guard_us(service.url, 200 if case.reads() and not case.client.circuit_cache_seconds
                                    else 5000) for case in cases]  # fmt: skip
    baseline = statistics.median(cases[0].samples)
    print(f"Circuit breaker cost per outbound call (GET to a local fake service, {calls} calls each), µs:")
    for case, guard, read in zip(cases, guards, reads, strict=True):
        median = statistics.median(case.samples)
        print(
            f"  {case.name:<28} median {median:>7.0f}  p99 {p99(case.samples):>7.0f}  "
            f"{median / baseline:>5.2f}x  circuit alone {guard:>6.1f}{read}"
        )


@contextlib.contextmanager
def protection_table(endpoint: str | None) -> Iterator[str | None]:
    """A fresh protection table on `endpoint` (None: no DynamoDB, no table), deleted afterwards."""
    if endpoint is None:
        yield None
        return
    import boto3

    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint  # as `make run` would be pointed at it
    table = f"bench-protection-{uuid.uuid4().hex[:8]}"
    admin = boto3.client("dynamodb", endpoint_url=endpoint)
    services.create_protection_table(admin, table)
    try:
        yield table
    finally:
        admin.delete_table(TableName=table)


if __name__ == "__main__":
    main()
