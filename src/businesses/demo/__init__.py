"""The demo business: a Beijing travel-and-shop service acting out the platform contract's four cases.

search_routes (a route card with history refresh), search_routes_for_reference (the same entity, no card),
search_products (a product list card whose items the model may narrow), subscribe_product (an action result);
list_subscriptions shows each caller only its own alerts; check_stock asks a live inventory service over HTTP
(the downstream example, `stock`); refresh_route is the route card's Refresh button (app-only, never seen
by the model); export_trip_plan is a long-running export that runs
as a task for clients that take tasks. Error codes are in `codes`. The contract itself is manifest/demo.yaml.
"""

from pathlib import Path

from mcp_lambda.tools import Business
from mcp_lambda.tools.cards import CardAction, CardViews

from .exports import export_trip_plan
from .products import list_subscriptions, search_products, subscribe_product
from .routes import refresh_route, search_routes, search_routes_for_reference
from .stock import check_stock, reached

BUSINESS = Business(
    name="demo",
    title="Demo travel & shop",
    version="0.2.0",
    instructions=(
        "Plan routes between Beijing places (search_routes shows a route card; search_routes_for_reference "
        "compares travel modes without a card), search the shop (search_products) and subscribe to restock or "
        "price-drop alerts (subscribe_product); check_stock asks the live inventory how many of a product are left. "
        "export_trip_plan renders a multi-stop trip into a PDF or "
        "calendar file; it takes a few seconds, so clients that take tasks get a task to poll."
    ),
    tools=[
        search_routes,
        search_routes_for_reference,
        search_products,
        subscribe_product,
        list_subscriptions,
        check_stock,
        export_trip_plan,
        refresh_route,
    ],
    # plan-a-day-out and shop-with-alerts: how an agent should use these tools (served over MCP, SEP-2640).
    skills=Path(__file__).with_name("skills"),
    secrets=[],  # its tools read no secret: the test kit refuses any, make smoke checks none
    # ctx.http reaches the inventory DEMO_INVENTORY_URL names, and nothing else (docs/tools.md, "Egress").
    egress=reached,
    # MCP Apps hosts (Claude, ChatGPT, VS Code, ...) show the manifest's cards as views (docs/cards.md): the
    # generic view for both widgets, images from the two image hosts, and a Refresh button on the route card.
    card_views=CardViews(
        directory=Path(__file__).parent / "views",
        image_domains=("https://img.example.com", "https://maps.example.com"),
        actions={
            "route_result_card": [
                CardAction(
                    tool="refresh_route", label="Refresh with traffic", arguments={"route_id": "route_id"}
                )
            ]
        },
    ),
)
