"""The authoring API: everything a business module needs to define its tools, and nothing else.

from mcp_lambda.tools import Business, ToolContext, ToolResult, tool, entities, execution_result, business_error
from mcp_lambda.tools import ToolAnnotations, ExactlyOnce, TaskConfig   # @tool's typed options

The exceptions a tool may catch (`DownstreamUnavailable`, `DeadlineExceeded`, ...) are in `mcp_lambda.tools.errors`;
how a call runs is `mcp_lambda.calls`, where state lives `mcp_lambda.stores` — neither is a business's concern.
"""

from ..caller import Caller
from ..downstream import Egress, HttpResponse
from .business import Business
from .context import ToolContext
from .decorator import tool
from .enums import enum_meanings
from .inputs import InputRequest, InputRequired, elicit, input_required, list_roots, sample
from .options import ExactlyOnce, TaskConfig, ToolAnnotations
from .prompts import PromptSpec, assistant, prompt, user
from .resources import ResourceNotFound, ResourceSpec, ResourceTemplateSpec, resource, resource_template
from .results import (
    ResultCode,
    ResultStatus,
    ToolResult,
    business_error,
    content_result,
    entities,
    execution_result,
    text,
)
from .spec import ToolSpec

__all__ = [
    "Business",
    "Caller",
    "Egress",
    "ExactlyOnce",
    "HttpResponse",
    "InputRequest",
    "InputRequired",
    "PromptSpec",
    "ResourceNotFound",
    "ResourceSpec",
    "ResourceTemplateSpec",
    "ResultCode",
    "ResultStatus",
    "TaskConfig",
    "ToolAnnotations",
    "ToolContext",
    "ToolResult",
    "ToolSpec",
    "assistant",
    "business_error",
    "content_result",
    "elicit",
    "entities",
    "enum_meanings",
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
