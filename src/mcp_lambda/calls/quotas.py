"""Per-caller quotas across the fleet: `@tool(limits=CallLimits(quota="100/hour"))` counts each caller's calls of a tool in fixed
windows aligned to the epoch, in a store every container shares (`PROTECTION_STORE`).

A caller is `ctx.principal` (anonymous callers share one count), kept in a counter's key only as a SHA-256 hash,
the same in every container. One atomic counted write per call: a caller over the quota gets error result 42900
(`QuotaExceeded`) with `retry_after_ms` until the window ends, and each rejection is counted as the
`QuotaRejections` metric. A store that fails or does not answer in time lets the call through (fail open) with one
`quota_store_unavailable` warning: a quota is protection, not billing. `TOOL_QUOTAS` overrides the decorators.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping

from ..errors import StoreUnavailable, ToolFailure
from ..observability import write_count_metric
from ..settings import SettingsError
from ..stores.quotas import QuotaStore
from ..tools.options import Quota
from ..tools.spec import ToolSpec

ANONYMOUS = "anonymous"  # the one count anonymous callers share (never a hash: those are hex)
# A counter outlives its window this long: a container whose clock runs behind still finds it.
EXPIRY_SLACK_SECONDS = 300
REJECTIONS_METRIC = "QuotaRejections"
_HASH_PREFIX = b"mcp-lambda quota caller\x00"
_logger = logging.getLogger("mcp_lambda")


class QuotaExceeded(ToolFailure):
    """The caller used up this tool's quota for the current window; error result 42900 with `retry_after_ms`.

    Args:
        quota: The quota as declared, e.g. "100/hour".
        retry_after_ms: Milliseconds until the window ends and the count starts again.
    """

    def __init__(self, quota: str, retry_after_ms: int) -> None:
        super().__init__(f"quota {quota} used up")
        self.quota = quota
        self.retry_after_ms = retry_after_ms


def _now() -> float:
    return time.time()  # looked up per call, so a test can move this module's clock


def caller_hash(principal: str | None) -> str:
    """The caller as a counter's key holds it: "anonymous", or 32 hex digits of SHA-256 of the principal.

    Unkeyed so that every container derives the same counter; the principal itself never leaves the request.
    """
    if principal is None:
        return ANONYMOUS
    return hashlib.sha256(_HASH_PREFIX + principal.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def declared_quotas(
    tools: Iterable[ToolSpec], overrides: Mapping[str, str | None] | None, business: str
) -> dict[str, Quota]:
    """Each tool's quota: the decorator's `quota=`, unless `TOOL_QUOTAS` sets another or switches it off (null).

    Args:
        tools: The business's tools.
        overrides: The `TOOL_QUOTAS` setting (tool name -> "N/period" or None); None when unset.
        business: The business's name, for the error message.

    Returns:
        Tool name -> Quota, for the tools that have one.

    Raises:
        SettingsError: `TOOL_QUOTAS` names a tool the business does not have, or gives one a bad rate.
    """
    specs = {spec.name: spec for spec in tools}
    unknown = sorted(set(overrides or {}) - set(specs))
    if unknown:
        raise SettingsError(
            f"invalid configuration: TOOL_QUOTAS names {', '.join(map(repr, unknown))}, not a tool of business "
            f"'{business}' (its tools: {', '.join(sorted(specs)) or 'none'})"
        )
    quotas = {name: Quota.parse(spec.quota) for name, spec in specs.items() if spec.quota is not None}
    for name, text in (overrides or {}).items():
        if text is None:
            quotas.pop(name, None)
            continue
        try:
            quotas[name] = Quota.parse(text)
        except ValueError:
            raise SettingsError(
                f"invalid configuration: TOOL_QUOTAS: {name!r} is {text!r}, not a rate such as '100/hour' "
                "(or null to switch its quota off)"
            ) from None
    return quotas


class Quotas:
    """The business's quotas and the store that counts them, built on the first counted call.

    Args:
        quotas: Tool name -> Quota (`declared_quotas`).
        scope: What sets this business's counters apart in a shared table (its name).
        store: Builds the store on first use (boto3 is imported only then).
        clock: Epoch seconds now (default `time.time`).
    """

    def __init__(
        self,
        quotas: Mapping[str, Quota],
        scope: str,
        store: Callable[[], QuotaStore],
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.quotas = dict(quotas)
        self.scope = scope
        self._make_store = store
        self._store: QuotaStore | None = None
        self._clock = clock or _now

    @property
    def store(self) -> QuotaStore:
        if self._store is None:
            self._store = self._make_store()
        return self._store

    def check(self, tool_name: str, principal: str | None) -> None:
        """Count one call of `tool_name` by `principal` (a tool without a quota counts nothing).

        Raises:
            QuotaExceeded: The caller's count for this window is full; nothing was counted.
        """
        quota = self.quotas.get(tool_name)
        if quota is None:
            return
        now = self._clock()
        start, end = quota.window(now)
        key = f"quota#{self.scope}#{tool_name}#{caller_hash(principal)}#{start}"
        try:
            counted = self.store.hit(key, quota.limit, end + EXPIRY_SLACK_SECONDS)
        except StoreUnavailable as exc:
            _logger.warning(
                "quota_store_unavailable",
                extra={
                    "event": "quota_store_unavailable",
                    "tool_name": tool_name,
                    "reason": str(exc),
                    "effect": "the call is let through uncounted",
                },
            )
            return
        if not counted:
            write_count_metric(REJECTIONS_METRIC, self.scope, {"tool": tool_name})
            raise QuotaExceeded(quota.text, max(1, math.ceil((end - now) * 1000)))


def build_quotas(
    tools: Iterable[ToolSpec],
    overrides: Mapping[str, str | None] | None,
    business: str,
    store: Callable[[], QuotaStore],
    clock: Callable[[], float] | None = None,
) -> Quotas | None:
    """The business's Quotas, or None when no tool has one (the executor then counts nothing).

    Raises:
        SettingsError: `TOOL_QUOTAS` names a tool the business does not have.
    """
    quotas = declared_quotas(tools, overrides, business)
    return Quotas(quotas, business, store, clock) if quotas else None


__all__ = ["QuotaExceeded", "Quotas", "build_quotas", "caller_hash", "declared_quotas"]
