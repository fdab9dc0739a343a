"""The call engine: how one `tools/call` runs once the protocol layer has found the tool.

- `executor.py` — `ToolExecutor`: the started line, quotas and rate limits, strict arguments, the tool under the
  deadline, the exception -> error result table, the result's checks, the finishing line and metrics.
- `exactly_once.py` (+ `claims.py`) — `ExactlyOnceCalls`: a keyed call runs once; a retry gets the first result.
- `quotas.py`, `rate_limits.py` — per-caller quotas across the fleet, per-container rate guards.
- `fingerprints.py` — keyed fingerprints that join log lines without logging what they stand for.
- `task_invoke.py` — the asynchronous self-invocation that runs a task's worker.

Nothing here is imported by a business: the authoring API is `mcp_lambda.tools`; state lives in `mcp_lambda.stores`.
"""
