"""Builds the ToolContext a tool, prompt or resource function receives for one call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import deadlines
from ..tools.context import Services, ToolContext
from .scope import CallScope

TOOL_CALL_ID_KEYS = ("tool_call_id", "toolCallId", "io.modelcontextprotocol/toolCallId")
# This round's answers, and the previous round's verified state (multi round-trip, 2026-07-28).
RoundInputs = tuple[Mapping[str, Any], Mapping[str, Any] | None]
NO_INPUTS: RoundInputs = ({}, None)


def tool_call_id(meta: Mapping[str, Any]) -> str | None:
    """The caller's id for this tool call (`_meta`), bounded in length."""
    for key in TOOL_CALL_ID_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value[:128]
    return None


class ContextFactory:
    """One ToolContext per call: what the scope knows about the request, plus the app's services."""

    def __init__(self, services: Services) -> None:
        self.services = services

    def __call__(self, scope: CallScope, name: str, inputs: RoundInputs = NO_INPUTS) -> ToolContext:
        services = self.services
        return ToolContext(
            request_id=scope.request_id,
            tool_name=name,
            logger=services.logger,
            correlation_id=scope.correlation_id,
            session_id=scope.session.session_id if scope.session else None,
            principal=scope.principal,
            tool_call_id=tool_call_id(scope.meta),
            client_capabilities=scope.client_capabilities,
            meta=scope.meta,
            secrets=services.secrets,
            notify=scope.notify,
            log_level=scope.log_level,
            input_responses=inputs[0],
            request_state=inputs[1],
            platform_api=services.platform_api,
            deadline=deadlines.current(),  # the request's, set by the transport
            http=services.http,
        )
