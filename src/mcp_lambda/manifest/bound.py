"""A manifest bound to the business that serves it: the checks and schemas the server uses on every call."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tools import Business, ToolResult
from .check import ToolCheck
from .errors import ManifestError
from .loader import read_manifest, unreadable
from .models import Manifest
from .rules import tool_name_problems
from .schema import output_schema
from .visibility import NO_SCOPES, delivered, with_model_text

# What the executor calls on every result: (tool name, result, the caller's scopes) -> the problems found (empty:
# the result is valid).
ResultCheck = Callable[[str, ToolResult, Collection[str]], list[str]]
# What the executor calls first: the result with the text the model reads settled (an `entities` result's sentence
# and its model-visible projection, for a caller granted these scopes), and, when it is rewritten, these `_meta`
# entries added in the same copy (the call's execution id).
ResultView = Callable[[str, ToolResult, Collection[str], Mapping[str, Any] | None], ToolResult]


@dataclass(frozen=True)
class BoundManifest:
    """`model_text` is the executor's ResultView, `check` its ResultCheck; `output_schema` feeds tools/list."""

    manifest: Manifest
    _checks: dict[str, ToolCheck] = field(default_factory=dict, repr=False)
    _schemas: dict[str, dict[str, Any] | None] = field(default_factory=dict, repr=False)

    @classmethod
    def from_manifest(cls, manifest: Manifest) -> BoundManifest:
        """Precompile every tool's check and schema (the manifest must be valid)."""
        return cls(
            manifest=manifest,
            _checks={tool: ToolCheck.compile(manifest, tool) for tool in manifest.tools},
            _schemas={tool: output_schema(manifest, tool) for tool in manifest.tools},
        )

    def check(self, tool_name: str, result: ToolResult, scopes: Collection[str] = NO_SCOPES) -> list[str]:
        """One message per violation (at most MAX_VIOLATIONS + 1); empty when the result honours the manifest.

        `scopes` are the caller's: a field requiring another is hidden from it, so its value in the text leaks.
        """
        check = self._checks.get(tool_name)
        if check is None:
            return [f"{tool_name}: the tool has no entry in the manifest"]
        return check(result, scopes)

    def model_text(
        self,
        tool_name: str,
        result: ToolResult,
        scopes: Collection[str] = NO_SCOPES,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """The result with the text the model reads: an `entities` result's sentence and its model-visible
        projection for a caller granted `scopes`, with `meta` added to its `_meta` (`visibility.with_model_text`);
        any other result as it is."""
        return with_model_text(self.manifest, tool_name, result, scopes, meta)

    def delivered(self, tool_name: str, structured: Any, scopes: Collection[str], renders_cards: bool) -> Any:
        """The `structuredContent` one client receives (`visibility.delivered`)."""
        return delivered(self.manifest, tool_name, structured, scopes, renders_cards)

    def output_schema(self, tool_name: str) -> dict[str, Any] | None:
        """JSON Schema of structuredContent for kind=entities tools; None otherwise."""
        return self._schemas.get(tool_name)


def bind_manifest(business: Business, path: str | Path) -> BoundManifest:
    """Load the manifest and match it with the business's tools; raises ManifestError listing every problem."""
    manifest, problems, declared, _ = read_manifest(path)
    registered = {spec.name for spec in business.tools}
    if not unreadable(problems):
        problems += tool_name_problems(manifest, registered, declared["tools"])
    if problems:
        raise ManifestError(problems)
    return BoundManifest.from_manifest(manifest)
