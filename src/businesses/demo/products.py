"""Shop tools: the seed's case 3 (a product list card the model may narrow) and case 4 (an action result)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Annotated, Literal

from pydantic import Field

from mcp_lambda.tools import (
    ResultStatus,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    entities,
    execution_result,
    tool,
)

from . import codes
from .catalogue import BY_ID, CATALOGUE, CATEGORY_HELP, Category
from .subscriptions import STORE, owner_of

Sort = Literal["relevance", "price_asc", "price_desc", "rating"]
SORT_HELP = (
    "'relevance' = catalogue order; 'price_asc' = cheapest first; 'price_desc' = most expensive first; "
    "'rating' = best rated first."
)
ProductId = Annotated[
    str, Field(pattern=r"^p-\d{4}$", description="A product_id from search_products, e.g. 'p-1001'.")
]


@tool(
    description=(
        "Use when the user wants to find or browse products in the shop, e.g. 'find me a thermos cup under "
        "150 yuan'. Shows a product list card; you may then narrow it to the items the user cares about. "
        "Not for checking orders or stock alerts (use subscribe_product to get notified)."
    ),
    annotations=ToolAnnotations(title="Search products", read_only=True, idempotent=True, open_world=False),
    safe_fields=("keyword", "category", "max_price_yuan", "sort", "limit"),
)
async def search_products(
    keyword: Annotated[
        str,
        Field(
            min_length=1, max_length=40, description="Words to look for in product names, e.g. 'thermos cup'."
        ),
    ],
    ctx: ToolContext,
    category: Annotated[Category | None, Field(description=f"Only this category. {CATEGORY_HELP}")] = None,
    max_price_yuan: Annotated[
        int | None,
        Field(
            ge=1, le=100_000, description="Only products at or below this price, in whole yuan (1-100000)."
        ),
    ] = None,
    sort: Annotated[Sort, Field(description=f"Order of the list. {SORT_HELP}")] = "relevance",
    limit: Annotated[int, Field(ge=1, le=10, description="At most this many products (1-10).")] = 5,
) -> ToolResult:
    words = keyword.lower().split()
    found = [
        product
        for product in CATALOGUE
        if product.matches(words)
        and (category is None or product.category == category)
        and (max_price_yuan is None or product.price_yuan <= max_price_yuan)
    ]
    if sort == "price_asc":
        found.sort(key=lambda product: product.price_yuan)
    elif sort == "price_desc":
        found.sort(key=lambda product: -product.price_yuan)
    elif sort == "rating":
        found.sort(key=lambda product: -product.rating)
    shown = found[:limit]
    query = f"{' '.join(words)}|{category}|{max_price_yuan}|{sort}|{limit}"
    out_of_stock = sum(not product.in_stock for product in shown)
    summary = f"Sorted by {sort.replace('_', ' ')}; {len(found)} matched."
    if out_of_stock:
        summary += f" {out_of_stock} of those shown are out of stock."
    product_list = {
        "list_id": "plist_" + hashlib.sha256(query.encode()).hexdigest()[:12],
        "entity_type": "product_list",
        "title": f"{len(shown)} products for '{keyword}'",
        "summary": summary,
        "keyword": keyword,
        "total_found": len(found),
        "products": [product.as_item() for product in shown],
    }
    if not shown:  # ran fine, found nothing: a status an agent branches on, not a title it would have to read
        text = f"No products matched '{keyword}'. Suggest other words or a wider price range."
        return entities([product_list], text=text, result_status=ResultStatus.NO_MATCH_FOUND)
    return entities(
        [product_list], text=f"Found {len(found)} products for '{keyword}', showing {len(shown)}."
    )


@tool(
    description=(
        "Use when the user asks to be told when a product is back in stock or gets cheaper, e.g. 'let me know "
        "when the glass tea cup set is available'. Needs a product_id from search_products. Each call creates a "
        "subscription; a retry with the same tool_call_id returns the first call's subscription instead of "
        "creating another. Not for buying or reserving a product."
    ),
    annotations=ToolAnnotations(
        title="Subscribe to a product alert",
        read_only=False,
        destructive=False,
        idempotent=False,
        open_world=False,
    ),
    safe_fields=("product_id", "alert", "target_price_yuan"),
    scopes=["subscriptions:write"],
    # Each caller may create 20 alerts an hour across every container (docs/protection.md#quotas); the 21st call
    # gets 42900 with retry_after_ms. TOOL_QUOTAS changes it without a code change.
    quota="20/hour",
)
def subscribe_product(
    product_id: ProductId,
    alert: Annotated[
        Literal["restock", "price_drop"],
        Field(
            description="What to be told about. 'restock' = when an out-of-stock product is available again; "
            "'price_drop' = when the price falls to target_price_yuan or below."
        ),
    ],
    ctx: ToolContext,
    target_price_yuan: Annotated[
        int | None,
        Field(
            ge=1,
            le=100_000,
            description="Required for 'price_drop': notify at or below this price, in whole yuan (1-100000).",
        ),
    ] = None,
) -> ToolResult:
    product = BY_ID.get(product_id)
    if product is None:
        return business_error(codes.UNKNOWN_PRODUCT, f"No product with id {product_id}; search for it first.")
    if alert == "restock" and product.in_stock:
        return business_error(
            codes.ALREADY_IN_STOCK, f"{product.name} is already in stock; no alert is needed."
        )
    if alert == "price_drop" and target_price_yuan is None:
        return business_error(codes.TARGET_PRICE_REQUIRED, "A price_drop alert needs target_price_yuan.")
    if alert == "price_drop" and target_price_yuan is not None and target_price_yuan >= product.price_yuan:
        message = f"{product.name} already costs {product.price_yuan} yuan; choose a lower target price."
        # As data too: the agent can offer the highest valid target without parsing the message.
        details = {
            "current_price_yuan": product.price_yuan,
            "highest_valid_target_yuan": product.price_yuan - 1,
        }
        return business_error(codes.TARGET_PRICE_NOT_BELOW_CURRENT, message, details=details)
    # A fresh subscription per execution: a replayed retry shows the first call's id (exactly-once calls).
    subscription_id = "sub_" + secrets.token_hex(6)
    what = "is back in stock" if alert == "restock" else f"costs {target_price_yuan} yuan or less"
    message = f"Subscribed ({subscription_id}): you will be notified when {product.name} {what}."
    record: dict[str, str | int] = {
        "subscription_id": subscription_id,
        "product_id": product_id,
        "alert": alert,
    }
    if target_price_yuan is not None:
        record["target_price_yuan"] = target_price_yuan
    STORE.add(owner_of(ctx), record)
    result = {
        "success": True,
        "message": message,
        "subscription_id": subscription_id,
        "product_id": product_id,
        "alert": alert,
    }
    return execution_result(result, text=message)


@tool(
    description=(
        "Use when the user asks which product alerts they have, e.g. 'what am I subscribed to?'. Lists only "
        "this user's own subscriptions, newest last. Not for creating one (use subscribe_product)."
    ),
    annotations=ToolAnnotations(
        title="List my product alerts", read_only=True, idempotent=True, open_world=False
    ),
    scopes=["subscriptions:read"],
)
def list_subscriptions(ctx: ToolContext) -> ToolResult:
    mine = STORE.of(owner_of(ctx))
    items = []
    for record in mine:
        product = BY_ID[record["product_id"]]
        items.append({**record, "entity_type": "subscription", "product_name": product.name})
    if not items:
        return entities(
            [],
            text="No product alerts yet. Use subscribe_product to create one.",
            result_status=ResultStatus.NO_MATCH_FOUND,
        )
    return entities(items, text=f"{len(items)} product alert(s).")
