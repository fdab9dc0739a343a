"""One place for every AWS client's timeouts and retry budget: sessions, secrets, idempotency, tasks, invoker.

Per attempt `AWS_CONNECT_TIMEOUT_MS` + `AWS_READ_TIMEOUT_MS`, `AWS_MAX_ATTEMPTS` attempts in all (botocore's
standard retry mode, backoff with jitter). The whole budget is held to half the request's (`REQUEST_DEADLINE_MS`
less `DEADLINE_MARGIN_MS`), scaled down evenly when it would not fit, so that a caller still has time to answer
with its own error (503 + Retry-After, 50020) before the deadline. `AwsBudget.call` also waits at most until the
current request deadline, on a worker thread: a trickling answer resets botocore's read timeout with every byte
and could otherwise hold the request as long as it likes. An attempt is never started after the deadline, nor
after `AwsBudget.call` gave its call up: botocore's retry would otherwise land, unobserved, a write the caller
already answered as failed (an exactly-once claim left in progress, a session touched).

`client_config(settings)` is what a client built elsewhere takes (e.g. Powertools' `boto_config=`).
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .. import deadlines, restore
from ..errors import McpLambdaError
from ..settings import Settings
from ..workers import call_within

if TYPE_CHECKING:
    from botocore.config import Config

T = TypeVar("T")
MAX_BACKOFF_SECONDS = 20  # botocore's cap on one retry delay
# Set by `AwsBudget.call` for the call it runs (the worker thread runs it in a copy of this context): set when the
# caller gives the call up, after which `_refuse_after_deadline` lets no further attempt start.
_GIVEN_UP: ContextVar[threading.Event | None] = ContextVar("aws_call_given_up", default=None)


# DynamoDB's answers that mean "too many requests now": a retry may come sooner than after other failures.
THROTTLE_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)


def failure_reason(exc: BaseException) -> str:
    """What an AWS call's failure was, naming nothing of the request: a ClientError's error code ("Unknown" when
    it carries none), else the exception's class name (a BotoCoreError, AwsCallTimedOut)."""
    from botocore.exceptions import ClientError  # on a failure only: start-up never imports botocore here

    if isinstance(exc, ClientError):
        return str(exc.response.get("Error", {}).get("Code", "Unknown"))
    return type(exc).__name__


class AwsCallTimedOut(McpLambdaError):
    """An AWS call got no complete answer within its budget or before the request deadline."""


@dataclass(frozen=True)
class AwsBudget:
    connect_seconds: float = 1.0
    read_seconds: float = 2.0
    max_attempts: int = 2
    # The longest any one call is waited for (all attempts, with their backoff).
    wait_seconds: float = 7.0

    @classmethod
    def from_settings(cls, settings: Settings) -> AwsBudget:
        connect = settings.aws_connect_timeout.total_seconds()
        read = settings.aws_read_timeout.total_seconds()
        attempts = settings.aws_max_attempts
        allowed = (settings.request_deadline - settings.deadline_margin).total_seconds() / 2
        if attempts * (connect + read) > allowed:
            scale = allowed / (attempts * (connect + read))
            connect, read = connect * scale, read * scale
        # Throttling backs off longest: up to 1 s, 2 s, 4 s ... before the retries (rand(0,1) * 2**i).
        backoff = sum(min(2**i, MAX_BACKOFF_SECONDS) for i in range(attempts - 1))
        wait = min(attempts * (connect + read) + backoff, allowed)
        return cls(connect, read, attempts, wait)

    def config(self) -> Config:
        from botocore.config import Config

        return Config(
            connect_timeout=self.connect_seconds,
            read_timeout=self.read_seconds,
            retries={"mode": "standard", "total_max_attempts": self.max_attempts},
            tcp_keepalive=True,
        )

    def client(self, service: str, **kwargs: Any) -> Any:
        """A boto3 client with this budget that never starts an attempt after the request deadline."""
        import boto3

        client = boto3.client(service, config=self.config(), **kwargs)
        client.meta.events.register("before-send", _refuse_after_deadline)
        return client

    def call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """`fn(*args, **kwargs)` waited for at most `wait_seconds` and never past the request deadline."""
        timeout = deadlines.current().cap(self.wait_seconds)
        given_up = threading.Event()
        token = _GIVEN_UP.set(given_up)
        try:
            return call_within(timeout, fn, *args, **kwargs)
        except TimeoutError:
            given_up.set()  # the attempt in flight may still finish; no other one starts
            raise AwsCallTimedOut(f"no answer within {timeout:.3f} s") from None
        finally:
            _GIVEN_UP.reset(token)


class BudgetedClient:
    """Mixin for a component that owns one boto3 client of `aws_service` with its `budget`.

    The client is made on first use (a container that never needs it never pays for boto3) and forgotten after a
    SnapStart restore, so the restored environment makes its own; a client given by the caller is kept.
    """

    aws_service: ClassVar[str]
    budget: AwsBudget
    _client: Any

    def _own_client(self, client: Any, budget: AwsBudget | None) -> None:
        self.budget = budget or AwsBudget()
        self._client = client
        if client is None:
            restore.on_restore(self.forget_client)

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self.budget.client(self.aws_service)
        return self._client

    def forget_client(self) -> None:
        """After a SnapStart restore: the next call makes a client of this environment's own."""
        self._client = None


def client_config(settings: Settings) -> Config:
    """The botocore Config (timeouts, attempts) every AWS client of this function uses."""
    return AwsBudget.from_settings(settings).config()


def _refuse_after_deadline(**_: Any) -> None:
    # botocore emits before-send before every attempt; raising here ends the call (retries included).
    if deadlines.current().expired:
        raise AwsCallTimedOut("the request deadline has passed")
    given_up = _GIVEN_UP.get()
    if given_up is not None and given_up.is_set():
        raise AwsCallTimedOut("the caller gave the call up")
