"""Multi round-trip results (2026-07-28): a tool, prompt or resource asks the client for input and is called
again with the answers. Stateless: everything the next round needs travels in the signed `requestState`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Which client capability each input request method needs.
CAPABILITY_OF_METHOD = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


@dataclass(frozen=True)
class InputRequest:
    """One question for the client, made by `elicit`, `sample` or `list_roots` and passed to `input_required`.

    Args:
        method: The client method asked (`elicitation/create`, `sampling/createMessage`, `roots/list`).
        params: That method's params.
    """

    method: str
    params: dict[str, Any]

    @property
    def capability(self) -> str:
        """The client capability the request needs (`elicitation`, `sampling` or `roots`)."""
        return CAPABILITY_OF_METHOD[self.method]

    def to_wire(self) -> dict[str, Any]:
        """The request as the wire carries it: `{"method", "params"}`."""
        return {"method": self.method, "params": self.params}


@dataclass(frozen=True)
class InputRequired:
    """Returned instead of a result to ask for input first; build it with `input_required(...)`.

    The client answers each request and calls again: the answers arrive in `ctx.input_responses` (by key) and
    `state` comes back verified in `ctx.request_state`.

    Args:
        requests: The questions, by the key their answers come back under.
        state: What the next round needs, signed and returned by the client unchanged.

    Raises:
        ValueError: neither a request nor a state is given.
    """

    requests: Mapping[str, InputRequest]
    state: Mapping[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        if not self.requests and self.state is None:
            raise ValueError("input_required needs at least one input request or a state")


def input_required(state: Mapping[str, Any] | None = None, **requests: InputRequest) -> InputRequired:
    """Ask the client for input first: `return input_required(user_name=elicit(...), state={"step": 1})`.

    Args:
        state: What the next round needs (comes back verified in `ctx.request_state`).
        **requests: The questions, each by the key its answer comes back under in `ctx.input_responses`.

    Returns:
        The InputRequired to return from the tool (or prompt, or resource).
    """
    return InputRequired(requests=dict(requests), state=dict(state) if state is not None else None)


def elicit(message: str, properties: Mapping[str, Any], required: list[str] | None = None) -> InputRequest:
    """Ask the user to fill a small form (`elicitation/create`).

    Args:
        message: What the user is asked.
        properties: The form's fields as JSON Schema properties, e.g. `{"confirm": {"type": "boolean"}}`.
        required: The fields the user must fill.

    Returns:
        The request, to pass to `input_required`.
    """
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return InputRequest("elicitation/create", {"message": message, "requestedSchema": schema})


def sample(prompt: str, max_tokens: int = 100, system_prompt: str | None = None) -> InputRequest:
    """Ask the client's model for a completion (`sampling/createMessage`).

    Args:
        prompt: The user message sent to the model.
        max_tokens: The most tokens the completion may have.
        system_prompt: A system prompt, if any.

    Returns:
        The request, to pass to `input_required`.
    """
    params: dict[str, Any] = {
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }
    if system_prompt:
        params["systemPrompt"] = system_prompt
    return InputRequest("sampling/createMessage", params)


def list_roots() -> InputRequest:
    """Ask the client for its roots (`roots/list`).

    Returns:
        The request, to pass to `input_required`.
    """
    return InputRequest("roots/list", {})
