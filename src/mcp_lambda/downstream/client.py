"""HttpClient: one outbound call is deadline-capped attempts on a worker thread, the host's circuit and one log line."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import deadlines, restore, trace_context
from ..observability import ToolLogger
from ..settings import Settings, seconds
from .caller_token import credentials_for
from .egress import Destination, EgressPolicy
from .errors import (
    CircuitOpen,
    DownstreamError,
    DownstreamTimeout,
    DownstreamUnavailable,
    EgressRefused,
    ResponseTooLarge,
)

if TYPE_CHECKING:
    import urllib3
    from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerPersistenceLayer

    from .circuits import HostCircuits
    from .retry import DeadlineRetry

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
LOG_ID_HEADERS = ("x-tt-logid", "x-log-id", "x-request-id")
MAX_DOWNSTREAM_ANSWER_BYTES = 8 * 1024 * 1024  # more than a Lambda response could pass on anyway
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
# Dropped when a redirect leaves the first hop's origin (what urllib3's Retry.remove_headers_on_redirect drops).
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: Mapping[str, str]  # lower-case names
    content: bytes
    body: Any = None  # the content parsed as JSON, or None
    business_code: int | str | None = None
    log_id: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The content as JSON; ValueError when it is not."""
        return json.loads(self.content)


def parse_answer(status: int, headers: Mapping[str, str], content: bytes) -> HttpResponse:
    """An answer with the platform's conventions read out: `code` (or `error_code`, `err_no`), `log_id`."""
    try:
        body: Any = json.loads(content) if content else None
    except ValueError:
        body = None
    code: int | str | None = None
    log_id: str | None = None
    if isinstance(body, dict):
        code = next(
            (body[k] for k in ("code", "error_code", "err_no") if isinstance(body.get(k), int | str)), None
        )
        log_id = next((body[k] for k in ("log_id", "logid", "logId") if isinstance(body.get(k), str)), None)
    if log_id is None:
        log_id = next((str(headers[name]) for name in LOG_ID_HEADERS if headers.get(name)), None)
    return HttpResponse(status, headers, content, body, code, log_id)


