"""Multi round-trip plumbing shared by tools/call, prompts/get and resources/read (2026-07-28 MRTR)."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from ..secrets import SecretSource, SecretUnavailable
from ..tools import InputRequired
from ..wire import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY
from .jsonrpc import RpcError
from .params import check_depth
from .request_state import RequestStateCodec
from .scope import CallScope


def missing_capabilities(asked: InputRequired, capabilities: Mapping[str, Any]) -> list[str]:
    """The client capabilities `asked` needs that were not declared, sorted (empty: it may be asked)."""
    return sorted({request.capability for request in asked.requests.values()} - set(capabilities))


class Rounds:
    """Reads a round's inputs (`inputResponses`, verified `requestState`) and writes InputRequiredResults.

    Every `requestState` is bound to the caller it was issued to (the scope's principal).
    """

    def __init__(
        self, keys: Sequence[str], secrets_source: SecretSource, environment: str, ttl_seconds: int
    ) -> None:
        self._keys = tuple(keys)
        self._secrets = secrets_source
        self._environment = environment
        self._ttl_seconds = ttl_seconds
        self._codec: RequestStateCodec | None = None

    def codec(self) -> RequestStateCodec:
        # Resolved lazily: most requests never need it, and the secret lookup costs a network call.
        if self._codec is None:
            keys = self._keys
            if not keys:
                try:
                    # A ring, like REQUEST_STATE_KEYS: comma-separated, the first signs.
                    keys = tuple(
                        k.strip() for k in self._secrets.get("request_state_key").split(",") if k.strip()
                    )
                except SecretUnavailable:
                    if self._environment != "local":
                        raise RpcError(
                            INTERNAL_ERROR, "Multi round-trip results are not configured on this server"
                        ) from None
                    # One local process: a per-process key is enough (it is never shared, never logged).
                    logging.getLogger("mcp_lambda").warning(
                        "REQUEST_STATE_KEYS not set: using a per-process key"
                    )
                    keys = (secrets.token_hex(32),)
            self._codec = RequestStateCodec([key.encode() for key in keys], self._ttl_seconds)
        return self._codec

    def inputs(
        self, scope: CallScope, params: dict[str, Any], method: str, target: str
    ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """This round's answers and the previous round's verified state; -32602 when either is malformed.

        Only an era with rounds reads them: a session request's fields of the same names are ignored.
        """
        if not scope.era.has_rounds:
            return {}, None
        responses: dict[str, Any] = {}
        if "inputResponses" in params:
            raw = params["inputResponses"]
            if not isinstance(raw, dict):
                raise RpcError(INVALID_PARAMS, "params.inputResponses must be an object")
            for key, value in raw.items():
                if not isinstance(value, dict):
                    raise RpcError(INVALID_PARAMS, f"params.inputResponses.{key[:64]} must be an object")
            responses = check_depth(raw, "inputResponses")
        state = None
        if params.get("requestState") is not None:
            state = self.codec().decode(params["requestState"], method, target, principal=scope.principal)
        return responses, state

    def input_required(
        self, scope: CallScope, method: str, target: str, asked: InputRequired
    ) -> dict[str, Any]:
        """The wire InputRequiredResult; -32021 when it asks for a capability the client did not declare."""
        missing = missing_capabilities(asked, scope.client_capabilities)
        if missing:
            raise RpcError(
                MISSING_CLIENT_CAPABILITY,
                f"Missing required client capability: {', '.join(missing)}",
                data={"requiredCapabilities": {name: {} for name in missing}},
            )
        result: dict[str, Any] = {"resultType": "input_required"}
        if asked.requests:
            result["inputRequests"] = {key: request.to_wire() for key, request in asked.requests.items()}
        result["requestState"] = self.codec().encode(method, target, asked.state, principal=scope.principal)
        return result
