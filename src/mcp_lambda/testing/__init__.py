"""The public test kit: drive a business through the real Lambda handler, in-process, from a test.

    from mcp_lambda.testing import McpTestClient, Identity
    from businesses.shop import BUSINESS

    def test_search_finds_the_thermos() -> None:
        with McpTestClient(BUSINESS, era="2024-11-05") as client:
            result = client.call_tool("search_products", {"keyword": "thermos"})
        assert not result.is_error and result.entities

Imported by tests only: the handler never imports it, and the build leaves it out of the package.
"""

from .apigateway import LocalContext, http_event, response_body
from .client import DEFAULT_CAPABILITIES, McpTestClient
from .errors import KitError, ProtocolError
from .fakes import FakeService, ServiceRequest, StaticSecrets, fake_service
from .identity import (
    DEFAULT_AUDIENCE,
    DEFAULT_ISSUER,
    Identity,
    LocalIssuer,
    authorizer_context,
    shared_issuer,
)
from .results import Completion, HttpReply, PromptResult, ResourceResult, RoundResult, ToolCallResult
from .runtime import InProcessInvoker, InProcessLambda, compose_handler, invoke, make_settings
from .tasks import TaskHandle, TaskState
from .wire import ERAS, MODERN, Era

__all__ = [
    "DEFAULT_AUDIENCE",
    "DEFAULT_CAPABILITIES",
    "DEFAULT_ISSUER",
    "ERAS",
    "MODERN",
    "Completion",
    "Era",
    "FakeService",
    "HttpReply",
    "Identity",
    "InProcessInvoker",
    "InProcessLambda",
    "KitError",
    "LocalContext",
    "LocalIssuer",
    "McpTestClient",
    "PromptResult",
    "ProtocolError",
    "ResourceResult",
    "RoundResult",
    "ServiceRequest",
    "StaticSecrets",
    "TaskHandle",
    "TaskState",
    "ToolCallResult",
    "authorizer_context",
    "compose_handler",
    "fake_service",
    "http_event",
    "invoke",
    "make_settings",
    "response_body",
    "shared_issuer",
]
