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
    method: str
    params: dict[str, Any]

    @property
    def capability(self) -> str:
        return CAPABILITY_OF_METHOD[self.method]

    def to_wire(self) -> dict[str, Any]:
        return {"method": self.method, "params": self.params}


@dataclass(frozen=True)
class InputRequired:
    """Return this instead of a result to ask for input; `state` comes back verified in `ctx.request_state`."""

    requests: Mapping[str, InputRequest]
    state: Mapping[str, Any] | None = field(default=None)

    def __post_init__(self) -> None:
        if not self.requests and self.state is None:
            raise ValueError("input_required needs at least one input request or a state")


def input_required(state: Mapping[str, Any] | None = None, **requests: InputRequest) -> InputRequired:
    """Ask the client for input: `return input_required(user_name=elicit(...), state={"step": 1})`."""
    return InputRequired(requests=dict(requests), state=dict(state) if state is not None else None)


def elicit(message: str, properties: Mapping[str, Any], required: list[str] | None = None) -> InputRequest:
    """Ask the user to fill a small form (`elicitation/create`)."""
    schema: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if required:
        schema["required"] = list(required)
    return InputRequest("elicitation/create", {"message": message, "requestedSchema": schema})


def sample(prompt: str, max_tokens: int = 100, system_prompt: str | None = None) -> InputRequest:
    """Ask the client's model for a completion (`sampling/createMessage`)."""
    params: dict[str, Any] = {
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }
    if system_prompt:
        params["systemPrompt"] = system_prompt
    return InputRequest("sampling/createMessage", params)


def list_roots() -> InputRequest:
    """Ask the client for its roots (`roots/list`)."""
    return InputRequest("roots/list", {})
