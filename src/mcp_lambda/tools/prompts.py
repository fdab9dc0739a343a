"""Prompts: `@prompt(description=...)` on a function whose `str` parameters are the prompt's arguments.

It returns a list of messages (see `user()` / `assistant()`), or `InputRequired` to ask for input first.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic.fields import FieldInfo

from .context import ToolContext


@dataclass(frozen=True)
class PromptSpec:
    """A prompt as the server serves it, made by `@prompt`; list it in `Business(prompts=[...])`."""

    name: str
    description: str
    arguments: tuple[dict[str, Any], ...]
    fn: Callable[..., Any]
    context_param: str | None
    title: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """The prompt's entry in prompts/list: `{"name", "description", "title"?, "arguments"?}`."""
        wire: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.title:
            wire["title"] = self.title
        if self.arguments:
            wire["arguments"] = [dict(a) for a in self.arguments]
        return wire

    def missing(self, given: dict[str, Any]) -> list[str]:
        """The required arguments `given` lacks (or gives as something other than a string).

        Args:
            given: The `prompts/get` arguments.

        Returns:
            The names of the missing ones, in declaration order.
        """
        return [
            a["name"]
            for a in self.arguments
            if a.get("required") and not isinstance(given.get(a["name"]), str)
        ]


def _describe(annotation: Any) -> str | None:
    if get_origin(annotation) is Annotated:
        for extra in get_args(annotation)[1:]:
            if isinstance(extra, FieldInfo) and extra.description:
                return extra.description
            if isinstance(extra, str):
                return extra
    return None


def prompt(
    *, description: str, name: str | None = None, title: str | None = None
) -> Callable[[Callable[..., Any]], PromptSpec]:
    """Describe a function as a prompt: `@prompt(description="...")`.

    Each parameter is a string argument (required unless it has a default; `Annotated[str, "text"]` or
    `Field(description=...)` describes it); one typed `ToolContext` receives the context instead. The function
    returns a list of messages (`user(...)`, `assistant(...)`), or `input_required(...)` to ask first.

    Args:
        description: What the prompt is for.
        name: The wire name; defaults to the function's name.
        title: The display name.

    Returns:
        A decorator that turns the function into a PromptSpec.
    """

    def wrap(fn: Callable[..., Any]) -> PromptSpec:
        hints = get_type_hints(fn, include_extras=True)
        arguments, context_param = [], None
        for param_name, param in inspect.signature(fn).parameters.items():
            annotation = hints.get(param_name)
            if annotation is ToolContext:
                context_param = param_name
                continue
            argument: dict[str, Any] = {
                "name": param_name,
                "required": param.default is inspect.Parameter.empty,
            }
            text = _describe(annotation)
            if text:
                argument["description"] = text
            arguments.append(argument)
        return PromptSpec(name or fn.__name__, description, tuple(arguments), fn, context_param, title)

    return wrap


def user(content: str | dict[str, Any]) -> dict[str, Any]:
    """A user message for a prompt's result.

    Args:
        content: Text, or one content block (image, resource, ...).

    Returns:
        `{"role": "user", "content": ...}`.
    """
    return {
        "role": "user",
        "content": {"type": "text", "text": content} if isinstance(content, str) else content,
    }


def assistant(content: str | dict[str, Any]) -> dict[str, Any]:
    """An assistant message for a prompt's result.

    Args:
        content: Text, or one content block (image, resource, ...).

    Returns:
        `{"role": "assistant", "content": ...}`.
    """
    return {
        "role": "assistant",
        "content": {"type": "text", "text": content} if isinstance(content, str) else content,
    }
