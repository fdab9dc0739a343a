"""The public tool API: everything a business module imports, and nothing else.

from mcp_lambda.tools import Business, ToolContext, ToolResult, tool, entities, execution_result, business_error
"""

from .business import Business, load_business
from .context import SecretUnavailable, ToolContext
from .decorator import ToolSpec, tool
from .results import (
    INTERNAL_ERROR,
    INVALID_ARGUMENTS,
    RESULT_VIOLATES_MANIFEST,
    SECRET_UNAVAILABLE,
    ToolResult,
    business_error,
    content_result,
    entities,
    execution_result,
    text,
)

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_ARGUMENTS",
    "RESULT_VIOLATES_MANIFEST",
    "SECRET_UNAVAILABLE",
    "Business",
    "SecretUnavailable",
    "ToolContext",
    "ToolResult",
    "ToolSpec",
    "business_error",
    "content_result",
    "entities",
    "execution_result",
    "load_business",
    "text",
    "tool",
]
