"""ExactlyOnceCalls: runs a tools/call through the executor, once per key, on Powertools Idempotency's persistence.

A call is keyed when its tool runs exactly once (`ToolSpec.runs_exactly_once`) and it carries a key (`_meta`
tool_call_id or the Idempotency-Key header), or when its tool has a dedupe window (the key is then its arguments).
The key is scoped by business (the record prefix), caller principal and tool name. Only final results are stored
(success and business errors); anything else deletes the claim, so a retry runs again. Answers:

- first call: runs, stores, returns its result;
- same key, same arguments: the stored result without running (`outcome: replayed`), identical but for its
  `_meta`, which adds the replay marker (`META_REPLAY`: when the first run finished);
- same key, other arguments: error result 40900, nothing runs;
- same key while the first call is still running: error result 40910, retryable;
- the store unreachable: error result 50030, retryable, nothing runs (if it fails only after the tool ran, the
  caller still gets that result and the claim expires with the request's deadline, plus `CLAIM_GRACE_MS`).

Every retry of one key is one logical call with one execution id (`_meta` and both log lines): derived from the
key under the log fingerprint key, and stored with the result, so a replay answers the first run's id even from a
container with another key. A replay's log lines also name the first attempt's `request_id` (`first_request_id`)
and carry on its trace id (`trace_id`; the retry's own is `own_trace_id`). A key on a call that runs unguarded (a
read-only tool) gets its execution id the same way, so its retries join too.

Powertools' decorator is synchronous and calls its function itself; the tool is a coroutine, so `claims.Claim` takes
the decorator's steps on the persistence layer's public API, and the tool is awaited here (no thread hop).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..aws import failure_reason
from ..deadlines import Deadline
from ..observability import current_correlation_id
from ..stores.exactly_once.base import IdempotencyStore
from ..tools import InputRequired, ToolContext, ToolResult, ToolSpec
from ..tools.results import META_REPLAY, ResultCode, system_error
from .executor import EXECUTION_ID_PREFIX, ToolExecutor
from .fingerprints import LogFingerprints

if TYPE_CHECKING:
    from .claims import Claim

# The outcomes whose results are final and replayed to a retry; a failure or an input_required round is not.
STORED_OUTCOMES = frozenset({"success", "business_error"})
IN_PROGRESS_RETRY_AFTER_MS = 1000
# The in-progress claim's life when neither a deadline nor a Lambda context is known.
DEFAULT_INVOCATION_MS = 30_000
# A claim outlives its request's deadline by this much: the answer margin, and clock skew between containers.
CLAIM_GRACE_MS = 2_000
FINGERPRINT_CHARS = 12
EXECUTION_ID_CHARS = 16


def _key_hash(key: Any) -> str:
    """Powertools' hash of a record's key (sha256 of its sorted-keys JSON)."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def execution_id_of(fingerprints: LogFingerprints, key_hash: str) -> str:
    """The execution id of every call under one key: keyed, so it neither reveals nor lets a reader test the key."""
    return EXECUTION_ID_PREFIX + fingerprints.of("execution:" + key_hash, EXECUTION_ID_CHARS)


@dataclass(frozen=True)
class CallKey:
    """What the request says about who calls and under which key (`key_source` names where the key came from)."""

    principal: str | None = None
    key: str | None = None
    key_source: str = "tool_call_id"
    lambda_context: Any = None


@dataclass(frozen=True)
class _Claim:
    """The payload Powertools hashes (`key`) and validates (`arguments`), and how long its result is kept."""

    payload: dict[str, Any]
    expires_after_seconds: int
    source: str

    @property
    def record_hash(self) -> str:
        """The record's own hash (Powertools: sha256 of the sorted-keys JSON of the key)."""
        return _key_hash(self.payload["key"])

    def fingerprint(self, fingerprints: LogFingerprints) -> str:
        """Joins the log lines of a call and its replays without logging the key: keyed, because the key holds
        the principal and the logged tool name and tool_call_id, which would let a reader test a guessed one."""
        return fingerprints.of(self.record_hash, FINGERPRINT_CHARS)


class _ClaimLife:
    """What Powertools reads as the invocation's remaining time when it dates a claim's in-progress expiry.

    The request's deadline plus `CLAIM_GRACE_MS`, never past the Lambda context's own end: by then the invocation
    has answered (and given back or completed its claim) or died, so a claim left behind frees its key for a retry
    about when the answer was due, not when the function's timeout (up to 900 s for task workers) would have run
    out. Without a deadline or a context (an app served outside Mangum), `DEFAULT_INVOCATION_MS`.
    """

    def __init__(self, lambda_context: Any, deadline: Deadline) -> None:
        self.lambda_context = lambda_context
        self.deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        ends: list[int] = []
        if math.isfinite(self.deadline.at):
            ends.append(self.deadline.remaining_ms() + CLAIM_GRACE_MS)
        getter = getattr(self.lambda_context, "get_remaining_time_in_millis", None)
        remaining = getter() if callable(getter) else None
        if isinstance(remaining, int | float):
            ends.append(int(remaining))
        return min(ends) if ends else DEFAULT_INVOCATION_MS


