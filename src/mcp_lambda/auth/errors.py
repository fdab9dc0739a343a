"""Why a request was refused before the protocol saw it."""

from __future__ import annotations

from ..errors import RequestRefused


class AuthFailure(RequestRefused):
    """The request is not authenticated: 401 `invalid_token` (or 503 when the issuer's keys are unreachable).

    `reason` is ours and safe to send and log: it names what is wrong, never the token or a claim value.
    """

    def __init__(self, reason: str, *, status: int = 401, retry_after_seconds: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after_seconds = retry_after_seconds
        # The challenge (or Retry-After) to answer with, filled in by the Authenticator that refused.
        self.headers: dict[str, str] = {}


def unavailable(reason: str) -> AuthFailure:
    """The authorization server could not be reached: the client did nothing wrong and may retry."""
    return AuthFailure(reason, status=503, retry_after_seconds=5)
