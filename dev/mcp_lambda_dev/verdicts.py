"""What one tool call came to, in the words `make simulate` and the simulator page both use.

valid         the tool ran and its result honours the manifest
error_result  the tool ran and answered an error result (a business error), which honours the manifest
invalid       the result (or the error object) breaks the manifest
not_run       the call failed before the tool ran (a JSON-RPC error, refused arguments, a rate limit or quota)
failed        the tool ran and failed (an internal error, a missing secret, a dependency down)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mcp_lambda.tools.results import ResultCode, error_advice

VERDICTS = ("valid", "error_result", "invalid", "not_run", "failed")
# The server's `outcome` log field of a call whose tool never ran, and of one whose tool ran and failed.
NOT_RUN_OUTCOMES = frozenset({"invalid_arguments", "rate_limited", "quota_exceeded"})
FAILED_OUTCOMES = frozenset({"system_error"})


def verdict_of(
    result: Mapping[str, Any],
    violations: Sequence[str],
    log: Sequence[Mapping[str, Any]] = (),
    rpc_error: bool = False,
) -> str:
    """One of VERDICTS for a tools/call.

    Args:
        result: The tool result as received (`content`, `structuredContent`, `isError`); empty after an error.
        violations: What the manifest check found wrong with it.
        log: The call's server log lines; the last `mcp_tool_call_finished`/`_failed` line's outcome decides,
            else (no lines captured) the error result's code.
        rpc_error: Whether the call was answered with a JSON-RPC error instead of a result.

    Returns:
        The verdict.
    """
    finished = [
        line for line in log if line.get("event") in ("mcp_tool_call_finished", "mcp_tool_call_failed")
    ]
    outcome = finished[-1].get("outcome") if finished else None
    error = error_summary(result)
    code = error["code"] if error else None
    if outcome is None and error is not None:
        outcome = _outcome_of_code(code)
    if rpc_error or outcome in NOT_RUN_OUTCOMES:
        return "not_run"
    if violations:
        return "invalid"
    if outcome in FAILED_OUTCOMES:
        return "failed"
    return "error_result" if error is not None else "valid"


def error_summary(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """What an error result says, for a person: code, family, retryable, suggested action, message, and the
    `details` object when the result carries one.

    Args:
        result: The tool result as received.

    Returns:
        None when `result` is not an error result; the result's own `retryable` / `suggested_action` where it
        sends them, else the advice its code's family implies.
    """
    if result.get("isError") is not True:
        return None
    structured = result.get("structuredContent")
    error = structured if isinstance(structured, Mapping) else {}
    code = error.get("code")
    numeric: int | None = code if isinstance(code, int) and not isinstance(code, bool) else None
    retryable, action = error_advice(numeric) if numeric is not None else (None, None)
    summary = {
        "code": code,
        "family": f"{numeric // 100}xx" if numeric is not None else None,
        "retryable": error.get("retryable", retryable),
        "suggested_action": error.get("suggested_action", action),
        "message": error.get("message"),
    }
    if "details" in error:
        summary["details"] = error["details"]
    return summary


def _outcome_of_code(code: Any) -> str:
    if code in (ResultCode.INVALID_ARGUMENTS, ResultCode.RATE_LIMITED):
        return "invalid_arguments" if code == ResultCode.INVALID_ARGUMENTS else "rate_limited"
    if isinstance(code, int) and 500 <= code // 100 <= 599:
        return "system_error"
    return "business_error"
