"""A small client for the Doubao platform OpenAPI, on the machinery of `ctx.http` (mcp_lambda/downstream):
deadline-capped timeouts, bounded retries with backoff and jitter, the host's circuit breaker, one log line per call.

The log line (`platform_api_call`) carries what doubao-protocol.md §5 asks for — interface, HTTP status, business
code, duration, the platform's `log_id`, the number of attempts — and never a header value or a body.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .downstream import (
    IDEMPOTENT_METHODS,
    RETRY_STATUSES,
    DownstreamError,
    DownstreamTimeout,
    DownstreamUnavailable,
    EgressPolicy,
    HttpClient,
    HttpResponse,
)
from .observability import ToolLogger
from .settings import Settings

if TYPE_CHECKING:
    import urllib3

__all__ = [
    "IDEMPOTENT_METHODS",
    "RETRY_STATUSES",
    "PlatformApiClient",
    "PlatformApiError",
    "PlatformApiTimeout",
    "PlatformApiUnavailable",
    "PlatformResponse",
    "base_url_of",
    "platform_egress",
]


@dataclass(frozen=True)
class PlatformResponse:
    status: int
    body: Any
    business_code: int | str | None
    log_id: str | None

    @property
    def data(self) -> Any:
        return self.body.get("data") if isinstance(self.body, dict) else None


class PlatformApiError(DownstreamError):
    """The call failed: unreachable, timed out, a non-2xx status, or a non-zero business code."""

    def __init__(
        self,
        interface: str,
        reason: str,
        *,
        status: int | None = None,
        business_code: int | str | None = None,
        log_id: str | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(
            f"platform API '{interface}' failed: {reason}",
            interface=interface,
            status=status,
            business_code=business_code,
            log_id=log_id,
            retry_after_ms=retry_after_ms,
        )
        self.reason = reason


class PlatformApiUnavailable(PlatformApiError, DownstreamUnavailable):
    """Unreachable, a 5xx after the retries, or its circuit is open (a tool that lets it go gets 50300)."""


class PlatformApiTimeout(PlatformApiError, DownstreamTimeout):
    """No complete answer in time (a tool that lets it go gets 50400)."""


class PlatformApiClient:
    def __init__(
        self,
        base_url: str,
        logger: ToolLogger,
        *,
        timeout_seconds: float = 3.0,
        max_attempts: int = 3,
        backoff_seconds: float = 0.2,
        pool: urllib3.PoolManager | None = None,
        http: HttpClient | None = None,
    ) -> None:
        self.base_url = base_url_of(base_url)
        self.logger = logger
        # Its own client reaches the platform alone; a shared one (`ctx.http`'s) declares it (`platform_egress`).
        self.http = http or HttpClient(
            logger,
            timeout_seconds=timeout_seconds,
            max_attempts=max_attempts,
            backoff_seconds=backoff_seconds,
            pool=pool,
            egress=EgressPolicy([self.base_url]),
        )

    @property
    def max_attempts(self) -> int:
        return self.http.max_attempts

    @classmethod
    def from_settings(
        cls, settings: Settings, logger: ToolLogger, http: HttpClient | None = None
    ) -> PlatformApiClient | None:
        """A client for `DOUBAO_OPENAPI_BASE_DOMAIN` (sharing `http`'s pools and circuits), or None."""
        if not settings.doubao_openapi_base_domain:
            return None
        return cls(settings.doubao_openapi_base_domain, logger, http=http)

    def call(
        self,
        interface: str,
        path: str,
        *,
        method: str = "POST",
        json_body: Any = None,
        query: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool | None = None,
    ) -> PlatformResponse:
        """Call `path` and return the parsed response; raise PlatformApiError unless HTTP 2xx and code 0.

        Retries (at most `max_attempts` in all, with backoff) on 429/5xx and on network errors only when the
        call is idempotent — by method, unless `idempotent` says otherwise. A connection that could not be
        opened is retried for every call: the request never left.
        """
        url = urllib.parse.urljoin(self.base_url.rstrip("/") + "/", path.lstrip("/"))
        try:
            answer = self.http.request(
                method,
                url,
                interface=interface,
                json_body=json_body,
                params=query,
                headers=headers,
                idempotent=idempotent,
                log_event="platform_api_call",
                failure_of=_problem,
            )
        except DownstreamError as exc:
            kind = PlatformApiTimeout if isinstance(exc, DownstreamTimeout) else PlatformApiUnavailable
            raise kind(
                interface,
                f"HTTP {exc.status}" if exc.status else str(exc),
                status=exc.status,
                business_code=exc.business_code,
                log_id=exc.log_id,
                retry_after_ms=exc.retry_after_ms,
            ) from None
        problem = _problem(answer)
        if problem is not None:
            raise PlatformApiError(
                interface,
                problem,
                status=answer.status,
                business_code=answer.business_code,
                log_id=answer.log_id,
            )
        return PlatformResponse(answer.status, answer.body, answer.business_code, answer.log_id)


def base_url_of(domain: str) -> str:
    """The platform's base URL: `domain` itself when it has a scheme, else https."""
    return domain if "://" in domain else f"https://{domain}"


def platform_egress(settings: Settings) -> list[str]:
    """What the framework declares for the platform client: `DOUBAO_OPENAPI_BASE_DOMAIN`'s URL, when set."""
    domain = settings.doubao_openapi_base_domain
    return [base_url_of(domain)] if domain else []


def _problem(answer: HttpResponse) -> str | None:
    if not answer.ok:
        return f"HTTP {answer.status}"
    if answer.business_code not in (None, 0, "0"):
        return "business error"
    return None
