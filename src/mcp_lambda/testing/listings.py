"""Typed views of what the list methods answer. Each is the wire's dict (so `tool["name"]` keeps working) with
typed properties over it, as the SDK's `Tool`, `Prompt` and `Resource` models name them."""

from __future__ import annotations

from typing import Any


class ListedTool(dict[str, Any]):
    """One tool of `tools/list`."""

    @property
    def name(self) -> str:
        """The tool's name."""
        return str(self["name"])

    @property
    def description(self) -> str | None:
        """What the model reads to choose the tool."""
        return self.get("description")

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of its arguments."""
        return dict(self.get("inputSchema") or {})

    @property
    def output_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of its structured result, when it declares one."""
        return self.get("outputSchema")

    @property
    def annotations(self) -> dict[str, Any]:
        """Its hints (`readOnlyHint`, `destructiveHint`, ...); empty when it has none."""
        return dict(self.get("annotations") or {})

    @property
    def meta(self) -> dict[str, Any]:
        """Its `_meta`; empty when it has none."""
        return dict(self.get("_meta") or {})


class ListedPrompt(dict[str, Any]):
    """One prompt of `prompts/list`."""

    @property
    def name(self) -> str:
        """The prompt's name."""
        return str(self["name"])

    @property
    def description(self) -> str | None:
        """Its description."""
        return self.get("description")

    @property
    def arguments(self) -> list[dict[str, Any]]:
        """Its arguments (`{"name", "description", "required"}`)."""
        return list(self.get("arguments") or [])


class ListedResource(dict[str, Any]):
    """One resource of `resources/list`."""

    @property
    def uri(self) -> str:
        """The resource's URI."""
        return str(self["uri"])

    @property
    def name(self) -> str | None:
        """Its name."""
        return self.get("name")

    @property
    def mime_type(self) -> str | None:
        """Its MIME type."""
        return self.get("mimeType")
