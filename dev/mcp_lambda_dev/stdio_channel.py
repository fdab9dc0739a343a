"""The stdio channel: what the eras need from a connection that has no headers (2026-07-28 basic/transports/stdio).

Era routing without a header (basic/versioning, Backward Compatibility): "a request carrying modern per-request
`_meta` is served statelessly", and "an `initialize` request selects legacy semantics, scoped to the stdio
process". So a request whose `params._meta` holds the protocol-version key goes to the 2026-07-28 era (which then
validates the envelope and answers -32022 for a version it does not speak); `initialize` and everything else goes
to the legacy era, in the one implicit session the process's `initialize` opened. Both eras may be served on one
process (the spec allows it). The transport that reads and writes the lines is `mcp_lambda_dev.stdio`; both live
in dev/ because Lambda never serves stdio.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_lambda.protocol.jsonrpc import RpcError
from mcp_lambda.protocol.modern import META_VERSION
from mcp_lambda.protocol.scope import SESSION_HEADER, Inbound, Outbound
from mcp_lambda.wire import INVALID_REQUEST


def carries_modern_envelope(body: Any) -> bool:
    """Whether `body` is a request (not `initialize`) whose `params._meta` names a protocol version; for a batch,
    whether any member is (so the 2026-07-28 era refuses it: it has no batches)."""
    if isinstance(body, list):
        return any(carries_modern_envelope(item) for item in body)
    if not isinstance(body, dict) or body.get("method") == "initialize":
        return False
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_VERSION in meta


class StdioChannel:
    """One stdio connection: no header layer, and at most one session (the last `initialize` answered)."""

    header_layer = False

    def __init__(self) -> None:
        self._session_id: str | None = None

    def inbound(self, message: Any, stream: Callable[[dict[str, Any]], None] | None = None) -> Inbound:
        """The protocol's view of one message read from stdin (notifications may precede the answer).

        Args:
            message: The parsed JSON-RPC message.
            stream: Writes one of the request's notifications to stdout at once; without it they are buffered
                and returned before the response.
        """
        return Inbound(
            http_method="POST", headers={}, body=message, accepts_sse=True, channel=self, stream=stream
        )

    def answered(self, outbound: Outbound) -> None:
        """Remember the session an `initialize` answer opened: every later legacy-era message belongs to it."""
        minted = outbound.headers.get(SESSION_HEADER)
        if minted:
            self._session_id = minted

    def routes_modern(self, inbound: Inbound) -> bool:
        return carries_modern_envelope(inbound.body)

    def session_id(self, inbound: Inbound) -> str | None:
        return self._session_id

    def session_required(self) -> RpcError:
        return RpcError(
            INVALID_REQUEST,
            "Invalid Request: send initialize first (or a 2026-07-28 request carrying params._meta)",
        )
