"""Route planning tools (deterministic demo data)."""

from __future__ import annotations

import hashlib
from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import ToolContext, ToolResult, business_error, entities, tool

City = Annotated[str, Field(min_length=1, max_length=40, description="City name, e.g. 'Beijing'.")]


def _minutes(origin: str, destination: str) -> int:
    digest = hashlib.sha256(f"{origin}->{destination}".encode()).digest()
    return 60 + digest[0] * 2


@tool(
    description=(
        "Use when the user asks how to travel between two cities and wants a route to follow. "
        "Returns one route with duration and distance. Not for booking tickets."
    ),
    annotations={"title": "Search routes", "readOnlyHint": True, "openWorldHint": False},
    safe_fields=("origin", "destination"),
)
def search_routes(origin: City, destination: City, ctx: ToolContext) -> ToolResult:
    if origin.strip().lower() == destination.strip().lower():
        return business_error(40002, "origin and destination are the same city")
    minutes = _minutes(origin, destination)
    route = {
        "entity_type": "route",
        "route_id": f"route-{origin.lower()}-{destination.lower()}",
        "origin": origin,
        "destination": destination,
        "duration_minutes": minutes,
        "distance_km": round(minutes * 1.4, 1),
    }
    return entities([route], text=f"Found 1 route from {origin} to {destination}, about {minutes} minutes.")
