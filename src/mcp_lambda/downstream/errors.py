"""What an outbound call raises: `DownstreamError` and its family (a tool that lets one go answers 50300 or 50400)."""

from __future__ import annotations

from ..errors import McpLambdaError


class DownstreamError(McpLambdaError, RuntimeError):
    """An outbound call failed; what is known about the answer rides along (never a body)."""

    def __init__(
        self,
        message: str,
        *,
        interface: str | None = None,
        status: int | None = None,
        business_code: int | str | None = None,
        log_id: str | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.interface = interface
        self.status = status
        self.business_code = business_code
        self.log_id = log_id
        self.retry_after_ms = retry_after_ms


class DownstreamUnavailable(DownstreamError):
    """Refused, reset, a 5xx after the retries, or the host's circuit is open: error result 50300."""


class CircuitOpen(DownstreamUnavailable):
    """The host failed too often lately; nothing was sent. `retry_after_ms`: how long the circuit stays open."""


class DownstreamTimeout(DownstreamError):
    """No complete answer within the call's timeouts or before the request deadline: error result 50400."""


class ResponseTooLarge(DownstreamError):
    """The answer is larger than MAX_DOWNSTREAM_ANSWER_BYTES."""
