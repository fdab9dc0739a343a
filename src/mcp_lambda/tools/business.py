"""A Business: the set of tools (and later resources, prompts) one Lambda serves, declared explicitly."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import StartupError
from .decorator import ToolSpec
from .prompts import PromptSpec
from .resources import ResourceNotFound, ResourceSpec, ResourceTemplateSpec
from .results import FRAMEWORK_CODES

# completion/complete: (ref, argument name, partial value, context arguments) -> suggested values
Completer = Callable[[dict[str, Any], str, str, dict[str, Any]], Sequence[str]]


class BusinessError(StartupError, ValueError):
    """The business package is missing or malformed."""


@dataclass(frozen=True)
class Business:
    """What a business package exports as `BUSINESS`. Everything is listed explicitly: no import side effects.

    Tools are the platform contract; resources, prompts and completions are optional MCP features, advertised
    only when present.
    """

    name: str
    tools: Sequence[ToolSpec]
    version: str = "0.1.0"
    title: str | None = None
    instructions: str | None = None
    resources: Sequence[ResourceSpec] = ()
    resource_templates: Sequence[ResourceTemplateSpec] = ()
    prompts: Sequence[PromptSpec] = ()
    completer: Completer | None = None
    # A business's own exceptions and the error result each becomes: {OrderLocked: (40920, "order is locked")}.
    error_map: Mapping[type[BaseException], tuple[int, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for spec in self.tools:
            if not isinstance(spec, ToolSpec):
                raise BusinessError(f"business '{self.name}': {spec!r} is not a @tool")
            if spec.name in seen:
                raise BusinessError(f"business '{self.name}': tool '{spec.name}' is listed twice")
            seen.add(spec.name)
        for exc_type, (code, message) in self.error_map.items():
            if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
                raise BusinessError(f"business '{self.name}': error_map key {exc_type!r} is not an exception")
            if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
                raise BusinessError(
                    f"business '{self.name}': error_map[{exc_type.__name__}] must be (int, str)"
                )
            if code in FRAMEWORK_CODES:
                raise BusinessError(
                    f"business '{self.name}': error_map[{exc_type.__name__}] uses {code}, a code reserved for "
                    "the framework's own errors; use a code of the business's own"
                )
        object.__setattr__(self, "_by_name", {spec.name: spec for spec in self.tools})
        object.__setattr__(self, "_prompts", {spec.name: spec for spec in self.prompts})
        object.__setattr__(self, "_resources", {spec.uri: spec for spec in self.resources})

    def prompt(self, name: str) -> PromptSpec | None:
        prompts: dict[str, PromptSpec] = self._prompts  # type: ignore[attr-defined]
        return prompts.get(name)

    def resource_for(self, uri: str) -> ResourceSpec | ResourceTemplateSpec:
        """The static resource with that URI, else the first template matching it; ResourceNotFound otherwise."""
        resources: dict[str, ResourceSpec] = self._resources  # type: ignore[attr-defined]
        if uri in resources:
            return resources[uri]
        for template in self.resource_templates:
            if template.match(uri) is not None:
                return template
        raise ResourceNotFound(uri)

    def tool(self, name: str) -> ToolSpec | None:
        by_name: dict[str, ToolSpec] = self._by_name  # type: ignore[attr-defined]
        return by_name.get(name)


def known_businesses() -> list[str]:
    """The business packages on the path, in path order (src/businesses/ first, then dev/businesses/ locally)."""
    try:
        package = importlib.import_module("businesses")
    except ModuleNotFoundError:
        return []
    import pkgutil  # only for the list of known businesses (an error message, the dev tools): not at start-up

    names = [module.name for module in pkgutil.iter_modules(package.__path__) if module.ispkg]
    return list(dict.fromkeys(names))


def load_business(name: str) -> Business:
    """Import `businesses.<name>` and return its `BUSINESS`."""
    try:
        module = importlib.import_module(f"businesses.{name}")
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == "businesses" or exc.name == f"businesses.{name}"):
            known = ", ".join(known_businesses()) or "none"
            raise BusinessError(
                f"business '{name}' not found; known: {known} (a business is a package src/businesses/<name>/)"
            ) from None
        raise
    business = getattr(module, "BUSINESS", None)
    if not isinstance(business, Business):
        raise BusinessError(f"businesses.{name} must define BUSINESS = Business(...)")
    return business
