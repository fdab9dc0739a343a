"""Our `dbx simulator eval`: call one tool through the real Lambda handler and show what the platform would do.

    python -m mcp_lambda_dev.simulate --business demo --tool search_products --args '{"keyword": "cup"}' [--format text|json]
                [--tool-call-id ID] [--scopes a,b]

Prints the ToolResult, the verdict, the server's warnings and errors for the call, the model-visible view, the
card candidates and the llm_modifiable lists. The verdict tells apart a call that failed before the tool ran
(NOT RUN: a JSON-RPC error, or arguments refused by the schema), a tool that ran and failed (FAILED: an internal
error, a missing secret), a result that breaks the manifest (INVALID) and a result that honours it (VALID, which
includes the tool's own business errors). Exits 0 only for VALID.
With a tool-call id the call carries it in `_meta` and is sent a second time, as an agent's retry: the report
says whether the retry was replayed (the tool did not run again) and whether its result is identical.
The call comes from a client that renders cards (as the platform does). Without `--scopes` the caller holds no
scope (as with AUTH_MODE=none): every field with `requires_scope` is removed. With `--scopes a,b` it is a caller
granted those scopes, through AUTH_MODE=apigateway and an authorizer context as API Gateway's JWT authorizer
passes it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any
from unittest import mock

from mcp_lambda.composition import BusinessNotFound
from mcp_lambda.errors import RequestRefused
from mcp_lambda.manifest import ManifestError, bind_manifest
from mcp_lambda.manifest.check import ToolCheck
from mcp_lambda.manifest.errors import did_you_mean
from mcp_lambda.manifest.visibility import delivered
from mcp_lambda.tools import ToolResult
from mcp_lambda.tools.results import META_EXECUTION_ID, META_REPLAY
from mcp_lambda_dev.businesses import load_business
from mcp_lambda_dev.inventory import demo_inventory
from mcp_lambda_dev.projection import card_candidates, model_view, modifiable_lists
from mcp_lambda_dev.verdicts import verdict_of

if TYPE_CHECKING:
    from mcp_lambda.testing import McpTestClient


class CannotSimulate(RequestRefused):
    """What stops a simulation before any call: its message is one line naming the fix."""


@contextlib.contextmanager
def environment(business_name: str) -> Iterator[None]:
    """BUSINESS for the handler's cold start, quieter logs and no metrics, restored afterwards (tests share the process)."""
    with mock.patch.dict(os.environ, {"BUSINESS": business_name}):  # put back as it was on the way out
        os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")  # as in make run: no EMF records shown
        yield


@contextlib.contextmanager
def recording_checks() -> Iterator[list[tuple[str, ToolResult, list[str]]]]:
    """Record what the server's manifest check saw: the tool's own result (before any rewrite) and its verdict.

    Patches the compiled check's class, which is looked up on every call, so it works however the app holds it.
    """
    seen: list[tuple[str, ToolResult, list[str]]] = []
    original = ToolCheck.__call__

    def spy(self: ToolCheck, result: ToolResult, scopes: Collection[str] = frozenset()) -> list[str]:
        violations = original(self, result, scopes)
        seen.append((self.tool, result, violations))
        return violations

    ToolCheck.__call__ = spy  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        ToolCheck.__call__ = original  # type: ignore[method-assign]


@contextlib.contextmanager
def server_log(service: str) -> Iterator[list[dict[str, Any]]]:
    """Every line the server logs for the call, as parsed JSON; only the level asked for still prints."""
    from mcp_lambda.observability import RedactingFormatter

    logger = logging.getLogger(service)
    shown = logger.getEffectiveLevel()
    lines: list[dict[str, Any]] = []
    formatter = RedactingFormatter()  # the JSON record, whatever LOG_FORMAT prints

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(formatter.format(record)))

    printing = [(handler, handler.level) for handler in logger.handlers]
    for handler, level in printing:
        handler.setLevel(max(level, shown))
    collect = Collect(logging.INFO)
    logger.addHandler(collect)
    logger.setLevel(min(shown, logging.INFO))
    try:
        yield lines
    finally:
        logger.removeHandler(collect)
        logger.setLevel(shown)
        for handler, level in printing:
            handler.setLevel(level)


