"""What an outbound call raises: `DownstreamError` and its family (a tool that lets one go answers 50300 or 50400)."""

from __future__ import annotations

from ..errors import McpLambdaError, ToolFailure


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


# Why a hop was refused (EgressRefused.reason) -> what the log line and the message say.
EGRESS_REASONS = {
    "not_a_url": "not a URL",
    "not_http": "only http and https are reached",
    "link_local": "a link-local or metadata address is never reached",
    "undeclared_host": "the host is not declared",
    "undeclared_address": "the address is not declared",
    "resolves_to_link_local": "the host resolves to a link-local or metadata address, never reached",
    "resolves_to_private": "the host resolves to a private address outside every declared network",
    "caller_token_not_accepted": "the caller's token may only go to a downstream declared as accepting it",
}


class EgressRefused(ToolFailure):
    """`ctx.http` refused a hop before connecting: an undeclared host, a never-reached or undeclared private
    address (asked for, redirected to or resolved to), or the caller's token bound for a downstream that does not
    accept it. Never retried, never counted by the host's circuit: error result 40310.

    Args:
        reason: One of EGRESS_REASONS.
        origin: `scheme://host[:port]` of the refused hop (never a path, a query or a credential).
        address: The refused address, when an address was the reason.
    """

    def __init__(self, reason: str, origin: str, address: str | None = None) -> None:
        self.reason_text = EGRESS_REASONS.get(reason, reason)
        super().__init__(f"refused {origin or 'the URL'}: {self.reason_text}")
        self.reason = reason
        self.origin = origin
        self.address = address
        self.interface: str | None = None
