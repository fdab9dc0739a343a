"""A long-running tool: exporting a multi-stop trip plan takes a few seconds, so it runs as a task.

For a client that declares the 2026-07-28 tasks extension the call answers a task at once and the export runs
in its own invocation (up to the function's full timeout), reporting progress as the task's status message and
stopping early when the client cancels; any other client waits for the result as usual.
"""

from __future__ import annotations

import hashlib
import time
from itertools import pairwise
from typing import Annotated, Literal

from pydantic import Field

from mcp_lambda.tools import (
    TaskConfig,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    enum_meanings,
    execution_result,
    tool,
)

from . import codes
from .places import PLACE_HELP, PLACES, PlaceId, TravelMode, plan

# Rendering one leg (map tiles, directions, the page) takes this long in the demo's stand-in renderer.
SECONDS_PER_LEG = 0.8


@tool(
    description=(
        "Use when the user wants their whole multi-stop Beijing trip as a document to keep or share, e.g. "
        "'export my day: Guomao, then the Forbidden City, then Sanlitun, as a PDF'. Renders every leg (map, "
        "directions, time and fare) into one PDF or calendar (ics) file and returns its download link; this "
        "takes a few seconds per leg. Not for looking up a single route (use search_routes) and not for booking."
    ),
    title="Export a trip plan",
    annotations=ToolAnnotations(read_only=True, idempotent=True, open_world=False),
    safe_fields=("stops", "travel_mode", "file_format"),
    task=TaskConfig(mode="optional"),
)
def export_trip_plan(
    stops: Annotated[
        list[PlaceId],
        Field(
            min_length=2,
            max_length=6,
            description=f"The places in visiting order, 2 to 6. One of: {PLACE_HELP}.",
        ),
    ],
    ctx: ToolContext,
    travel_mode: Annotated[
        TravelMode,
        Field(description="How to travel between the stops."),
        enum_meanings(
            {
                "taxi": "Ride-hailing car, door to door, priced by distance.",
                "transit": "Subway and airport express: cheapest, with walks to and from stations.",
                "driving": "The user's own car: fuel and parking estimated.",
            }
        ),
    ] = "transit",
    file_format: Annotated[
        Literal["pdf", "ics"], Field(description="'pdf' = printable plan, 'ics' = calendar.")
    ] = "pdf",
) -> ToolResult:
    legs = list(pairwise(stops))
    if any(origin == destination for origin, destination in legs):
        return business_error(codes.SAME_ORIGIN_AND_DESTINATION, "Two consecutive stops are the same place.")
    minutes = price = 0
    for number, (origin, destination) in enumerate(legs, start=1):
        if ctx.cancelled():
            return execution_result({"success": False, "message": "The export was cancelled."})
        ctx.report_progress(
            number - 1, total=len(legs), message=f"Rendering {PLACES[origin][0]} to {PLACES[destination][0]}"
        )
        route = plan(origin, destination, travel_mode)
        minutes, price = minutes + route.duration_minutes, price + route.price_yuan
        time.sleep(SECONDS_PER_LEG)
    # Idempotent: the same trip always names the same file.
    key = "|".join([*stops, travel_mode, file_format])
    export_id = "exp_" + hashlib.sha256(key.encode()).hexdigest()[:12]
    names = " → ".join(PLACES[stop][0] for stop in stops)
    message = f"Exported {len(legs)} legs ({names}): about {minutes} min and {price} yuan in all."
    result = {
        "success": True,
        "message": message,
        "export_id": export_id,
        "file_format": file_format,
        "download_url": f"https://files.example.com/trip-plans/{export_id}.{file_format}",
        "legs": len(legs),
        "total_minutes": minutes,
        "total_price_yuan": price,
    }
    return execution_result(result, text=message)
