"""The exceptions a tool may catch or raise, by family (docs/errors.md).

from mcp_lambda.tools.errors import DownstreamUnavailable, DeadlineExceeded

Every exception the framework raises derives from `McpLambdaError`, in one family each (`StartupError`,
`StoreUnavailable`, `DownstreamError`, `ToolFailure`, `RequestRefused`). `ctx.http` raises `DownstreamUnavailable`
(`CircuitOpen`), `DownstreamTimeout`, `ResponseTooLarge` and `EgressRefused` (a host or address not declared); `ctx.platform_api` their `PlatformApiError`
subclasses; `ctx.secret` `SecretUnavailable`. A tool that does not catch them gets the error result the framework's
table gives each (50300, 50400, 50020, ...).
"""

from ..deadlines import DeadlineExceeded
from ..downstream import (
    CircuitOpen,
    DownstreamError,
    DownstreamTimeout,
    DownstreamUnavailable,
    EgressRefused,
    ResponseTooLarge,
)
from ..errors import McpLambdaError, RequestRefused, StartupError, StoreUnavailable, ToolFailure
from ..platform_api import PlatformApiError, PlatformApiTimeout, PlatformApiUnavailable
from ..secrets import SecretUnavailable
from .business import BusinessDefinitionError
from .schema import ToolSignatureError

__all__ = [
    "BusinessDefinitionError",
    "CircuitOpen",
    "DeadlineExceeded",
    "DownstreamError",
    "DownstreamTimeout",
    "DownstreamUnavailable",
    "EgressRefused",
    "McpLambdaError",
    "PlatformApiError",
    "PlatformApiTimeout",
    "PlatformApiUnavailable",
    "RequestRefused",
    "ResponseTooLarge",
    "SecretUnavailable",
    "StartupError",
    "StoreUnavailable",
    "ToolFailure",
    "ToolSignatureError",
]
