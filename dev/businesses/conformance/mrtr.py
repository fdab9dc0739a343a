"""Multi round-trip fixtures (input-required-result-*, server-stateless capability probes).

Each tool asks with `input_required(...)` and finishes when `ctx.input_responses` holds the answers; state that
must survive between rounds travels in the signed `requestState` (`ctx.request_state`)."""

from __future__ import annotations

from typing import Any

from mcp_lambda.tools import (
    InputRequired,
    ToolContext,
    ToolResult,
    ToolSpec,
    content_result,
    elicit,
    input_required,
    list_roots,
    sample,
    text,
    tool,
)

NAME_FORM = {"name": {"type": "string"}}


def _answer(ctx: ToolContext, key: str) -> dict[str, Any] | None:
    value = ctx.input_responses.get(key)
    return value if isinstance(value, dict) else None


def _sampled_text(response: dict[str, Any]) -> str:
    content = response.get("content")
    return str(content.get("text", "")) if isinstance(content, dict) else ""


@tool(description="Asks the user's name (elicitation), then greets them.")
def test_input_required_result_elicitation(ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "user_name")
    if answer is None:
        return input_required(user_name=elicit("What is your name?", NAME_FORM, ["name"]))
    name = (answer.get("content") or {}).get("name", "there")
    return content_result(text(f"Hello, {name}!"))


@tool(description="Asks the client's model a question (sampling), then returns its answer.")
def test_input_required_result_sampling(ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "capital_question")
    if answer is None:
        return input_required(capital_question=sample("What is the capital of France?", 100))
    return content_result(text(f"The model answered: {_sampled_text(answer)}"))


@tool(description="Asks the client for its roots, then lists them.")
def test_input_required_result_list_roots(ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "client_roots")
    if answer is None:
        return input_required(client_roots=list_roots())
    roots = [r.get("uri") for r in answer.get("roots", []) if isinstance(r, dict)]
    return content_result(text(f"Client roots: {', '.join(map(str, roots))}"))


@tool(description="Asks for confirmation and checks that its signed requestState came back intact.")
def test_input_required_result_request_state(ctx: ToolContext) -> ToolResult | InputRequired:
    if _answer(ctx, "confirm") is None or ctx.request_state is None:
        return input_required(
            confirm=elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"]), state={"round": 1}
        )
    if ctx.request_state.get("round") != 1:
        return content_result(text("state-mismatch"), is_error=True)
    return content_result(text("Confirmed: state-ok"))


@tool(description="Asks for a name, a sampled greeting and the client roots at once.")
def test_input_required_result_multiple_inputs(ctx: ToolContext) -> ToolResult | InputRequired:
    wanted = ("user_name", "greeting", "client_roots")
    if any(_answer(ctx, key) is None for key in wanted):
        return input_required(
            user_name=elicit("What is your name?", NAME_FORM, ["name"]),
            greeting=sample("Generate a greeting", 50),
            client_roots=list_roots(),
            state={"asked": list(wanted)},
        )
    return content_result(text("Received all inputs: " + ", ".join(wanted)))


@tool(description="Two rounds of questions (name, then colour) carried by an evolving requestState.")
def test_input_required_result_multi_round(ctx: ToolContext) -> ToolResult | InputRequired:
    state = ctx.request_state or {}
    step1, step2 = _answer(ctx, "step1"), _answer(ctx, "step2")
    if state.get("round") == 2 and step2 is not None:
        color = (step2.get("content") or {}).get("color", "?")
        return content_result(text(f"Done: {state.get('name')} likes {color}"))
    if state.get("round") == 1 and step1 is not None:
        name = (step1.get("content") or {}).get("name", "?")
        return input_required(
            step2=elicit("Step 2: What is your favorite color?", {"color": {"type": "string"}}, ["color"]),
            state={"round": 2, "name": name},
        )
    return input_required(step1=elicit("Step 1: What is your name?", NAME_FORM, ["name"]), state={"round": 1})


