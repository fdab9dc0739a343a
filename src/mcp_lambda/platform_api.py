"""A small client for the Doubao platform OpenAPI: timeouts, bounded retries, one log line per call.

The log line carries what doubao-protocol.md §5 asks for — interface, HTTP status, business code, duration,
the platform's `log_id`, the number of attempts — and never a header value or a body.
"""

# urllib3 (in the package anyway: botocore depends on it) gives pooled connections and `Retry`; a few JSON
# calls do not justify another HTTP client.
from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .observability import ToolLogger
from .settings import Settings

if TYPE_CHECKING:
    import urllib3

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
LOG_ID_HEADERS = ("x-tt-logid", "x-log-id", "x-request-id")


@dataclass(frozen=True)
class PlatformResponse:
    status: int
    body: Any
    business_code: int | str | None
    log_id: str | None

    @property
    def data(self) -> Any:
        return self.body.get("data") if isinstance(self.body, dict) else None


class PlatformApiError(RuntimeError):
    """The call failed: unreachable, timed out, a non-2xx status, or a non-zero business code."""

    def __init__(
        self,
        interface: str,
        reason: str,
        *,
        status: int | None = None,
        business_code: int | str | None = None,
        log_id: str | None = None,
    ) -> None:
        super().__init__(f"platform API '{interface}' failed: {reason}")
        self.interface = interface
        self.reason = reason
        self.status = status
        self.business_code = business_code
        self.log_id = log_id


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
    ) -> None:
        import urllib3  # here, not at module level: only a configured client pays its import at cold start

        self.base_url = base_url if "://" in base_url else f"https://{base_url}"
        self.logger = logger
        self.timeout_seconds = timeout_seconds
        self.max_attempts = max(1, max_attempts)
        self.backoff_seconds = backoff_seconds
        self._pool = pool or urllib3.PoolManager()

    @classmethod
    def from_settings(cls, settings: Settings, logger: ToolLogger) -> PlatformApiClient | None:
        """A client for `DOUBAO_OPENAPI_BASE_DOMAIN`, or None when it is not configured."""
        if not settings.doubao_openapi_base_domain:
            return None
        return cls(settings.doubao_openapi_base_domain, logger)

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
        from urllib3.exceptions import HTTPError, MaxRetryError

        method = method.upper()
        url = urllib.parse.urljoin(self.base_url.rstrip("/") + "/", path.lstrip("/"))
        if query:
            url = f"{url}?{urllib.parse.urlencode(query)}"
        data = None if json_body is None else json.dumps(json_body, ensure_ascii=False).encode("utf-8")
        all_headers = {"accept": "application/json", **(headers or {})}
        if data is not None:
            all_headers.setdefault("content-type", "application/json; charset=utf-8")
        started = time.perf_counter()
        try:
            raw = self._pool.request(
                method,
                url,
                body=data,
                headers=all_headers,
                timeout=self.timeout_seconds,
                retries=self._retry(idempotent),
            )
        except MaxRetryError as exc:  # every attempt failed without an answer
            raise self._unreachable(interface, started, self.max_attempts, exc.reason or exc) from None
        except HTTPError as exc:  # a failure that may not be retried (the request may have been sent)
            raise self._unreachable(interface, started, 1, exc) from None
        response = _parse(raw.status, raw.headers, raw.data)
        attempts = len(raw.retries.history) + 1 if raw.retries is not None else 1
        failure = None if 200 <= raw.status < 300 else f"HTTP {raw.status}"
        self._log(
            interface, started, attempts, response.status, response.business_code, response.log_id, failure
        )
        if failure is not None or response.business_code not in (None, 0, "0"):
            raise PlatformApiError(
                interface,
                failure or "business error",
                status=response.status,
                business_code=response.business_code,
                log_id=response.log_id,
            )
        return response

    def _unreachable(
        self, interface: str, started: float, attempts: int, cause: Exception
    ) -> PlatformApiError:
        self._log(interface, started, attempts, None, None, None, type(cause).__name__)
        return PlatformApiError(interface, type(cause).__name__)

    def _retry(self, idempotent: bool | None) -> urllib3.Retry:
        from urllib3 import Retry

        common: dict[str, Any] = {
            "total": self.max_attempts - 1,
            "backoff_factor": self.backoff_seconds,
            # A platform's Retry-After may outlast the whole Lambda invocation; our short backoff applies instead.
            "respect_retry_after_header": False,
            "raise_on_status": False,  # the last answer is returned, so its status and business code are reported
        }
        if idempotent is False:
            # Only what failed before the request left is retried: a refused connection, a failed handshake.
            return Retry(read=False, status_forcelist=None, **common)
        methods = None if idempotent else IDEMPOTENT_METHODS  # None: every method
        return Retry(allowed_methods=methods, status_forcelist=RETRY_STATUSES, **common)

    def _log(
        self,
        interface: str,
        started: float,
        attempts: int,
        status: int | None,
        business_code: int | str | None,
        log_id: str | None,
        error: str | None = None,
    ) -> None:
        fields = {
            "event": "platform_api_call",
            "interface": interface,
            "http_status": status,
            "business_code": business_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            "log_id": log_id,
            "attempts": attempts,
        }
        if error is None and business_code in (None, 0, "0"):
            self.logger.info("platform_api_call", extra=fields)
        else:
            self.logger.warning("platform_api_call", extra={**fields, "error": error or "business error"})


def _parse(status: int, headers: Any, payload: bytes) -> PlatformResponse:
    try:
        body: Any = json.loads(payload) if payload else None
    except ValueError:
        body = None
    code: int | str | None = None
    log_id: str | None = None
    if isinstance(body, dict):
        for key in ("code", "error_code", "err_no"):
            if isinstance(body.get(key), int | str):
                code = body[key]
                break
        for key in ("log_id", "logid", "logId"):
            if isinstance(body.get(key), str):
                log_id = body[key]
                break
    if log_id is None and headers is not None:
        for name in LOG_ID_HEADERS:
            value = headers.get(name)
            if value:
                log_id = str(value)
                break
    return PlatformResponse(status=status, body=body, business_code=code, log_id=log_id)
