"""The downstream example: check_stock reads `{DEMO_INVENTORY_URL}/stock/{product_id}` through `ctx.http`.

What the framework does for it: per-attempt timeouts capped by the request deadline, retries of this idempotent
GET on 429/5xx and lost connections, a circuit breaker for the inventory's host, and one log line per call. The
tool leaves those failures to the framework on purpose: an unreachable or failing inventory (5xx after the
retries) and an open circuit are error result 50300, a too-slow one 50400, each retryable with `retry_after_ms`
(the time the circuit stays open, when it is), which is what an agent needs to decide to wait or move on. The
tool answers itself only what the inventory said: a 404 (the product is unknown), an answer it cannot read, and
no inventory configured at all.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from mcp_lambda.tools import ToolAnnotations, ToolContext, ToolResult, business_error, entities, tool

from . import codes
from .catalogue import BY_ID
from .products import ProductId
from .settings import inventory_url

NOT_CONFIGURED = (
    "Stock levels cannot be checked: this server has no inventory service configured. Tell the user the stock "
    "level is unknown for now; search_products still shows whether a product is in stock."
)


@tool(
    description=(
        "Use when the user asks whether a product is in stock right now, or how many are left, e.g. 'are there "
        "still large thermos cups?'. Needs a product_id from search_products; asks the live inventory. Not for "
        "being told when a product is back (use subscribe_product) and not for reserving or buying."
    ),
    annotations=ToolAnnotations(title="Check stock", read_only=True, idempotent=True, open_world=True),
    safe_fields=("product_id",),
)
def check_stock(product_id: ProductId, ctx: ToolContext) -> ToolResult:
    base_url = _inventory(ctx)
    if base_url is None:
        return business_error(
            codes.INVENTORY_NOT_CONFIGURED,
            NOT_CONFIGURED,
            retryable=False,
            suggested_action="skip_and_continue",
        )
    # The pattern allows no slash or dot already; quoting keeps the path one segment whatever the pattern says.
    answer = ctx.http.get(
        f"{base_url}/stock/{urllib.parse.quote(product_id, safe='')}", interface="inventory.get_stock"
    )
    if answer.status == 404:
        return business_error(
            codes.UNKNOWN_PRODUCT, f"No product with id {product_id} in the inventory; search for it first."
        )
    quantity = _quantity(answer.body) if answer.ok else None
    if quantity is None:
        ctx.logger.warning(
            "demo_inventory_bad_answer",
            extra={"event": "demo_inventory_bad_answer", "http_status": answer.status},
        )
        return business_error(
            codes.INVENTORY_BAD_ANSWER,
            f"The inventory could not answer for {product_id} (HTTP {answer.status}). Tell the user the stock "
            "level is unknown for now.",
            retryable=False,
            suggested_action="skip_and_continue",
        )
    product = BY_ID.get(product_id)
    name = product.name if product else product_id
    stock = {
        "product_id": product_id,
        "entity_type": "stock_level",
        "product_name": name,
        "quantity": quantity,
        "in_stock": quantity > 0,
    }
    text = f"{name}: {quantity} in stock." if quantity else f"{name} is out of stock."
    return entities([stock], text=text)


def reached() -> list[str]:
    """What the demo reaches with `ctx.http` (its `Business(egress=...)`, read at cold start): the inventory
    `DEMO_INVENTORY_URL` names; nothing when it is unset or malformed (check_stock then answers 50101)."""
    try:
        url = inventory_url()
    except ValueError:
        return []
    return [url] if url else []


def _inventory(ctx: ToolContext) -> str | None:
    """The inventory's base URL; None when it is unset or malformed (a log line tells the operator)."""
    try:
        url = inventory_url()
    except ValueError as exc:
        ctx.logger.error(
            "demo_inventory_misconfigured",
            extra={"event": "demo_inventory_misconfigured", "problem": str(exc)},
        )
        return None
    if url is None:
        ctx.logger.warning(
            "demo_inventory_not_configured",
            extra={"event": "demo_inventory_not_configured", "problem": "DEMO_INVENTORY_URL is not set"},
        )
    return url


def _quantity(body: Any) -> int | None:
    """The inventory's `{"quantity": n}`, a whole number >= 0; None for anything else."""
    quantity = body.get("quantity") if isinstance(body, dict) else None
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 0:
        return None
    return quantity
