"""`make bench-quotas`: what a quota adds to a tools/call through the Lambda handler, in one process.

The same tool is served twice by one business, with and without `quota=`, and both are called in interleaved rounds
(the VM's speed drifts): the quota's cost is the ratio of their medians. Measured with the memory store
(`PROTECTION_STORE=memory`, `make run`'s) and against DynamoDB Local (`PROTECTION_STORE=dynamodb`: one UpdateItem
per counted call; started here, or BENCH_DYNAMODB_ENDPOINT points at one already running). The caller is anonymous,
so every call counts into one counter, under a quota too large to refuse any of them. This is a measurement, not a
test: it never fails on a slow figure.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import uuid
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "dev"), str(REPO)]
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

from bench import bench  # noqa: E402
from bench.bench import Handler, measure_interleaved, modern_event, p99  # noqa: E402
from mcp_lambda.composition import build_runtime  # noqa: E402
from mcp_lambda.lambda_adapter import lambda_handler  # noqa: E402
from mcp_lambda.settings import Settings  # noqa: E402
from mcp_lambda.tools import Business, ToolAnnotations, ToolContext, ToolResult, execution_result, tool  # noqa: E402
from mcp_lambda_dev import services  # noqa: E402

HINTS = ToolAnnotations(read_only=True, open_world=False)
QUOTA = "1000000000/hour"  # never reached: every measured call is counted and let through


@tool(name="plain", description="Use to measure a call without a quota.", annotations=HINTS)
def plain(ctx: ToolContext) -> ToolResult:
    return execution_result({"price": 3})


@tool(name="capped", description="Use to measure a call with a quota.", annotations=HINTS, quota=QUOTA)
def capped(ctx: ToolContext) -> ToolResult:
    return execution_result({"price": 3})


BUSINESS = Business(name="bench_quotas", tools=[plain, capped])
CALLS = {name: modern_event("tools/call", {"name": name, "arguments": {}}) for name in ("plain", "capped")}


def handler_for(settings: Settings) -> Handler:
    """The business's Lambda handler for `settings`, as the deployed handler wraps it."""
    return lambda_handler(build_runtime(settings, BUSINESS))  # type: ignore[return-value]


def report(title: str, handler: Handler, calls: int) -> None:
    runs = {
        "tools/call, no quota": (handler, CALLS["plain"]),
        "tools/call, quota": (handler, CALLS["capped"]),
    }
    samples = measure_interleaved(runs, calls)
    floor = statistics.median(samples["tools/call, no quota"])
    bench.say(f"{title} ({calls} calls each, µs):")
    bench.say(f"  {'':<24}{'median':>10}{'p99':>10}{'ratio':>8}")
    for name, values in samples.items():
        median = statistics.median(values)
        bench.say(f"  {name:<24}{median:>10.0f}{p99(values):>10.0f}{median / floor:>8.2f}")


def dynamodb_section(calls: int) -> None:
    endpoint = os.environ.get("BENCH_DYNAMODB_ENDPOINT")
    local = None
    if not endpoint:  # as `make bench` does: a DynamoDB Local of its own
        try:
            local = services.dynamodb_local().start()
        except services.ServiceError as exc:
            bench.say(f"DynamoDB: skipped ({exc})")
            return
        endpoint = local.endpoint_url
    import boto3

    # DynamoDB Local only: fake credentials, in this process alone.
    os.environ.update(
        AWS_ENDPOINT_URL_DYNAMODB=endpoint,
        AWS_ACCESS_KEY_ID="local",
        AWS_SECRET_ACCESS_KEY="local",
        AWS_DEFAULT_REGION="us-east-1",
    )
    client = boto3.client("dynamodb", endpoint_url=endpoint)
    table = f"bench-protection-{uuid.uuid4().hex[:8]}"
    services.create_protection_table(client, table)
    try:
        settings = Settings(business=BUSINESS.name, protection_store="dynamodb", protection_table=table)
        report(f"quota on DynamoDB Local ({endpoint})", handler_for(settings), calls)
        # Every call counted, once: the warm-up's and the measured ones, in the window's one item.
        items = client.scan(TableName=table, ConsistentRead=True)["Items"]
        counted = sum(int(item["count"]["N"]) for item in items)
        bench.say(f"  UpdateItem writes per quota-checked call: {counted / (calls + bench.WARM_UP):.2f}")
    finally:
        client.delete_table(TableName=table)
        if local is not None:
            local.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--dynamodb-calls", type=int, default=200)
    args = parser.parse_args()
    bench.WARM_UP = min(bench.WARM_UP, args.calls, args.dynamodb_calls)
    warnings.filterwarnings("ignore")
    logging.getLogger("mcp_lambda").setLevel(logging.ERROR)  # the test business has no manifest to warn about
    bench.OUT = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # per-request log lines and EMF metrics still cost their formatting, not a terminal
    bench.say(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; a tools/call with and without a quota"
    )
    report(
        "quota in memory (PROTECTION_STORE=memory)", handler_for(Settings(business=BUSINESS.name)), args.calls
    )
    bench.say()
    dynamodb_section(args.dynamodb_calls)
    bench.OUT.flush()


if __name__ == "__main__":
    main()
