"""What every Python framework driver shares: the scripted model's plan and the report it prints.

The drivers run in `.venv-agents` (the frameworks' own pins), one process each, and print one JSON line on stdout;
tests/agents reads it. The scripted model sees only what the framework hands it (a tool's output as the framework
renders it for the model) and takes the product_id for `subscribe_product` from that text, as a model would.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from importlib import metadata
from typing import Any

ROUTE = {"origin": "guomao", "destination": "sanlitun"}
# search_routes declares an outputSchema: its error result must survive a client that validates against it.
SAME_PLACE = {"origin": "guomao", "destination": "guomao"}
SEARCH = {"keyword": "cup"}
TRIP = {"stops": ["guomao", "forbidden_city", "sanlitun"], "file_format": "ics"}
PRODUCT_ID = re.compile(r"\bp-\d{4}\b")

Call = tuple[str, dict[str, Any]]


def as_text(output: Any) -> str:
    """A tool output as the model reads it: text blocks joined, anything else as JSON."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(item, dict) and "text" in item for item in output):
        return "\n".join(str(item["text"]) for item in output)
    if isinstance(output, dict) and output.get("type") == "text" and "text" in output:
        return str(output["text"])
    return json.dumps(output, ensure_ascii=False, default=str)


class Script:
    """The scripted model: one tool call per check, each decided from what the model has read so far."""

    def __init__(self) -> None:
        self.reads: dict[str, str] = {}
        self.product_id: str | None = None
        self._steps: list[tuple[str, Callable[[], Call | None]]] = [
            ("call", lambda: ("search_routes", ROUTE)),
            ("error", lambda: ("search_routes", SAME_PLACE)),
            ("search", lambda: ("search_products", SEARCH)),
            ("subscribe", self._subscribe),
            ("task", lambda: ("export_trip_plan", TRIP)),
        ]
        self._pending: str | None = None

    def _subscribe(self) -> Call | None:
        found = PRODUCT_ID.search(self.reads.get("search", ""))
        if found is None:
            return None  # nothing the model read names a product: it cannot subscribe
        self.product_id = found.group(0)
        return (
            "subscribe_product",
            {"product_id": self.product_id, "alert": "price_drop", "target_price_yuan": 1},
        )

    def next_call(self, last_output: Any = None) -> Call | None:
        """The next tool call, after reading `last_output` (the previous call's output as the model got it)."""
        if self._pending is not None:
            self.reads[self._pending] = as_text(last_output)
            self._pending = None
        while self._steps:
            step, decide = self._steps.pop(0)
            call = decide()
            if call is not None:
                self._pending = step
                return call
        return None

    def report(self) -> dict[str, Any]:
        """What the model read at each step, and the id it took from the search."""
        return {"reads": self.reads, "product_id": self.product_id}


def version_of(*packages: str) -> dict[str, str]:
    """The installed versions of `packages`."""
    return {package: metadata.version(package) for package in packages}


def emit(report: dict[str, Any]) -> None:
    """Print the report as the one line on stdout."""
    sys.stdout.write(json.dumps(report, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
