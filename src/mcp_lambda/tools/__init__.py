"""The public tool API: everything a business module imports, and nothing else.

from mcp_lambda.tools import Business, ToolContext, ToolResult, tool, entities, execution_result, business_error
from mcp_lambda.tools import ToolAnnotations, ExactlyOnce, TaskConfig   # @tool's typed options
from mcp_lambda.tools import CardViews, CardAction   # Business(card_views=...): MCP Apps views of the cards

Every exception the framework raises derives from McpLambdaError, in one family each (StartupError,
StoreUnavailable, DownstreamError, ToolFailure, RequestRefused; docs/errors.md). `ctx.http` raises
DownstreamUnavailable (CircuitOpen), DownstreamTimeout and ResponseTooLarge, `ctx.platform_api` their
PlatformApiError subclasses: all exported here for a tool to catch.
"""

from ..deadlines import DeadlineExceeded
from ..downstream import (
    CircuitOpen,
    DownstreamError,
    DownstreamTimeout,
    DownstreamUnavailable,
    HttpResponse,
    ResponseTooLarge,
)
from ..errors import McpLambdaError, RequestRefused, StartupError, StoreUnavailable, ToolFailure
from ..platform_api import PlatformApiError, PlatformApiTimeout, PlatformApiUnavailable
from .business import Business
from .cards import CardAction, CardViews
from .context import Caller, SecretUnavailable, ToolContext
from .decorator import tool
from .inputs import InputRequest, InputRequired, elicit, input_required, list_roots, sample
from .options import ExactlyOnce, TaskConfig, ToolAnnotations
from .prompts import PromptSpec, assistant, prompt, user
from .resources import ResourceNotFound, ResourceSpec, ResourceTemplateSpec, resource, resource_template
from .results import (
    DEADLINE_EXCEEDED,
    DOWNSTREAM_UNAVAILABLE,
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    RATE_LIMITED,
    RESULT_VIOLATES_MANIFEST,
    SECRET_UNAVAILABLE,
    ToolResult,
    business_error,
    content_result,
    entities,
    execution_result,
    text,
)
from .schema import ToolSignatureError
from .spec import ToolSpec

__all__ = [
    "DEADLINE_EXCEEDED",
    "DOWNSTREAM_UNAVAILABLE",
    "INTERNAL_ERROR",
    "INVALID_ARGUMENTS",
    "RATE_LIMITED",
    "RESULT_VIOLATES_MANIFEST",
    "SECRET_UNAVAILABLE",
    "Business",
    "Caller",
    "CardAction",
    "CardViews",
    "CircuitOpen",
    "DeadlineExceeded",
    "DownstreamError",
    "DownstreamTimeout",
    "DownstreamUnavailable",
    "ExactlyOnce",
    "HttpResponse",
    "InputRequest",
    "InputRequired",
    "McpLambdaError",
    "PlatformApiError",
    "PlatformApiTimeout",
    "PlatformApiUnavailable",
    "PromptSpec",
    "RequestRefused",
    "ResourceNotFound",
    "ResourceSpec",
    "ResourceTemplateSpec",
    "ResponseTooLarge",
    "SecretUnavailable",
    "StartupError",
    "StoreUnavailable",
    "TaskConfig",
    "ToolAnnotations",
    "ToolContext",
    "ToolFailure",
    "ToolResult",
    "ToolSignatureError",
    "ToolSpec",
    "assistant",
    "business_error",
    "content_result",
    "elicit",
    "entities",
    "execution_result",
    "input_required",
    "list_roots",
    "prompt",
    "resource",
    "resource_template",
    "sample",
    "text",
    "tool",
    "user",
]
