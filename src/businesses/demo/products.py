"""Product search tools (deterministic demo catalogue)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import ToolContext, ToolResult, entities, tool

CATALOGUE = [
    {"product_id": "p-1001", "name": "Ceramic coffee cup", "price": 39.0, "in_stock": True},
    {"product_id": "p-1002", "name": "Insulated travel cup", "price": 89.5, "in_stock": True},
    {"product_id": "p-1003", "name": "Glass tea cup set", "price": 129.0, "in_stock": False},
    {"product_id": "p-2001", "name": "Cotton travel pillow", "price": 59.0, "in_stock": True},
]


@tool(
    description=(
        "Use when the user wants to find products in the shop by keyword, e.g. 'cup'. "
        "Returns a product list the user can pick from. Not for checking an order's status."
    ),
    annotations={"title": "Search products", "readOnlyHint": True, "openWorldHint": False},
    safe_fields=("keyword", "limit"),
)
def search_products(
    keyword: Annotated[
        str, Field(min_length=1, max_length=50, description="Words to search product names for.")
    ],
    ctx: ToolContext,
    limit: Annotated[int, Field(ge=1, le=20, description="At most this many products (1-20).")] = 10,
) -> ToolResult:
    words = keyword.lower().split()
    found = [p for p in CATALOGUE if all(w in p["name"].lower() for w in words)][:limit]
    product_list = {
        "entity_type": "product_list",
        "list_id": f"products-{'-'.join(words)}",
        "keyword": keyword,
        "products": found,
    }
    return entities([product_list], text=f"Found {len(found)} products for '{keyword}'.")