class HttpClient:
    """Pooled outbound HTTP with deadline-capped timeouts, bounded retries and a circuit breaker per host.

    Args:
        logger: Where the call lines and circuit transitions go.
        timeout_seconds: Per attempt (capped by the request deadline).
        max_attempts: Attempts in all (idempotent calls; a refused connection for every call).
        backoff_seconds: The backoff factor between attempts (full jitter).
        failure_threshold: Consecutive failures that open a host's circuit.
        reset_seconds: How long an open circuit stays open (rounded up to whole seconds).
        pool: A urllib3 PoolManager to use instead of one made on first use.
        circuit_store: Makes the store of the circuit states on the first call (a fleet-wide one:
            `mcp_lambda.stores.build_store("circuits", ...)`); None keeps them in this client (`MemoryCircuitStore`).
        circuit_scope: The first part of every circuit's name and its metrics' `service`: the business.
        circuit_cache_seconds: How long the last state read from the store is trusted (0: read it every call).
        egress: What the client may reach (`downstream.egress`); by default nothing.
    """

    def __init__(
        self,
        logger: ToolLogger | None = None,
        *,
        timeout_seconds: float = 3.0,
        max_attempts: int = 3,
        backoff_seconds: float = 0.2,
        failure_threshold: int = 5,
        reset_seconds: float = 30.0,
        pool: urllib3.PoolManager | None = None,
        circuit_store: Callable[[], CircuitBreakerPersistenceLayer] | None = None,
        circuit_scope: str = "local",
        circuit_cache_seconds: int = 5,
        egress: EgressPolicy | None = None,
    ) -> None:
        self.logger: ToolLogger = logger or logging.getLogger("mcp_lambda")
        self.timeout_seconds = timeout_seconds
        self.max_attempts = max(1, max_attempts)
        self.backoff_seconds = backoff_seconds
        self.failure_threshold = failure_threshold
        self.reset_seconds = reset_seconds
        self.circuit_scope = circuit_scope
        self.circuit_cache_seconds = circuit_cache_seconds
        self.egress = egress if egress is not None else EgressPolicy()
        self._pool = pool
        self._circuit_store = circuit_store
        self._circuits: HostCircuits | None = None
        self._lock = threading.Lock()
        if pool is None:
            restore.on_restore(self.forget_connections)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        logger: ToolLogger,
        circuit_store: Callable[[], CircuitBreakerPersistenceLayer] | None = None,
        egress: EgressPolicy | None = None,
    ) -> HttpClient:
        """The client the settings describe; `circuit_store` and `egress` as in the constructor."""
        return cls(
            logger,
            timeout_seconds=settings.http_timeout.total_seconds(),
            max_attempts=settings.http_max_attempts,
            failure_threshold=settings.circuit_failure_threshold,
            reset_seconds=settings.circuit_reset.total_seconds(),
            circuit_store=circuit_store,
            circuit_scope=settings.business,
            circuit_cache_seconds=seconds(settings.circuit_cache),
            egress=egress,
        )

    def on_behalf_of(self, caller_token: str | None) -> CallerHttp:
        """This client as one call's tool sees it (`ctx.http`): the caller's token goes only where it is accepted.

        Args:
            caller_token: The caller's bearer token (None: anonymous, or a task's run).

        Returns:
            A view sharing this client's pools, circuits and declarations.
        """
        return CallerHttp(self, caller_token)

    @property
    def pool(self) -> urllib3.PoolManager:
        if self._pool is None:
            import urllib3  # here, not at module level: a container that never calls out never imports it

            self._pool = urllib3.PoolManager(num_pools=16, maxsize=4)
        return self._pool

    def forget_connections(self) -> None:
        """After a SnapStart restore: no connection opened before the snapshot is reused."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.clear()

    @property
    def circuits(self) -> HostCircuits:
        """The hosts' circuits, made (and Powertools' circuit breaker imported) on first use."""
        with self._lock:
            if self._circuits is None:
                from .circuits import HostCircuits

                if self._circuit_store is None:
                    from ..stores.circuits.memory import MemoryCircuitStore

                    store: CircuitBreakerPersistenceLayer = MemoryCircuitStore()
                else:
                    store = self._circuit_store()
                self._circuits = HostCircuits(
                    store,
                    self.logger,
                    scope=self.circuit_scope,
                    failure_threshold=self.failure_threshold,
                    reset_seconds=self.reset_seconds,
                    cache_seconds=self.circuit_cache_seconds,
                )
            return self._circuits

    def get(self, url: str, **kwargs: Any) -> HttpResponse:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> HttpResponse:
        return self.request("POST", url, **kwargs)

    def request(
        self,
        method: str,
        url: str,
        *,
        interface: str | None = None,
        json_body: Any = None,
        body: bytes | None = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
        timeout_seconds: float | None = None,
        log_event: str = "downstream_call",
        failure_of: Callable[[HttpResponse], str | None] | None = None,
        caller_token: str | None = None,
    ) -> HttpResponse:
        """Send one request, retried as the package docstring says; return any answer below 500.

        `interface` names the call in its log line (default: the method and host). `failure_of` may call an answer a
        failure in the log line (the platform client's non-zero business codes); it changes nothing else.
        `caller_token` is attached only to a downstream declared as accepting it, and a request that carries it
        anywhere else is refused (`on_behalf_of`).

        Raises:
            EgressRefused: A hop's host or address is not declared, or never reached (before any connection).
        """
        method = method.upper()
        split = urllib.parse.urlsplit(url)
        host = _origin(split)
        log = _CallLog(
            self.logger, log_event, interface or f"{method} {split.netloc.rpartition('@')[2]}", host, method
        )
        if params:
            url = f"{url}{'&' if split.query else '?'}{urllib.parse.urlencode(params)}"
        data = body if json_body is None else json.dumps(json_body, ensure_ascii=False).encode("utf-8")
        all_headers = {"accept": "application/json", **(headers or {})}
        if json_body is not None:
            all_headers.setdefault("content-type", "application/json; charset=utf-8")
        try:
            first = self.egress.destination(url)
            all_headers = credentials_for(first, all_headers, data, caller_token)
        except EgressRefused as refused:
            log.refused(refused)
            raise
        trace = trace_context.current()
        # A new span of the caller's trace per call (SEP-2028); a tool that sets its own traceparent keeps it.
        if trace is not None and not any(name.lower() == "traceparent" for name in all_headers):
            all_headers.update(trace.child().headers())
        deadline = deadlines.current()
        if deadline.expired:  # before the circuit: a call never made is no failure of the host
            log.done(0, error="DeadlineExceeded")
            raise DownstreamTimeout("the request deadline has passed", interface=log.interface)
        attempt = _Attempt(
            method,
            first,
            data,
            all_headers,
            deadline.cap(timeout_seconds or self.timeout_seconds),
            caller_token,
        )
        retry = self._retry(method, idempotent, deadline)
        try:
            answer: HttpResponse = self.circuits.call(host, self._attempts, attempt, retry, deadline)
        except CircuitOpen as refused:
            refused.interface = log.interface
            log.done(0, error="CircuitOpen")
            raise
        except EgressRefused as refused:  # a redirect or a DNS answer: never retried, not the host's failure
            refused.interface = log.interface
            log.refused(refused)
            raise
        except DownstreamError as failure:
            failure.interface = log.interface
            error = f"HTTP {failure.status}" if failure.status else str(failure)
            log.done(max(attempt.attempts, retry.counter.failed), attempt.answer, error=error)
            raise
        log.done(
            max(attempt.attempts, retry.counter.failed),
            answer,
            error=failure_of(answer) if failure_of else None,
        )
        return answer

    def _attempts(
        self, attempt: _Attempt, retry: DeadlineRetry, deadline: deadlines.Deadline
    ) -> HttpResponse:
        """The call inside the host's circuit: any answer below 500, else the failure the circuit counts."""
        try:
            answer = deadlines.call_within(  # stops waiting when the client cancels the call
                deadline.cap(self._wait_seconds(attempt.timeout)), self._send, attempt, retry
            )
        except TimeoutError:
            raise DownstreamTimeout("no complete answer in time") from None
        attempt.answer = answer
        if answer.status >= 500:
            raise DownstreamUnavailable(
                f"HTTP {answer.status}",
                status=answer.status,
                business_code=answer.business_code,
                log_id=answer.log_id,
            )
        return answer

    def _send(self, attempt: _Attempt, retry: DeadlineRetry) -> HttpResponse:
        """All hops and attempts of one call (urllib3 retries each hop), on a worker thread.

        Each hop connects to the address `EgressPolicy.resolve` checked; a redirect is followed only to a hop that
        passes the same checks, without the credentials of the first origin when it leaves it.
        """
        from urllib3.exceptions import HTTPError

        destination, method, data, headers = (
            attempt.destination,
            attempt.method,
            attempt.data,
            attempt.headers,
        )
        for hop in range(MAX_REDIRECTS + 1):
            raw = self._hop(destination, method, data, headers, attempt, retry)
            location = raw.headers.get("location")
            if raw.status not in REDIRECT_STATUSES or not location or hop == MAX_REDIRECTS:
                break
            raw.drain_conn()
            raw.release_conn()
            next_hop = self.egress.destination(urllib.parse.urljoin(destination.url, location))
            if raw.status == 303 or (raw.status in (301, 302) and method == "POST"):
                method, data = ("HEAD" if method == "HEAD" else "GET"), None
                headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
            if next_hop.origin != destination.origin:
                kept = {k: v for k, v in headers.items() if k.lower() not in CREDENTIAL_HEADERS}
                headers = credentials_for(next_hop, kept, data, attempt.caller_token)
            destination = next_hop
        try:
            content = raw.read(MAX_DOWNSTREAM_ANSWER_BYTES + 1)
        except HTTPError as exc:  # the body broke off or stalled
            raise _no_answer(exc) from None
        finally:
            raw.release_conn()
        if len(content) > MAX_DOWNSTREAM_ANSWER_BYTES:
            raise ResponseTooLarge(
                f"the answer exceeds {MAX_DOWNSTREAM_ANSWER_BYTES} bytes", status=raw.status
            )
        return parse_answer(raw.status, {k.lower(): v for k, v in raw.headers.items()}, content)

    def _hop(
        self,
        destination: Destination,
        method: str,
        data: bytes | None,
        headers: Mapping[str, str],
        attempt: _Attempt,
        retry: DeadlineRetry,
    ) -> Any:
        """One hop: resolve once, check, and send to the checked address (urllib3 retries it there)."""
        import urllib3
        from urllib3.exceptions import HTTPError, MaxRetryError

        try:
            address = self.egress.resolve(destination)
        except OSError as exc:  # the name does not resolve: nothing was sent
            raise DownstreamUnavailable(type(exc).__name__) from None
        tls = {"server_hostname": destination.host, "assert_hostname": destination.host}
        pool = self.pool.connection_from_host(
            address,
            destination.port,
            destination.scheme,
            pool_kwargs=tls if destination.address is None else None,
        )
        try:
            raw = pool.urlopen(
                method,
                destination.target,
                body=data,
                headers={**headers, "host": destination.host_header},
                timeout=urllib3.Timeout(connect=attempt.timeout, read=attempt.timeout),
                retries=retry,
                redirect=False,
                assert_same_host=False,
                preload_content=False,
            )
        except MaxRetryError as exc:  # every attempt failed without an answer
            raise _no_answer(exc.reason or exc) from None
        except HTTPError as exc:  # a failure that may not be retried (the request may have been sent)
            raise _no_answer(exc) from None
        attempt.attempts += len(raw.retries.history) + 1 if raw.retries is not None else 1
        return raw

    def _retry(self, method: str, idempotent: bool | None, deadline: deadlines.Deadline) -> DeadlineRetry:
        from .retry import DeadlineRetry

        common: dict[str, Any] = {
            "total": self.max_attempts - 1,
            "backoff_factor": self.backoff_seconds,
            # A downstream's Retry-After may outlast the whole invocation; our short backoff applies instead.
            "respect_retry_after_header": False,
            "raise_on_status": False,  # the last answer is returned, so its status and business code are reported
        }
        if idempotent is False or (idempotent is None and method not in IDEMPOTENT_METHODS):
            # Only what failed before the request left is retried: a refused connection, a failed handshake.
            retry = DeadlineRetry(read=False, status_forcelist=None, **common)
        else:
            retry = DeadlineRetry(allowed_methods=None, status_forcelist=RETRY_STATUSES, **common)
        retry.deadline = deadline
        return retry

    def _wait_seconds(self, per_attempt: float) -> float:
        """The longest one call may take: connect + read per attempt, and the backoff ceilings between them."""
        backoff = sum(self.backoff_seconds * 2**i for i in range(self.max_attempts - 1))
        return self.max_attempts * 2 * per_attempt + backoff


@dataclass
class _Attempt:
    method: str
    destination: Destination
    data: bytes | None
    headers: dict[str, str]
    timeout: float
    caller_token: str | None = None
    attempts: int = 0  # set once an answer arrived: how many attempts it took
    answer: HttpResponse | None = None  # the last answer (a 5xx one is reported in the failure's log line)


class _CallLog:
    """The one log line of an outbound call."""

    def __init__(self, logger: ToolLogger, event: str, interface: str, host: str, method: str) -> None:
        self.logger, self.event, self.interface, self.host, self.method = (
            logger,
            event,
            interface,
            host,
            method,
        )
        self.started = time.perf_counter()

    def done(self, attempts: int, answer: HttpResponse | None = None, error: str | None = None) -> None:
        fields: dict[str, Any] = {
            "event": self.event,
            "interface": self.interface,
            "host": self.host,
            "method": self.method,
            "http_status": answer.status if answer else None,
            "business_code": answer.business_code if answer else None,
            "duration_ms": round((time.perf_counter() - self.started) * 1000, 3),
            "log_id": answer.log_id if answer else None,
            "attempts": attempts,
        }
        if error is None:
            self.logger.info(self.event, extra=fields)
        else:
            self.logger.warning(self.event, extra={**fields, "error": error})

    def refused(self, refused: EgressRefused) -> None:
        """The call's line when a hop was refused: `downstream_refused`, why, and where (never a path)."""
        self.logger.warning(
            "downstream_refused",
            extra={
                "event": "downstream_refused",
                "interface": self.interface,
                "host": self.host,
                "method": self.method,
                "refused": refused.origin,
                "reason": refused.reason,
                "address": refused.address,
                "duration_ms": round((time.perf_counter() - self.started) * 1000, 3),
            },
        )


class CallerHttp:
    """`ctx.http`: an HttpClient as one call's tool uses it, carrying the caller's token for the downstreams
    declared as accepting it (`Egress(..., accepts_caller_token=True)`) and refusing it everywhere else.

    Args:
        client: The container's client (pools, circuits, declarations).
        caller_token: The caller's bearer token; None when anonymous or in a task's run.
    """

    def __init__(self, client: HttpClient, caller_token: str | None) -> None:
        self.client = client
        self._caller_token = caller_token

    def get(self, url: str, **kwargs: Any) -> HttpResponse:
        """`request("GET", url, ...)`."""
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> HttpResponse:
        """`request("POST", url, ...)`."""
        return self.request("POST", url, **kwargs)

    def request(self, method: str, url: str, **kwargs: Any) -> HttpResponse:
        """`HttpClient.request` on behalf of the caller (its keyword arguments but `caller_token`).

        Raises:
            EgressRefused: The host is not declared, its address is never reached or not declared, or the
                caller's token would go to a downstream that does not accept it.
        """
        return self.client.request(method, url, caller_token=self._caller_token, **kwargs)


def _origin(split: urllib.parse.SplitResult) -> str:
    """`scheme://host[:port]` of a URL, without any user or password it carries (a circuit name, a log field)."""
    return f"{split.scheme}://{split.netloc.rpartition('@')[2]}"


def _no_answer(cause: BaseException) -> DownstreamError:
    from urllib3.exceptions import NewConnectionError
    from urllib3.exceptions import TimeoutError as NoAnswerInTime

    # urllib3 files a refused connection (NewConnectionError) under its connect timeouts: it is not one.
    timed_out = isinstance(cause, NoAnswerInTime) and not isinstance(cause, NewConnectionError)
    return (DownstreamTimeout if timed_out else DownstreamUnavailable)(type(cause).__name__)