@tool(description="Asks for confirmation with an integrity-protected requestState.")
def test_input_required_result_tampered_state(ctx: ToolContext) -> ToolResult | InputRequired:
    if ctx.request_state is None or _answer(ctx, "confirm") is None:
        return input_required(
            confirm=elicit("Please confirm", {"ok": {"type": "boolean"}}, ["ok"]), state={"nonce": "round-1"}
        )
    return content_result(text("state-ok"))


@tool(description="Asks only with the capabilities the request declared (sampling and/or elicitation).")
def test_input_required_result_capabilities(ctx: ToolContext) -> ToolResult | InputRequired:
    if ctx.input_responses:
        return content_result(text("Capabilities respected"))
    asks = {}
    if ctx.supports("sampling"):
        asks["question"] = sample("Say hello", 20)
    if ctx.supports("elicitation"):
        asks["user_name"] = elicit("What is your name?", NAME_FORM, ["name"])
    if not asks:
        return content_result(text("No input capability declared; nothing to ask"))
    return InputRequired(requests=asks)


@tool(description="Needs sampling: without the sampling capability the request fails with -32021.")
def test_missing_capability(ctx: ToolContext) -> ToolResult | InputRequired:
    if _answer(ctx, "question") is None:
        return input_required(question=sample("Say hello", 20))
    return content_result(text("sampled"))


@tool(description="Asks for input through an input_required result instead of a server-to-client request.")
def test_streaming_elicitation(ctx: ToolContext) -> ToolResult | InputRequired:
    if _answer(ctx, "user_name") is None:
        return input_required(user_name=elicit("What is your name?", NAME_FORM, ["name"]))
    return content_result(text("Thanks"))


@tool(description="Samples the client's model with the given prompt (2026-07-28: input_required).")
def test_sampling(prompt: str, ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "sample")
    if answer is None:
        return input_required(sample=sample(prompt, 100))
    return content_result(text(f"LLM response: {_sampled_text(answer)}"))


@tool(description="Asks the user a question (2026-07-28: input_required).")
def test_elicitation(message: str, ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "answer")
    if answer is None:
        return input_required(answer=elicit(message, {"response": {"type": "string"}}, ["response"]))
    return content_result(text(f"User response: action={answer.get('action')}"))


@tool(description="Elicitation with default values (SEP-1034); 2026-07-28: input_required.")
def test_elicitation_sep1034_defaults(ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "defaults")
    if answer is None:
        return input_required(
            defaults=elicit(
                "Please review and update the form fields with defaults",
                {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {
                        "type": "string",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active",
                    },
                    "verified": {"type": "boolean", "default": True},
                },
            )
        )
    return content_result(text(f"Elicitation completed: action={answer.get('action')}"))


@tool(description="Elicitation with enum schemas (SEP-1330); 2026-07-28: input_required.")
def test_elicitation_sep1330_enums(ctx: ToolContext) -> ToolResult | InputRequired:
    answer = _answer(ctx, "enums")
    if answer is None:
        return input_required(
            enums=elicit(
                "Please select options from the enum fields",
                {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {
                        "type": "string",
                        "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                        ],
                    },
                    "untitledMulti": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["option1", "option2"]},
                    },
                },
            )
        )
    return content_result(text(f"Elicitation completed: action={answer.get('action')}"))


MRTR_TOOLS: list[ToolSpec[..., Any]] = [
    test_elicitation_sep1034_defaults,
    test_elicitation_sep1330_enums,
    test_input_required_result_elicitation,
    test_input_required_result_sampling,
    test_input_required_result_list_roots,
    test_input_required_result_request_state,
    test_input_required_result_multiple_inputs,
    test_input_required_result_multi_round,
    test_input_required_result_tampered_state,
    test_input_required_result_capabilities,
    test_missing_capability,
    test_streaming_elicitation,
    test_sampling,
    test_elicitation,
]
