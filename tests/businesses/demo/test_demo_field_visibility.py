"""Who sees which of the demo's fields: `supplier_cost_yuan` only for a caller granted `catalogue:costs`, and the
card's hidden values (`detail_url`, the undeclared `image_url`) only for clients that render cards."""

from __future__ import annotations

import pytest

from businesses.demo import BUSINESS
from mcp_lambda.testing import Identity, McpTestClient

CARDS = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}
CUPS = {"keyword": "cup"}


def _products(client: McpTestClient) -> list[dict[str, object]]:
    [found] = client.call_tool("search_products", CUPS).entities
    return list(found["products"])  # type: ignore[call-overload]


@pytest.mark.parametrize("era", ["2026-07-28", "2024-11-05"])
def test_the_supplier_cost_reaches_only_a_caller_granted_its_scope(era: str) -> None:
    staff, shopper = Identity("staff", ("catalogue:costs",)), Identity("shopper")
    settings = {"auth_mode": "apigateway"}
    with (
        McpTestClient(BUSINESS, era, settings=settings, caller=staff, capabilities=CARDS) as as_staff,
        McpTestClient(BUSINESS, era, settings=settings, caller=shopper, capabilities=CARDS) as as_shopper,
    ):
        for_staff, for_shopper = _products(as_staff), _products(as_shopper)
        staff_text = as_staff.call_tool("search_products", CUPS).text

    assert all(isinstance(item["supplier_cost_yuan"], int) for item in for_staff)
    assert '"supplier_cost_yuan"' in staff_text
    assert not any("supplier_cost_yuan" in item for item in for_shopper)


def test_without_authentication_no_caller_gets_the_supplier_cost() -> None:
    with McpTestClient(
        BUSINESS, caller=Identity("staff", ("catalogue:costs",)), capabilities=CARDS
    ) as client:
        assert not any("supplier_cost_yuan" in item for item in _products(client))


@pytest.mark.parametrize(
    ("era", "capabilities", "card_data"),
    [("2024-11-05", None, True), ("2026-07-28", CARDS, True), ("2026-07-28", {}, False)],
    ids=["the platform", "an MCP Apps host", "a client without cards"],
)
def test_the_card_data_reaches_only_clients_that_render_cards(
    era: str, capabilities: dict[str, object] | None, card_data: bool
) -> None:
    with McpTestClient(BUSINESS, era, capabilities=capabilities) as client:
        products = _products(client)

    assert all(("detail_url" in item and "image_url" in item) is card_data for item in products)
    assert all("product_id" in item and "price_yuan" in item for item in products)  # the model's own fields
