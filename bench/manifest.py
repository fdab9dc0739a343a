"""Cost of the run-time manifest check on typical demo results (µs per result), printed for `make bench`."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import timeit

from mcp_lambda.manifest import bind_manifest
from mcp_lambda.tools import ToolContext
from mcp_lambda_dev.businesses import load_business

CASES = {
    "search_routes": {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "transit"},
    "search_routes_for_reference": {"origin": "zhongguancun", "destination": "beijing_south_station"},
    "search_products": {"keyword": "cup", "limit": 10},
    "subscribe_product": {"product_id": "p-1004", "alert": "restock"},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20_000, help="checks per timing")
    args = parser.parse_args()
    business = load_business("demo")
    bound = bind_manifest(business, "manifest/demo.yaml")
    print("manifest check (demo results), µs per result:")
    for name, arguments in CASES.items():
        spec = business.tool(name)
        assert spec is not None and spec.arguments is not None
        # An anonymous caller's context (subscribe_product keeps what it stores per caller).
        ctx = ToolContext(request_id=1, tool_name=name, logger=logging.getLogger("bench"))
        result = spec.fn(**dict(spec.arguments.model_validate(arguments)), ctx=ctx)
        if inspect.iscoroutine(result):  # an `async def` tool
            result = asyncio.run(result)
        assert bound.check(name, result) == [], name
        runs = args.runs
        seconds = min(timeit.repeat(lambda: bound.check(name, result), number=runs, repeat=3))  # noqa: B023
        print(f"  {name:<30} {seconds / runs * 1e6:6.2f}")


if __name__ == "__main__":
    main()
