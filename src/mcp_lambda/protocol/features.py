"""Resources, prompts and completion: optional MCP features, served and advertised only when a business has them."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .. import deadlines
from ..deadlines import DeadlineExceeded
from ..observability import ToolLogger, log_internal_error
from ..tools import Business, InputRequired
from ..tools.resources import ResourceNotFound, contents_for
from ..wire import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from .apps import AppViews
from .contexts import ContextFactory
from .jsonrpc import RpcError, service_unavailable
from .pagination import listing
from .params import required_string
from .rounds import Rounds
from .scope import CallScope, Handler
from .skills import SkillMethods


async def _call(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """`fn(**kwargs)` within the request's deadline, as a tool runs: an `async def` is cancelled there, a plain
    function runs on a worker thread that is abandoned there (DeadlineExceeded either way)."""
    deadline = deadlines.current()
    if inspect.iscoroutinefunction(fn):
        return await deadlines.run_until(deadline, lambda: fn(**kwargs))
    result = deadlines.run_blocking_until(deadline, fn, **kwargs)
    return await deadlines.run_until(deadline, lambda: result) if inspect.isawaitable(result) else result


def _completions(completer: Callable[..., Any], *args: Any) -> list[str]:
    """The business completer's suggestions, as strings (read where it runs: within the deadline)."""
    return [str(v) for v in completer(*args)]


def timed_out(method: str, target: str) -> RpcError:
    """503 with Retry-After, as for a store that does not answer in time: the client may retry."""
    return service_unavailable(
        f"Request timed out: {method} of '{target}' did not finish within the request deadline; retry later",
        1,
    )


