"""The public test kit: drive a business through the real Lambda handler, in-process, from a test.

    from mcp_lambda.testing import McpTestClient, Identity
    from businesses.shop import BUSINESS

    def test_search_finds_the_thermos() -> None:
        with McpTestClient(BUSINESS, era="2024-11-05") as client:
            result = client.call_tool("search_products", {"keyword": "thermos"})
        assert not result.is_error and result.entities

Imported by tests only: the handler never imports it, and the build leaves it out of the package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .apigateway import LocalContext, http_event, response_body
    from .client import DEFAULT_CAPABILITIES, McpTestClient
    from .errors import KitError, ProtocolError
    from .events import record_conversations, replay_conversation, replay_conversations
    from .fakes import DeclaredSecrets, FakeService, ServiceRequest, StaticSecrets, fake_service
    from .framing import ERAS, MODERN
    from .identity import (
        DEFAULT_AUDIENCE,
        DEFAULT_ISSUER,
        Identity,
        LocalIssuer,
        authorizer_context,
        shared_issuer,
    )
    from .listings import ListedPrompt, ListedResource, ListedTool
    from .replay import Mismatch
    from .results import Completion, HttpReply, PromptResult, ResourceResult, RoundResult, ToolCallResult
    from .runtime import (
        HandlerTransport,
        InProcessInvoker,
        InProcessLambda,
        compose_handler,
        invoke,
        make_settings,
    )
    from .tables import BusinessTable, business_table
    from .tasks import TaskHandle, TaskState
    from .transports import HttpTransport, Transport

# Each public name and the module that defines it: imported on first use, so that importing one module of
# the kit (dev/ imports `apigateway` alone) does not load the handler and everything it composes.
_EXPORTS = {
    "DEFAULT_AUDIENCE": "identity",
    "DEFAULT_ISSUER": "identity",
    "Identity": "identity",
    "LocalIssuer": "identity",
    "authorizer_context": "identity",
    "shared_issuer": "identity",
    "Completion": "results",
    "DEFAULT_CAPABILITIES": "channel",
    "ERAS": "framing",
    "FakeService": "fakes",
    "HandlerTransport": "runtime",
    "HttpReply": "results",
    "HttpTransport": "transports",
    "ListedPrompt": "listings",
    "ListedResource": "listings",
    "ListedTool": "listings",
    "InProcessInvoker": "runtime",
    "InProcessLambda": "runtime",
    "KitError": "errors",
    "LocalContext": "apigateway",
    "MODERN": "framing",
    "McpTestClient": "client",
    "PromptResult": "results",
    "ProtocolError": "errors",
    "ResourceResult": "results",
    "RoundResult": "results",
    "ServiceRequest": "fakes",
    "StaticSecrets": "fakes",
    "DeclaredSecrets": "fakes",
    "BusinessTable": "tables",
    "business_table": "tables",
    "TaskHandle": "tasks",
    "TaskState": "tasks",
    "ToolCallResult": "results",
    "Transport": "transports",
    "compose_handler": "runtime",
    "fake_service": "fakes",
    "http_event": "apigateway",
    "invoke": "runtime",
    "make_settings": "runtime",
    "response_body": "apigateway",
    "Mismatch": "replay",
    "record_conversations": "events",
    "replay_conversation": "events",
    "replay_conversations": "events",
}

__all__ = [
    "DEFAULT_AUDIENCE",
    "DEFAULT_CAPABILITIES",
    "DEFAULT_ISSUER",
    "ERAS",
    "MODERN",
    "BusinessTable",
    "Completion",
    "DeclaredSecrets",
    "FakeService",
    "HandlerTransport",
    "HttpReply",
    "HttpTransport",
    "Identity",
    "InProcessInvoker",
    "InProcessLambda",
    "KitError",
    "ListedPrompt",
    "ListedResource",
    "ListedTool",
    "LocalContext",
    "LocalIssuer",
    "McpTestClient",
    "Mismatch",
    "PromptResult",
    "ProtocolError",
    "ResourceResult",
    "RoundResult",
    "ServiceRequest",
    "StaticSecrets",
    "TaskHandle",
    "TaskState",
    "ToolCallResult",
    "Transport",
    "authorizer_context",
    "business_table",
    "compose_handler",
    "fake_service",
    "http_event",
    "invoke",
    "make_settings",
    "record_conversations",
    "replay_conversation",
    "replay_conversations",
    "response_body",
    "shared_issuer",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