def simulated_client(scopes: Sequence[str] | None = None) -> McpTestClient:
    """A client of the real Lambda handler that renders cards, as a caller granted `scopes` (None: no caller).

    Args:
        scopes: The caller's scopes; None calls as the configured server does (AUTH_MODE=none: no scope).

    Returns:
        The client (no wire oracle: a result that breaks the rules is what the simulation reports).
    """
    from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE
    from mcp_lambda.testing import McpTestClient

    cards = {"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}}
    if scopes is None:
        from mcp_lambda.handler import handler

        return McpTestClient.over_handler(handler, capabilities=cards, oracle=False)
    from mcp_lambda.composition import build_runtime
    from mcp_lambda.lambda_adapter import lambda_handler
    from mcp_lambda.settings import Settings
    from mcp_lambda.testing import DEFAULT_ISSUER, Identity, authorizer_context

    env = {**os.environ, "AUTH_MODE": "apigateway", "AUTH_ISSUER": DEFAULT_ISSUER}
    scoped = lambda_handler(build_runtime(Settings.from_env(env)))
    caller = authorizer_context(Identity("simulator", tuple(scopes)))
    return McpTestClient.over_handler(scoped, capabilities=cards, authorizer=caller, oracle=False)


def call_through_handler(
    tool: str, arguments: dict[str, Any], tool_call_id: str | None = None, client: McpTestClient | None = None
) -> tuple[int, dict[str, Any]]:
    """A stateless 2026-07-28 tools/call as an API Gateway HTTP API event; the HTTP status and JSON-RPC reply."""
    client = client or simulated_client()
    meta = {"tool_call_id": tool_call_id} if tool_call_id else None
    reply = client.rpc("tools/call", {"name": tool, "arguments": arguments}, meta=meta, request_id=1)
    # A streamed reply may carry notifications first: the answer is the message with id 1.
    for message in reply.messages:
        if isinstance(message, dict) and message.get("id") == 1:
            return reply.status, message
    raise ValueError("no JSON-RPC reply in the response")


def evaluate(
    business_name: str,
    tool: str,
    arguments: dict[str, Any],
    tool_call_id: str | None = None,
    scopes: Sequence[str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report (the JSON keys of FORMAT=json, plus `replay` with a tool-call id) and extra detail for people
    (status, the tool's own result); `scopes` are the simulated caller's (None: no caller, no scope)."""
    from mcp_lambda.manifest.locate import manifest_path
    from mcp_lambda.settings import get_settings

    business = load_business(business_name)
    spec = business.tool(tool)
    if spec is None:
        known = [spec.name for spec in business.tools]
        raise CannotSimulate(
            f"business '{business.name}' has no tool '{tool}'{did_you_mean(tool, known)}; "
            f"known: {', '.join(known) or 'none'}"
        )
    # Server log lines go to stderr so that stdout stays one JSON document.
    # The demo's check_stock gets the stand-in inventory `make run` gives it, unless DEMO_INVENTORY_URL names one.
    with (
        environment(business_name),
        demo_inventory(business_name),
        contextlib.redirect_stdout(sys.stderr),
        recording_checks() as seen,
    ):
        path = manifest_path(get_settings(), business)
        if not path.exists():
            raise CannotSimulate(
                f"no manifest for business '{business.name}' at {path} (nor {path.with_suffix('.json').name}): "
                f"the verdict needs one; write it (docs/manifest.md) or set MANIFEST_DIR to the folder that has it"
            )
        bound = bind_manifest(business, path)
        import mcp_lambda.handler  # noqa: F401  (the cold start creates the server's logger)

        with server_log(business.name) as log:
            as_view = (
                not spec.model_visible
            )  # an app-only tool: only a card's view calls it (the client renders cards)
            client = simulated_client(scopes)
            status, reply = call_through_handler(tool, arguments, tool_call_id, client)
            if tool_call_id:
                checked = len(seen)  # the server checks every result it computes, never one it replays
                _, retry = call_through_handler(tool, arguments, tool_call_id, client)
                ran_again = len(seen) > checked
    granted = frozenset(scopes or ())
    detail: dict[str, Any] = {
        "http_status": status,
        "manifest": str(path),
        "rpc_error": reply.get("error"),
        "called_as_view": as_view,
    }
    result = reply.get("result") or {}
    detail["result_type"] = result.get("resultType")
    tool_result = {key: result[key] for key in ("content", "structuredContent", "isError") if key in result}
    if seen:
        _, raw, violations = seen[-1]
        # Even the tool's own result is shown as this caller may see it: no field its scopes do not grant.
        raw_wire = raw.to_wire()
        if "structuredContent" in raw_wire:
            shown = delivered(
                bound.manifest, tool, raw_wire["structuredContent"], granted, renders_cards=True
            )
            raw_wire["structuredContent"] = shown
        detail["raw_result"] = raw_wire
    elif "error" in reply:
        violations = [f"{tool}: the call failed with JSON-RPC error {reply['error'].get('code')}"]
    else:  # the server did not check (no manifest wired): check what it sent
        received = ToolResult(
            content=tool_result.get("content", []),
            structured_content=tool_result.get("structuredContent"),
            is_error=tool_result.get("isError") is True,
        )
        violations = bound.check(tool, received, granted)
    report = {
        "tool_result": tool_result,
        "verdict": verdict_of(tool_result, violations, log, rpc_error="error" in reply),
        "valid": not violations,
        "violations": violations,
        # What a person must see to fix a failed call (e.g. which secret is missing and where it was looked for).
        "server_log": [line for line in log if line.get("level") in ("WARNING", "ERROR", "CRITICAL")],
        "scopes": sorted(granted),
        "model_view": model_view(bound.manifest, tool, tool_result, granted) if tool_result else None,
        "cards": card_candidates(bound.manifest, tool, tool_result) if tool_result else [],
        "modifiable_lists": modifiable_lists(bound.manifest, tool, tool_result) if tool_result else [],
    }
    if tool_call_id:
        retried = retry.get("result") or {}
        retry_result = {
            key: retried[key] for key in ("content", "structuredContent", "isError") if key in retried
        }
        spec = business.tool(tool)
        first_meta, retry_meta = result.get("_meta") or {}, retried.get("_meta") or {}
        report["replay"] = {
            "tool_call_id": tool_call_id,
            "exactly_once": bool(spec and spec.runs_exactly_once),
            "replayed": not ran_again and "error" not in retry,
            "identical": retry_result == tool_result,
            "tool_result": retry_result,
            # What the retry's `_meta` tells the agent: the marker (and when the first run finished), the call's id.
            "marker": retry_meta.get(META_REPLAY),
            "execution_id": retry_meta.get(META_EXECUTION_ID),
            "same_execution_id": retry_meta.get(META_EXECUTION_ID) == first_meta.get(META_EXECUTION_ID),
        }
    return report, detail


def render_text(tool: str, arguments: dict[str, Any], report: dict[str, Any], detail: dict[str, Any]) -> str:
    out: list[str] = []
    call = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
    out.append(f"{tool}({call})  ->  HTTP {detail['http_status']}, resultType {detail['result_type']}")
    if detail.get("called_as_view"):
        out.append(
            f'{tool} is app-only (visibility ["app"]): called as a card\'s view calls it, declaring MCP Apps'
        )
    out.append(f"manifest: {detail['manifest']}")
    held = (
        ", ".join(report["scopes"]) or "none (fields with requires_scope are removed; SCOPES=a,b grants some)"
    )
    out.append(f"caller scopes: {held}\n")
    if detail["rpc_error"]:
        out.append(f"JSON-RPC error: {_dump(detail['rpc_error'])}\n")
    out += ["ToolResult (as the client received it)", _indent(_dump(report["tool_result"])), ""]
    raw = detail.get("raw_result")
    if raw is not None and raw != report["tool_result"]:
        out += ["The tool returned (rewritten by the manifest check)", _indent(_dump(raw)), ""]
    out += _verdict_lines(report, detail)
    if report["server_log"]:
        out.append("Server log (warnings and errors of this call)")
        out += [f"  {_log_line(line)}" for line in report["server_log"]] + [""]
    out += [
        "Model-visible view (declared fields with llm_visible not false)",
        _indent(_dump(report["model_view"])),
        "",
    ]
    out.append("Card candidates")
    for card in report["cards"]:
        history = card["history_card_refresh"]
        refresh = (
            "off" if not history or not history["enabled"] else f"{history['scope']}, {history['refresh_to']}"
        )
        out.append(
            f"  - entities[{card['entity_index']}] {card['entity_type']} id={card['entity_id']} -> widget "
            f"{card['widget_id']}, refresh_key={card['refresh_key']}, history refresh: {refresh}"
        )
    if not report["cards"]:
        out.append("  (none: no entity of this result has a tool_card_binding for this tool)")
    out.append("\nllm_modifiable lists (the model may keep a subset of these items, never add or edit)")
    for listed in report["modifiable_lists"]:
        out.append(
            f"  - entities[{listed['entity_index']}].{listed['field']}: {len(listed['items'])} item(s)"
        )
        out += [f"      [{item['index']}] {_dump(item['item'], indent=None)}" for item in listed["items"]]
    if not report["modifiable_lists"]:
        out.append("  (none)")
    replay = report.get("replay")
    if replay:
        out.append(f"\nRetry with the same tool_call_id {json.dumps(replay['tool_call_id'])}")
        if not replay["exactly_once"]:
            out.append(f"  {tool} is not exactly-once (read-only or exactly_once=False): the retry ran again")
        elif replay["replayed"]:
            out.append("  replayed: the tool did not run again")
        else:
            out.append("  ran again: the first result was not stored (only final results are)")
        same = "identical" if replay["identical"] else "DIFFERENT"
        out.append(f"  the result is {same} (content, structuredContent, isError)")
        if replay["marker"] is not None:
            out.append(f"  _meta marks it a replay: {_dump(replay['marker'], indent=None)}")
        joined = "the same as the first" if replay["same_execution_id"] else "NOT the first's"
        out.append(f"  execution id {replay['execution_id']}: {joined}")
        if not replay["identical"]:
            out.append(_indent(_dump(replay["tool_result"])))
    return "\n".join(out)


def _verdict_lines(report: dict[str, Any], detail: dict[str, Any]) -> list[str]:
    verdict = report["verdict"]
    structured = report["tool_result"].get("structuredContent") or {}
    if verdict == "valid":
        return ["Verdict: VALID - the tool ran and its result honours the manifest\n"]
    if verdict == "invalid":
        count = len(report["violations"])
        return [f"Verdict: INVALID - {count} violation(s)", *[f"  - {v}" for v in report["violations"]], ""]
    if detail["rpc_error"]:
        error = detail["rpc_error"]
        why = f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    else:
        why = f"code {structured.get('code')}: {structured.get('message')}"
    if verdict == "not_run":
        return [f"Verdict: NOT RUN - the call failed before the tool ran ({why})\n"]
    if verdict == "error_result":
        advice = (
            f"retryable {structured.get('retryable')}, suggested_action {structured.get('suggested_action')}"
        )
        if "details" in structured:  # what the agent can act on, as data
            advice += f", details {json.dumps(structured['details'], ensure_ascii=False)}"
        return [f"Verdict: ERROR RESULT - the tool ran and answered an error ({why}; {advice})\n"]
    return [f"Verdict: FAILED - the tool ran and failed ({why}); see the server log below\n"]


def _log_line(line: dict[str, Any]) -> str:
    skip = {"level", "location", "message", "timestamp", "service", "event", "cold_start", "function_name",
            "function_memory_size", "function_arn", "function_request_id", "correlation_id", "xray_trace_id",
            "request_id", "jsonrpc_id"}  # fmt: skip
    fields = " ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in line.items() if key not in skip
    )
    return f"{line.get('level')} {line.get('message')} {fields}".rstrip()


def _dump(value: Any, indent: int | None = 2) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def cannot(message: str) -> int:
    """Say on stderr, in one line, why nothing was simulated; the exit status of a usage error."""
    print(f"simulate: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--business", default=os.environ.get("BUSINESS", "demo"))
    parser.add_argument("--tool", required=True)
    parser.add_argument("--args", default="{}", help="the tool arguments as a JSON object")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--tool-call-id", default="", help="send the call with this tool_call_id, then retry it"
    )
    parser.add_argument("--scopes", default="", help="call as a caller granted these scopes (a,b)")
    options = parser.parse_args(argv)
    try:
        arguments = json.loads(options.args or "{}")
    except json.JSONDecodeError as exc:
        parser.error(f"--args is not JSON: {exc}")
    if not isinstance(arguments, dict):
        parser.error("--args must be a JSON object")
    try:
        scopes = [scope for scope in options.scopes.replace(",", " ").split() if scope] or None
        report, detail = evaluate(
            options.business, options.tool, arguments, options.tool_call_id or None, scopes
        )
    except (BusinessNotFound, CannotSimulate) as exc:
        return cannot(str(exc))
    except ManifestError as exc:
        return cannot(exc.summary())
    if options.format == "json":
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(render_text(options.tool, arguments, report, detail))
    return 0 if report["verdict"] == "valid" else 1


if __name__ == "__main__":
    sys.exit(main())
