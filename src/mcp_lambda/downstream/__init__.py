"""`ctx.http`: outbound HTTP for tools, and the machinery under the platform OpenAPI client.

- urllib3 (pooled connections; in the package anyway: botocore depends on it).
- Timeouts: `HTTP_TIMEOUT_MS` per attempt, capped by the request deadline; the whole call runs on a worker thread
  and is waited for at most until the deadline, so neither a trickling body nor a slow DNS lookup can hold it.
- Retries: `HTTP_MAX_ATTEMPTS` in all, with exponential backoff and full jitter, on 429/5xx and read errors for
  idempotent calls only (by method, unless `idempotent=` says otherwise); a connection that could not be opened is
  retried for every call (the request never left). No retry and no backoff sleep runs past the deadline.
- A circuit breaker per host (Powertools' circuit breaker, `circuits.HostCircuits`), its state in the store
  `PROTECTION_STORE` names: one process (`mcp_lambda.stores.circuits.memory`), or the protection table, shared by
  every container (`mcp_lambda.stores.circuits.dynamodb`). After `CIRCUIT_FAILURE_THRESHOLD` consecutive failures it
  opens for `CIRCUIT_RESET_MS` (whole seconds), and calls fail at once with CircuitOpen (error result 50300 with
  `retry_after_ms` = the time left open) without touching the host; then one trial call decides for all. A
  container trusts the state it read for `CIRCUIT_CACHE_SECONDS`. Each transition is logged once
  (`downstream_circuit_changed`) and counted (`CircuitOpened`, `CircuitClosed`). See docs/protection.md.
- Egress by declaration (`egress.EgressPolicy`): only declared hosts, each hop resolved once and checked before
  it connects (link-local and metadata addresses never; private ones only inside a declared network), redirects
  checked hop by hop; a refusal (`EgressRefused`, error result 40310) is logged (`downstream_refused`), never
  retried and never counted by the circuit. The caller's token goes only to a downstream declared as accepting it
  (`CallerHttp`, what a tool gets as `ctx.http`).
- One log line per call with the fields of doubao-protocol.md §5 — `interface`, `host`, `method`, `http_status`,
  `business_code`, `duration_ms`, `log_id`, `attempts` — and never a header value, a query or a body.

A tool that does not catch them gets: DownstreamUnavailable (refused, reset, 5xx after the retries, circuit open)
→ error result 50300; DownstreamTimeout (no complete answer in time) → 50400. Any answer below 500 is the tool's.
"""

from .client import IDEMPOTENT_METHODS, RETRY_STATUSES, CallerHttp, HttpClient, HttpResponse, parse_answer
from .egress import Egress, EgressDeclarationError, EgressPolicy
from .errors import (
    CircuitOpen,
    DownstreamError,
    DownstreamTimeout,
    DownstreamUnavailable,
    EgressRefused,
    ResponseTooLarge,
)

__all__ = [
    "IDEMPOTENT_METHODS",
    "RETRY_STATUSES",
    "CallerHttp",
    "CircuitOpen",
    "DownstreamError",
    "DownstreamTimeout",
    "DownstreamUnavailable",
    "Egress",
    "EgressDeclarationError",
    "EgressPolicy",
    "EgressRefused",
    "HttpClient",
    "HttpResponse",
    "ResponseTooLarge",
    "parse_answer",
]
