"""Resources and resource templates: `@resource("test://x", ...)` and `@resource_template("test://{id}", ...)`.

A read function returns `str` (text), `bytes` (sent as a base64 blob) or `InputRequired`; it may take a
`ToolContext` parameter and, for templates, one `str` parameter per template variable.
"""

from __future__ import annotations

import base64
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_type_hints

from ..errors import ToolFailure
from .context import ToolContext

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ResourceNotFound(ToolFailure, LookupError):
    """No resource or template matches the URI; raise it from a template's read function for an unknown id."""


def _context_param(fn: Callable[..., Any]) -> str | None:
    hints = get_type_hints(fn)
    return next((name for name in inspect.signature(fn).parameters if hints.get(name) is ToolContext), None)


def contents_for(uri: str, mime_type: str, value: str | bytes) -> dict[str, Any]:
    """One `contents` entry: `uri` and `mimeType` always, then `text` or a base64 `blob`."""
    if isinstance(value, bytes):
        return {"uri": uri, "mimeType": mime_type, "blob": base64.b64encode(value).decode("ascii")}
    return {"uri": uri, "mimeType": mime_type, "text": value}


def _listing_entry(
    key: str, address: str, name: str, description: str, mime_type: str, title: str | None
) -> dict[str, Any]:
    """A resources/list or resources/templates/list entry; only the address key differs between the two."""
    entry = {key: address, "name": name, "description": description, "mimeType": mime_type}
    if title:
        entry["title"] = title
    return entry


@dataclass(frozen=True)
class ResourceSpec:
    """A resource as the server serves it, made by `@resource`; list it in `Business(resources=[...])`."""

    uri: str
    name: str
    description: str
    mime_type: str
    fn: Callable[..., Any]
    context_param: str | None
    title: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The resource's entry in resources/list."""
        return _listing_entry("uri", self.uri, self.name, self.description, self.mime_type, self.title)

    def kwargs(self, uri: str, ctx: ToolContext) -> dict[str, Any]:
        """The keyword arguments the read function is called with for `uri`: the context, if it takes one.

        Args:
            uri: The URI being read.
            ctx: The request's tool context.

        Returns:
            `{context parameter: ctx}`, or nothing when the function takes no context.
        """
        return {self.context_param: ctx} if self.context_param else {}


@dataclass(frozen=True)
class ResourceTemplateSpec:
    """A resource template as the server serves it, made by `@resource_template`; list it in
    `Business(resource_templates=[...])`."""

    uri_template: str
    name: str
    description: str
    mime_type: str
    fn: Callable[..., Any]
    context_param: str | None
    pattern: re.Pattern[str]
    title: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The template's entry in resources/templates/list."""
        return _listing_entry(
            "uriTemplate", self.uri_template, self.name, self.description, self.mime_type, self.title
        )

    def match(self, uri: str) -> dict[str, str] | None:
        """The template variables' values in `uri`, or None when `uri` does not match the template.

        Args:
            uri: A URI a client asked to read.

        Returns:
            Each variable's value, or None for a URI of another shape.
        """
        found = self.pattern.fullmatch(uri)
        return found.groupdict() if found else None

    def kwargs(self, uri: str, ctx: ToolContext) -> dict[str, Any]:
        """The keyword arguments the read function is called with for `uri`: its variables, and the context.

        Args:
            uri: The URI being read (it matches the template).
            ctx: The request's tool context.

        Returns:
            The variables by name, plus the context parameter when the function takes one.
        """
        values: dict[str, Any] = dict(self.match(uri) or {})
        if self.context_param:
            values[self.context_param] = ctx
        return values


def resource(
    uri: str, *, name: str, description: str, mime_type: str = "text/plain", title: str | None = None
) -> Callable[[Callable[..., Any]], ResourceSpec]:
    """Describe a function as a resource: `@resource("test://info", name="info", description="...")`.

    The function returns `str` (text), `bytes` (a base64 blob) or `input_required(...)`; a parameter typed
    `ToolContext` receives the context.

    Args:
        uri: The resource's URI.
        name: Its name in resources/list.
        description: What it holds.
        mime_type: The `mimeType` of its contents.
        title: The display name.

    Returns:
        A decorator that turns the function into a ResourceSpec.
    """

    def wrap(fn: Callable[..., Any]) -> ResourceSpec:
        return ResourceSpec(uri, name, description, mime_type, fn, _context_param(fn), title)

    return wrap


def resource_template(
    uri_template: str, *, name: str, description: str, mime_type: str = "text/plain", title: str | None = None
) -> Callable[[Callable[..., Any]], ResourceTemplateSpec]:
    """Describe a function as a resource template: `@resource_template("test://items/{id}", name=..., ...)`.

    Simple RFC 6570 level-1 templates: each `{var}` matches one path segment and reaches the function as the
    `str` parameter of that name; raise ResourceNotFound for a value that names nothing.

    Args:
        uri_template: The template, e.g. `test://items/{id}`.
        name: Its name in resources/templates/list.
        description: What its resources hold.
        mime_type: The `mimeType` of their contents.
        title: The display name.

    Returns:
        A decorator that turns the function into a ResourceTemplateSpec.
    """

    def wrap(fn: Callable[..., Any]) -> ResourceTemplateSpec:
        parts = _VARIABLE.split(uri_template)
        regex = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/?#]+)" for i, part in enumerate(parts)
        )
        return ResourceTemplateSpec(
            uri_template, name, description, mime_type, fn, _context_param(fn), re.compile(regex), title
        )

    return wrap
