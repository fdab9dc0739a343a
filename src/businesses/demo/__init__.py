"""The demo business: a travel-and-shop service showing the platform contract's cases."""

from mcp_lambda.tools import Business

from .products import search_products
from .routes import search_routes

BUSINESS = Business(
    name="demo",
    title="Demo travel & shop",
    version="0.1.0",
    instructions="Plan routes between cities and search the shop's products.",
    tools=[search_routes, search_products],
)
