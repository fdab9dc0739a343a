"""Product alerts kept per caller: each caller lists only its own.

In memory, per container (what `make run` serves). A deployment keeps the same shape in DynamoDB: the caller's
principal (`ctx.caller.principal`) as the partition key and the subscription id as the sort key, so a query can
only ever return one caller's items.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from mcp_lambda.tools import ToolContext

# Without authentication (AUTH_MODE=none) every caller is the same anonymous one.
ANONYMOUS = "anonymous"
MAX_OWNERS = 10_000
MAX_PER_OWNER = 100


def owner_of(ctx: ToolContext) -> str:
    """Whose subscriptions a call sees: the authenticated caller's principal (issuer + subject), never a name."""
    return ctx.caller.principal if ctx.caller is not None else ANONYMOUS


class Subscriptions:
    """Subscriptions by owner, bounded (the least recently active owners are forgotten first)."""

    def __init__(self) -> None:
        self._by_owner: OrderedDict[str, dict[str, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, owner: str, subscription: dict[str, Any]) -> None:
        with self._lock:
            mine = self._by_owner.setdefault(owner, {})
            self._by_owner.move_to_end(owner)
            mine.pop(subscription["subscription_id"], None)
            mine[subscription["subscription_id"]] = dict(subscription)
            while len(mine) > MAX_PER_OWNER:
                del mine[next(iter(mine))]
            while len(self._by_owner) > MAX_OWNERS:
                self._by_owner.popitem(last=False)

    def of(self, owner: str) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(item) for item in self._by_owner.get(owner, {}).values()]


STORE = Subscriptions()  # one per container, like any in-memory cache of a Lambda
