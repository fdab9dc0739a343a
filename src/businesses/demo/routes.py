"""Route tools: the seed's case 1 (a route card with history refresh) and case 2 (routes for the model only)."""

from __future__ import annotations

import dataclasses
import math
from datetime import date
from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import Access, ToolAnnotations, ToolContext, ToolResult, business_error, entities, tool

from . import codes
from .places import MODE_HELP, PLACE_HELP, PlaceId, TravelMode, plan, route_of

Origin = Annotated[PlaceId, Field(description=f"Where the trip starts. One of: {PLACE_HELP}.")]
Mode = Annotated[TravelMode, Field(description=f"How to travel. {MODE_HELP}")]


# Optional arguments render as plain types (no anyOf with null, no null default): the framework does that.
Destination = Annotated[
    PlaceId | None,
    Field(
        description=f"Where the trip ends. One of: {PLACE_HELP}. "
        "Leave it out if the user has not said; the tool then asks for it (code 40001)."
    ),
]
DepartureDate = Annotated[
    date | None,
    Field(description="Day of travel as YYYY-MM-DD (a real calendar date, e.g. 2026-08-01). Omit for today."),
]


# `async def` without `await`: these tools only compute, so they run as one step where the request is, with no
# worker-thread hand-off and no event loop to start (docs/tools.md).
# A tool that blocks (a client without asyncio, time.sleep) stays a plain `def` (see products.subscribe_product).
@tool(
    description=(
        "Use when the user asks how to get from one place in Beijing to another and wants a route to follow, "
        "e.g. 'how do I get from Guomao to the airport by taxi?'. Shows the user a route card with time, "
        "distance, fare and steps. Not for comparing several ways of travelling without a card (use "
        "search_routes_for_reference) and not for booking tickets or cars."
    ),
    annotations=ToolAnnotations(title="Search a route", read_only=True, idempotent=True, open_world=False),
    safe_fields=("origin", "destination", "travel_mode", "departure_date"),
)
async def search_routes(
    origin: Origin,
    ctx: ToolContext,
    destination: Destination = None,
    travel_mode: Mode = "taxi",
    departure_date: DepartureDate = None,
) -> ToolResult:
    if destination is None:
        return business_error(
            codes.MISSING_DESTINATION,
            "Missing destination: ask the user where they want to go.",
            suggested_action="ask_user",
        )
    if destination == origin:
        return business_error(codes.SAME_ORIGIN_AND_DESTINATION, "Origin and destination are the same place.")
    entity = plan(origin, destination, travel_mode, departure_date).as_entity()
    return entities([entity], text=f"Found 1 route: {entity['summary']}")


@tool(
    description=(
        "Use when you need route facts to answer or compare without showing a card, e.g. 'is the subway "
        "faster than a taxi from Zhongguancun to Beijing South?'. Returns one route per travel mode asked for, "
        "for you to compare. Not for showing the user a route to follow (use search_routes) and not for booking."
    ),
    annotations=ToolAnnotations(
        title="Compare routes (no card)", read_only=True, idempotent=True, open_world=False
    ),
    safe_fields=("origin", "destination", "travel_modes"),
)
async def search_routes_for_reference(
    origin: Origin,
    destination: Annotated[PlaceId, Field(description=f"Where the trip ends. One of: {PLACE_HELP}.")],
    ctx: ToolContext,
    travel_modes: Annotated[
        list[TravelMode],
        Field(
            min_length=1,
            max_length=3,
            description=f"The travel modes to compare (1 to 3, no repeats). {MODE_HELP}",
            json_schema_extra={"uniqueItems": True},
        ),
    ] = ["taxi", "transit", "driving"],  # noqa: B006 - pydantic copies defaults; the list is never mutated
) -> ToolResult:
    if destination == origin:
        return business_error(codes.SAME_ORIGIN_AND_DESTINATION, "Origin and destination are the same place.")
    modes = list(dict.fromkeys(travel_modes))
    routes = [plan(origin, destination, mode) for mode in modes]
    fastest = min(routes, key=lambda route: route.duration_minutes)
    cheapest = min(routes, key=lambda route: route.price_yuan)
    text = (
        f"Compared {len(routes)} ways: fastest is {fastest.mode} ({fastest.duration_minutes} min), "
        f"cheapest is {cheapest.mode} ({cheapest.price_yuan} yuan)."
    )
    return entities([route.as_entity() for route in routes], text=text)


# Road modes are slower with the traffic right now (the demo's stand-in for a live traffic feed).
TRAFFIC_SLOWDOWN = {"taxi": 0.25, "driving": 0.25, "transit": 0.0}


@tool(
    description=(
        "Use when the route card's Refresh button is pressed: re-plans the card's route with the traffic right "
        "now, from the card's route_id. App-only (visibility ['app']): the model never lists or calls it."
    ),
    annotations=ToolAnnotations(title="Refresh a route", read_only=True, open_world=False),
    safe_fields=("route_id",),
    access=Access(visibility=["app"]),
)
async def refresh_route(
    route_id: Annotated[str, Field(max_length=120, description="The route_id of the card's route.")],
    ctx: ToolContext,
) -> ToolResult:
    route = route_of(route_id)
    if route is None:
        return business_error(codes.UNKNOWN_ROUTE, "No such route: plan it again with search_routes.")
    delay = math.ceil(route.duration_minutes * TRAFFIC_SLOWDOWN[route.mode])
    now = dataclasses.replace(route, duration_minutes=route.duration_minutes + delay)
    entity = now.as_entity()
    entity["summary"] = f"With the traffic now: about {now.duration_minutes} min ({delay} min of delays)."
    return entities([entity], text=f"Refreshed: {entity['summary']}")
