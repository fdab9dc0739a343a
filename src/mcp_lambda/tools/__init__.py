"""The authoring API: everything a business module needs to define its tools, and nothing else.

from mcp_lambda.tools import Business, ToolContext, ToolResult, tool, entities, execution_result, business_error
from mcp_lambda.tools import ToolAnnotations, ExactlyOnce, TaskConfig, CallLimits, Access  # @tool's options
from mcp_lambda.tools import CardViews, CardAction                      # MCP Apps card views (docs/cards.md)
from mcp_lambda.tools import DynamoDBTable                              # the base of a business's own table
from mcp_lambda.tools import EnvironmentSettings                        # the base of a business's own settings

The exceptions a tool may catch (`DownstreamUnavailable`, `DeadlineExceeded`, `ConditionFailed`, ...) are in
`mcp_lambda.tools.errors`; how a call runs is `mcp_lambda.calls`, where the framework's state lives
`mcp_lambda.stores` — neither is a business's concern. `DynamoDBTable` is the one store base a business shares:
its own table's calls held to the AWS budget and the request deadline, a new client after a SnapStart restore.
"""

from ..caller import Caller
from ..downstream import Egress, HttpResponse
from ..settings import EnvironmentSettings
from ..stores.table import DynamoDBTable
from .business import Business
from .cards import CardAction, CardViews
from .context import ToolContext
from .decorator import tool
from .enums import enum_meanings
from .inputs import InputRequest, InputRequired, elicit, input_required, list_roots, sample
from .options import Access, CallLimits, ExactlyOnce, TaskConfig, ToolAnnotations
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
    "Access",
    "Business",
    "CallLimits",
    "Caller",
    "CardAction",
    "CardViews",
    "DynamoDBTable",
    "Egress",
    "EnvironmentSettings",
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