class ExactlyOnceCalls:
    def __init__(
        self, executor: ToolExecutor, store: IdempotencyStore, business: str, ttl_seconds: int
    ) -> None:
        self.executor = executor
        self.store = store
        self.key_prefix = f"mcp-{business}"
        self.ttl_seconds = ttl_seconds

    def claim(self, spec: ToolSpec, arguments: Mapping[str, Any], caller: CallKey) -> _Claim | None:
        """The call's claim, or None when it runs unguarded (a read-only tool, or no key and no dedupe window)."""
        if not spec.runs_exactly_once:
            return None
        principal = caller.principal or "anonymous"
        key: list[Any]
        if caller.key is not None:
            key = [principal, spec.name, caller.key_source, caller.key]
            expires, source = self.ttl_seconds, caller.key_source
        elif spec.dedupe_window_seconds is not None:
            key = [principal, spec.name, "arguments", dict(arguments)]
            expires, source = spec.dedupe_window_seconds, "arguments"
        else:
            return None
        return _Claim({"key": key, "arguments": dict(arguments)}, expires, source)

    async def run(
        self, spec: ToolSpec, arguments: Mapping[str, Any], ctx: ToolContext, caller: CallKey
    ) -> ToolResult | InputRequired:
        claim = self.claim(spec, arguments, caller)
        fingerprints = self.executor.fingerprints
        if claim is None:
            if caller.key is None:
                return await self.executor.run(spec, arguments, ctx)
            key = [caller.principal or "anonymous", spec.name, caller.key_source, caller.key]
            joined = {"execution_id": execution_id_of(fingerprints, _key_hash(key))}
            return (await self.executor.execute(spec, arguments, ctx, joined)).result
        from . import claims  # Powertools Idempotency (and boto3): loaded by the first keyed call

        started = time.perf_counter()
        fields: dict[str, Any] = {
            "execution_id": execution_id_of(fingerprints, claim.record_hash),
            "key_fingerprint": claim.fingerprint(fingerprints),
            "key_source": claim.source,
        }
        held = claims.Claim(
            claim.payload,
            claim.expires_after_seconds,
            self.store.layer(claim.expires_after_seconds),
            self.key_prefix,
            _ClaimLife(caller.lambda_context, ctx.deadline),
        )
        tool = f"Tool '{spec.name}'"
        error_type: str | None
        try:
            stored = held.take()  # claims the key, or answers what the key already holds
        except claims.IdempotencyValidationError:
            outcome, error_type = "invalid_arguments", "KeyReused"
            message = f"{tool}: this {claim.source} was already used with other arguments; use a new one."
            result = system_error(ResultCode.KEY_REUSED, message)
        except claims.IdempotencyAlreadyInProgressError:
            outcome, error_type = "in_progress", "CallInProgress"
            message = (
                f"{tool}: a call with this {claim.source} is still running; retry shortly for its result."
            )
            result = system_error(
                ResultCode.CALL_IN_PROGRESS, message, retry_after_ms=IN_PROGRESS_RETRY_AFTER_MS
            )
        except Exception as exc:  # the store failed (Powertools wraps every persistence error): nothing ran
            outcome, error_type = "system_error", "IdempotencyStoreUnavailable"
            fields["store_error"] = _reason(exc)
            message = f"{tool}: the exactly-once store is unavailable, so the tool did not run; retry later."
            result = system_error(ResultCode.IDEMPOTENCY_STORE_UNAVAILABLE, message)
        else:
            if stored is claims.CLAIMED:
                return await self._execute(spec, arguments, ctx, fields, held)
            outcome, error_type, result = "replayed", None, _replayed(stored, fields)
        return self.executor.answered(spec, arguments, ctx, outcome, result, fields, error_type, started)

    async def _execute(
        self,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        fields: Mapping[str, Any],
        held: Claim,
    ) -> ToolResult | InputRequired:
        """The call holds the key: run the tool, then store its final result or give the key back."""
        executed = await self.executor.execute(spec, arguments, ctx, fields)
        result = executed.result
        try:
            if executed.outcome in STORED_OUTCOMES and isinstance(result, ToolResult):
                first = {
                    "execution_id": fields["execution_id"],
                    "request_id": ctx.correlation_id or current_correlation_id(ctx.logger),
                    "trace_id": ctx.trace.trace_id if ctx.trace is not None else None,
                    "finished_at": datetime.now(UTC)
                    .isoformat(timespec="milliseconds")
                    .replace("+00:00", "Z"),
                }
                wire = json.dumps(result.to_wire(), ensure_ascii=False, separators=(",", ":"))
                held.complete(wire, first)
            else:
                held.release()
        except Exception as exc:
            # The tool ran once and answered: that answer stands; the claim expires with this invocation.
            ctx.logger.warning(
                "idempotency_store_failed",
                extra={
                    "event": "idempotency_store_failed",
                    "tool_name": spec.name,
                    "outcome": executed.outcome,
                    "store_error": _reason(exc),
                    **fields,
                },
            )
        return result


def _replayed(stored: Mapping[str, Any], fields: dict[str, Any]) -> ToolResult:
    """The stored result with the replay marker in its `_meta`; `fields` (the replay's log fields) take the
    first attempt's execution id, request id and trace id, when the record has them."""
    wire = json.loads(stored["result"])
    recorded = stored.get("first")
    first: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    if first.get("execution_id"):
        fields["execution_id"] = first["execution_id"]
    if first.get("request_id"):
        fields["first_request_id"] = first["request_id"]
    if first.get("trace_id"):
        fields["trace_id"] = first["trace_id"]
    marker = {"firstFinishedAt": first["finished_at"]} if first.get("finished_at") else {}
    meta = wire.get("_meta") if isinstance(wire.get("_meta"), dict) else {}
    return ToolResult(
        content=wire.get("content", []),
        structured_content=wire.get("structuredContent"),
        is_error=wire.get("isError") is True,
        meta={**meta, META_REPLAY: marker},
    )


def _reason(exc: BaseException) -> str:
    """The failure class only (an AWS error code or an exception name), never a message, which may hold data."""
    cause = exc
    while type(cause).__module__.startswith("aws_lambda_powertools") and cause.__cause__ is not None:
        cause = cause.__cause__  # past Powertools' wrapper, to what the store raised
    return failure_reason(cause)
