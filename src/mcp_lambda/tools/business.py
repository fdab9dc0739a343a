"""A Business: the set of tools (and later resources, prompts) one Lambda serves, declared explicitly."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..downstream import Egress
from ..errors import StartupError
from .cards import CardViews
from .decorator import ToolSpec
from .prompts import PromptSpec
from .resources import ResourceNotFound, ResourceSpec, ResourceTemplateSpec
from .results import FRAMEWORK_CODES

# Who receives the manifest's `llm_visible: false` values in structuredContent (docs/manifest.md).
HiddenValues = Literal["card_clients", "all_clients"]
HIDDEN_VALUES: tuple[str, ...] = ("card_clients", "all_clients")

# completion/complete: (ref, argument name, partial value, context arguments) -> suggested values
Completer = Callable[[dict[str, Any], str, str, dict[str, Any]], Sequence[str]]


class BusinessDefinitionError(StartupError, ValueError):
    """The business package is missing or malformed."""


@dataclass(frozen=True)
class Business:
    """What a business package exports as `BUSINESS`. Everything is listed explicitly: no import side effects.

    Tools are the platform contract; resources, prompts and completions are optional MCP features, advertised
    only when present. `secrets` declares the keys the tools read with `ctx.secret`; `on_cold_start` empties
    the business's in-memory state whenever a runtime is built for it.
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
    # The business's skills folder (one Agent Skills folder per skill, docs/skills.md), served over MCP (SEP-2640):
    # `skills=Path(__file__).with_name("skills")`.
    skills: Path | None = None
    # MCP Apps views of the cards the manifest binds, and their buttons (docs/cards.md); None: generic views.
    card_views: CardViews | None = None
    # A business's own exceptions and the error result each becomes: {OrderLocked: (40920, "order is locked")}.
    error_map: Mapping[type[BaseException], tuple[int, str]] = field(default_factory=dict)
    # The secret keys its tools read with ctx.secret(...): what the deployed secret must hold (make run and the
    # smoke check name the missing ones; the test kit refuses any other key). None: not declared, not checked.
    secrets: Sequence[str] | None = None
    # The downstreams its tools reach with ctx.http (docs/tools.md, "Egress"): host names, `*.domain` wildcards,
    # addresses or networks, URLs, or `Egress(host, accepts_caller_token=True)`; or a function returning them,
    # called at cold start (for a host that comes from the business's own settings). Nothing else is reached.
    egress: Sequence[str | Egress] | Callable[[], Sequence[str | Egress]] = ()
    # Called each time a runtime is built for the business: once per container in Lambda; in tests for each
    # client and for each recorded or replayed conversation. Empty the business's in-memory state here, so
    # every conversation starts as a new container does.
    on_cold_start: Callable[[], None] | None = None
    # Who receives the manifest's `llm_visible: false` values in structuredContent: "card_clients" (the default)
    # only clients that render cards (the platform's 2024-11-05 sessions, MCP Apps hosts), so a host that hands
    # structuredContent to its model never shows them to it; "all_clients" every client.
    hidden_values: HiddenValues = "card_clients"
    # Lookup tables built from the lists above.
    _tools_by_name: dict[str, ToolSpec] = field(init=False, repr=False, compare=False)
    _prompts_by_name: dict[str, PromptSpec] = field(init=False, repr=False, compare=False)
    _resources_by_uri: dict[str, ResourceSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for spec in self.tools:
            if not isinstance(spec, ToolSpec):
                raise BusinessDefinitionError(f"business '{self.name}': {spec!r} is not a @tool")
            if spec.name in seen:
                raise BusinessDefinitionError(f"business '{self.name}': tool '{spec.name}' is listed twice")
            seen.add(spec.name)
        for exc_type, (code, message) in self.error_map.items():
            if not (isinstance(exc_type, type) and issubclass(exc_type, BaseException)):
                raise BusinessDefinitionError(
                    f"business '{self.name}': error_map key {exc_type!r} is not an exception"
                )
            if isinstance(code, bool) or not isinstance(code, int) or not isinstance(message, str):
                raise BusinessDefinitionError(
                    f"business '{self.name}': error_map[{exc_type.__name__}] must be (int, str)"
                )
            if code in FRAMEWORK_CODES:
                raise BusinessDefinitionError(
                    f"business '{self.name}': error_map[{exc_type.__name__}] uses {code}, a code reserved for "
                    "the framework's own errors; use a code of the business's own"
                )
        if self.secrets is not None and (
            isinstance(self.secrets, str) or not all(isinstance(key, str) and key for key in self.secrets)
        ):
            raise BusinessDefinitionError(
                f"business '{self.name}': secrets must be a list of key names, e.g. ['maps_api_key']"
            )
        if isinstance(self.egress, str) or (
            not callable(self.egress) and not all(isinstance(entry, str | Egress) for entry in self.egress)
        ):
            raise BusinessDefinitionError(
                f"business '{self.name}': egress must be a list of hosts (or Egress entries), e.g. "
                "['api.example.com'], or a function returning one"
            )
        if self.hidden_values not in HIDDEN_VALUES:
            raise BusinessDefinitionError(
                f"business '{self.name}': hidden_values must be one of {', '.join(HIDDEN_VALUES)}, "
                f"not {self.hidden_values!r}"
            )
        # frozen: the tables are set once, here, the way dataclasses itself sets fields
        object.__setattr__(self, "_tools_by_name", {spec.name: spec for spec in self.tools})
        object.__setattr__(self, "_prompts_by_name", {spec.name: spec for spec in self.prompts})
        object.__setattr__(self, "_resources_by_uri", {spec.uri: spec for spec in self.resources})

    def declared_egress(self) -> list[str | Egress]:
        """What the business declares it reaches (its `egress`, called when it is a function).

        Returns:
            The entries.
        """
        entries = self.egress() if callable(self.egress) else self.egress
        return list(entries)

    def prompt(self, name: str) -> PromptSpec | None:
        """The prompt named `name`.

        Args:
            name: The prompt's name (`prompts/get`'s `name`).

        Returns:
            Its spec, or None when the business has no such prompt.
        """
        return self._prompts_by_name.get(name)

    def resource_for(self, uri: str) -> ResourceSpec | ResourceTemplateSpec:
        """The resource that serves `uri`: the static one with that URI, else the first template matching it.

        Args:
            uri: The URI asked for (`resources/read`'s `uri`).

        Returns:
            The static resource's or the template's spec.

        Raises:
            ResourceNotFound: No resource serves that URI.
        """
        if uri in self._resources_by_uri:
            return self._resources_by_uri[uri]
        for template in self.resource_templates:
            if template.match(uri) is not None:
                return template
        raise ResourceNotFound(uri)

    def tool(self, name: str) -> ToolSpec | None:
        """The tool named `name`.

        Args:
            name: The tool's name (`tools/call`'s `name`).

        Returns:
            Its spec, or None when the business has no such tool.
        """
        return self._tools_by_name.get(name)
