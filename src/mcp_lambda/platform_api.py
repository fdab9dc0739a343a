"""A small client for the Doubao platform OpenAPI: timeouts, bounded retries, one log line per call.

The log line carries what doubao-protocol.md §5 asks for — interface, HTTP status, business code, duration,
the platform's `log_id` — and never a header value or a body.
"""

# stdlib urllib rather than httpx: a few JSON calls do not justify a dependency in the Lambda package.
from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .settings import Settings
from .tools.context import ToolLogger

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
LOG_ID_HEADERS = ("x-tt-logid", "x-log-id", "x-request-id")

Opener = Callable[[urllib.request.Request, float], Any]


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
        opener: Opener | None = None,
    ) -> None:
        self.base_url = base_url if "://" in base_url else f"https://{base_url}"
        self.logger = logger
        self.timeout_seconds = timeout_seconds
        self.max_attempts = max(1, max_attempts)
        self.backoff_seconds = backoff_seconds
        self._open: Opener = opener or (
            lambda request, timeout: urllib.request.urlopen(request, timeout=timeout)
        )

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

        Retries (at most `max_attempts`, with backoff) only on network errors and 429/5xx, and only when the
        call is idempotent — by method, unless `idempotent` says otherwise.
        """
        method = method.upper()
        retryable = idempotent if idempotent is not None else method in IDEMPOTENT_METHODS
        request = self._request(method, path, json_body, query, headers)
        started = time.perf_counter()
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._send(interface, request)
            except PlatformApiError as exc:
                if retryable and attempt < self.max_attempts and _retryable(exc):
                    time.sleep(self.backoff_seconds * (2 ** (attempt - 1)))
                    continue
                self._log(interface, started, attempt, exc.status, exc.business_code, exc.log_id, exc.reason)
                raise
            self._log(interface, started, attempt, response.status, response.business_code, response.log_id)
            if response.business_code not in (None, 0, "0"):
                raise PlatformApiError(
                    interface,
                    "business error",
                    status=response.status,
                    business_code=response.business_code,
                    log_id=response.log_id,
                )
            return response

    def _request(
        self,
        method: str,
        path: str,
        json_body: Any,
        query: Mapping[str, str] | None,
        headers: Mapping[str, str] | None,
    ) -> urllib.request.Request:
        url = urllib.parse.urljoin(self.base_url.rstrip("/") + "/", path.lstrip("/"))
        if query:
            url = f"{url}?{urllib.parse.urlencode(query)}"
        data = None if json_body is None else json.dumps(json_body, ensure_ascii=False).encode("utf-8")
        all_headers = {"accept": "application/json", **(headers or {})}
        if data is not None:
            all_headers.setdefault("content-type", "application/json; charset=utf-8")
        return urllib.request.Request(url, data=data, method=method, headers=all_headers)

    def _send(self, interface: str, request: urllib.request.Request) -> PlatformResponse:
        try:
            with self._open(request, self.timeout_seconds) as raw:
                return _parse(raw.status, raw.headers, raw.read())
        except urllib.error.HTTPError as exc:
            parsed = _parse(exc.code, exc.headers, exc.read())
            raise PlatformApiError(
                interface,
                f"HTTP {exc.code}",
                status=exc.code,
                business_code=parsed.business_code,
                log_id=parsed.log_id,
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
            raise PlatformApiError(interface, type(exc).__name__) from None

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


def _retryable(exc: PlatformApiError) -> bool:
    return exc.status is None or exc.status in RETRY_STATUSES


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