class FeatureMethods:
    def __init__(
        self,
        business: Business,
        contexts: ContextFactory,
        rounds: Rounds,
        page_size: int,
        logger: ToolLogger,
        skills: SkillMethods | None = None,
        apps: AppViews | None = None,
    ) -> None:
        self.business = business
        self.skills = skills  # the Skills extension: its files are resources too
        self.apps = apps or AppViews(
            None
        )  # MCP Apps: card views, resources only for a client that renders them
        self.contexts = contexts
        self.rounds = rounds
        self.logger = logger
        self._page_size = page_size

    def has_resources(self) -> bool:
        return bool(self.business.resources or self.business.resource_templates or self.skills)

    def capabilities(
        self, resources: dict[str, Any], client_capabilities: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """What the business serves to this client, with `resources` as the era describes it."""
        caps: dict[str, Any] = {}
        if self.has_resources() or self.apps.serves(client_capabilities or {}):
            caps["resources"] = resources
        if self.business.prompts:
            caps["prompts"] = {"listChanged": False}
        if self.business.completer is not None:
            caps["completions"] = {}
        return caps

    def handlers(self) -> dict[str, Handler]:
        table: dict[str, Handler] = {}
        if self.has_resources() or self.apps.views is not None:
            table.update(
                {
                    "resources/list": self.resources_list,
                    "resources/templates/list": self.templates_list,
                    "resources/read": self.resources_read,
                }
            )
        if self.business.prompts:
            table.update({"prompts/list": self.prompts_list, "prompts/get": self.prompts_get})
        if self.business.completer is not None:
            table["completion/complete"] = self.complete
        if self.skills is not None:
            table.update(self.skills.handlers())
        return table

    def subscription_handlers(self) -> dict[str, Handler]:
        """resources/(un)subscribe: accepted where sessions exist, though a Lambda never pushes updates."""
        if not self.has_resources() and self.apps.views is None:
            return {}
        return {"resources/subscribe": self.subscribe, "resources/unsubscribe": self.subscribe}

    def _require_resources(self, scope: CallScope, method: str) -> None:
        """A business whose only resources are card views has none for a client without MCP Apps."""
        if not self.has_resources() and not self.apps.serves(scope.client_capabilities):
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    async def resources_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require_resources(scope, "resources/list")
        resources = [spec.to_wire() for spec in self.business.resources]
        if self.skills is not None:
            resources += self.skills.resources()
        resources += self.apps.resources(scope)
        if self.apps.shapes_the_list(scope):
            scope.caller_specific = True  # its ui:// views: this client's list, never a shared cache's
        return listing("resources", resources, params, self._page_size, dict)

    async def templates_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require_resources(scope, "resources/templates/list")
        templates = self.business.resource_templates
        return listing("resourceTemplates", templates, params, self._page_size, lambda t: t.to_wire())

    async def resources_read(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require_resources(scope, "resources/read")
        uri = required_string(params, "uri")
        view = self.apps.read(scope, uri)
        if view is not None:
            return view
        if self.skills is not None and self.skills.serves(uri):
            return self.skills.read(uri)
        try:
            spec = self.business.resource_for(uri)
        except ResourceNotFound:
            code = scope.era.resource_not_found_code
            raise RpcError(code, f"Resource not found: {uri}", data={"uri": uri}) from None
        inputs = self.rounds.inputs(scope, params, "resources/read", uri)
        ctx = self.contexts(scope, uri, inputs)
        value = await self._guarded(spec.fn, spec.kwargs(uri, ctx), "resources/read", uri)
        if isinstance(value, InputRequired):
            return scope.era.request_needs_input(scope, "resources/read", uri, value)
        if isinstance(value, list):
            return {"contents": value}
        if not isinstance(value, str | bytes):
            raise self._internal("resources/read", uri, TypeError("a resource returns str or bytes"))
        return {"contents": [contents_for(uri, spec.mime_type, value)]}

    async def subscribe(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require_resources(scope, "resources/subscribe")
        if not isinstance(params.get("uri"), str):
            raise RpcError(INVALID_PARAMS, "params.uri must be a string")
        return {}

    async def prompts_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        return listing("prompts", self.business.prompts, params, self._page_size, lambda p: p.to_wire())

    async def prompts_get(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        name = required_string(params, "name")
        spec = self.business.prompt(name)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}", data={"name": name})
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict) or not all(isinstance(v, str) for v in arguments.values()):
            raise RpcError(INVALID_PARAMS, "params.arguments must be an object of strings")
        missing = spec.missing(arguments)
        if missing:
            raise RpcError(INVALID_PARAMS, f"Missing required prompt arguments: {', '.join(missing)}")
        known = {a["name"] for a in spec.arguments}
        kwargs: dict[str, Any] = {k: v for k, v in arguments.items() if k in known}
        inputs = self.rounds.inputs(scope, params, "prompts/get", name)
        if spec.context_param:
            kwargs[spec.context_param] = self.contexts(scope, name, inputs)
        messages = await self._guarded(spec.fn, kwargs, "prompts/get", name)
        if isinstance(messages, InputRequired):
            return scope.era.request_needs_input(scope, "prompts/get", name, messages)
        return {"description": spec.description, "messages": list(messages)}

    async def complete(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, dict) or ref.get("type") not in ("ref/prompt", "ref/resource"):
            raise RpcError(INVALID_PARAMS, "params.ref must be a ref/prompt or ref/resource object")
        if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
            raise RpcError(INVALID_PARAMS, "params.argument.name must be a string")
        value = argument.get("value", "")
        if not isinstance(value, str):
            raise RpcError(INVALID_PARAMS, "params.argument.value must be a string")
        context = params.get("context") if isinstance(params.get("context"), dict) else {}
        completer = self.business.completer
        assert completer is not None
        arguments = dict((context or {}).get("arguments") or {})
        ask = functools.partial(_completions, completer, ref, argument["name"], value, arguments)
        values: list[str] = await self._guarded(ask, {}, "completion/complete", argument["name"])
        return {"completion": {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}}

    async def _guarded(self, fn: Callable[..., Any], kwargs: dict[str, Any], method: str, target: str) -> Any:
        try:
            return await _call(fn, **kwargs)
        except RpcError:
            raise
        except DeadlineExceeded:
            self.logger.warning(
                "mcp_request_failed",
                extra={
                    "event": "mcp_request_failed",
                    "error_type": "DeadlineExceeded",
                    "method": method,
                    "target": target,
                },
            )
            raise timed_out(method, target) from None
        except Exception as exc:  # logged once with an id; the client never sees the exception text
            raise self._internal(method, target, exc) from None

    def _internal(self, method: str, target: str, exc: Exception) -> RpcError:
        error_id = log_internal_error(self.logger, "mcp_request_failed", exc, method=method, target=target)
        return RpcError(INTERNAL_ERROR, f"Internal error (error id {error_id})")
