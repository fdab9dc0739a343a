"""`make bench`: in-process latency of the Lambda handler beside a bare FastAPI+Mangum route (the floor).

Prints the median and p99 of tools/list and tools/call through `mcp_lambda.handler.handler` (2000 calls each,
2026-07-28 and legacy), of the calls that add a store round trip (exactly-once keys, task creation, tasks/get;
memory stores), of a tools/call whose tool makes one GET through `ctx.http` to a local fake downstream and of one
whose tool is `async def`, the same for a bare route, and the ratio to that floor. Also prints the bytes the two
mandated log lines and the metrics record of a tools/call write (beside the same lines as Powertools' defaults
and `inject_lambda_context` wrote them before), the cold import and first-invocation time (measured in fresh
subprocesses, with the manifest compiled as `make build` ships it, from src/ and from the one-business package
`make build` stages), what that package holds (its code beside src/'s, and the built package's size when
.aws-sam/build holds one), the manifest check cost per result, and the
DynamoDB reads/writes per legacy request, keyed (exactly-once) tools/call, task creation and tasks/get, with
their latency, against DynamoDB Local (started here; BENCH_DYNAMODB_ENDPOINT points at one already running).
This is a measurement, not a test: it never fails on a slow figure.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "dev"), str(REPO)]
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
# The demo's subscribe_product quota (20/hour per caller) would refuse all but 20 of the measured calls: these rows
# measure the tool, `make bench-quotas` (bench/quotas.py) measures what a quota adds.
os.environ.setdefault("TOOL_QUOTAS", '{"subscribe_product": null}')

from fastapi import FastAPI  # noqa: E402
from mangum import Mangum  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import Response  # noqa: E402

from mcp_lambda.protocol.framing import POST_HEADERS, modern_request  # noqa: E402
from mcp_lambda.tools import ToolContext, ToolResult  # noqa: E402
from mcp_lambda_dev import services  # noqa: E402
from mcp_lambda_dev.local.events import LocalContext, http_event  # noqa: E402

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]
# The targets (issue 14), as ratios to the bare FastAPI+Mangum floor: rows whose name starts so.
AIMS = {"tools/list (": 1.5, "tools/call (": 2.0}
ROUTE_ARGS = {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "taxi"}
SUBSCRIBE_ARGS = {"product_id": "p-1004", "alert": "restock"}
EXPORT_ARGS = {
    "stops": ["guomao", "forbidden_city", "sanlitun"],
    "travel_mode": "transit",
    "file_format": "pdf",
}
TASKS_CAPABILITIES = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
WARM_UP = 100  # calls before a case is measured (fewer when fewer are measured: make bench-smoke)
OUT = sys.stdout  # replaced in main(): fd 1 is silenced so per-request logs and metrics cost but do not print


def say(text: str = "") -> None:
    OUT.write(text + "\n")
    OUT.flush()


def post(body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
    return http_event("POST", "/mcp", {**POST_HEADERS, **headers}, json.dumps(body), request_id="bench")


def modern_event(
    method: str,
    params: dict[str, Any],
    *,
    capabilities: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A 2026-07-28 request as API Gateway delivers it, framed as every client of the server frames it."""
    body, headers = modern_request(method, params, 1, capabilities=capabilities, meta=meta)
    return post(body, headers)


def keyed_event(tool_call_id: str | None) -> dict[str, Any]:
    """A 2026-07-28 tools/call of the exactly-once subscribe_product, with `_meta.tool_call_id` when given."""
    call = {"name": "subscribe_product", "arguments": SUBSCRIBE_ARGS}
    return modern_event("tools/call", call, meta={"tool_call_id": tool_call_id} if tool_call_id else None)


def task_event(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 request of a client that declares the tasks extension."""
    return modern_event(method, params, capabilities=TASKS_CAPABILITIES)


def create_task_event() -> dict[str, Any]:
    return task_event("tools/call", {"name": "export_trip_plan", "arguments": EXPORT_ARGS})


def get_task_event(handler: Handler) -> dict[str, Any]:
    """A tasks/get of a task created now (its worker never runs: the Invoke API stand-in only records it)."""
    created = json.loads(handler(create_task_event(), LocalContext())["body"])["result"]
    return task_event("tasks/get", {"taskId": created["taskId"]})


def task_invoker() -> Any:
    """The function's own Invoke API, as `make run` answers it (a recorded invocation per task, run by nobody)."""
    import boto3

    from mcp_lambda.calls.task_invoke import LambdaInvoker
    from mcp_lambda.testing.invoke_api import LocalLambda

    service = LocalLambda("mcp-bench", execute=False).start()
    client = boto3.client(
        "lambda",
        endpoint_url=service.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    return LambdaInvoker("mcp-bench", client=client)


def tasks_handler(invoker: Any, tasks: Any = None, sessions: Any = None, idempotency: Any = None) -> Handler:
    """The demo app as the deployed handler builds it, with a task store and the Invoke API stand-in."""
    from mcp_lambda.composition import build_runtime
    from mcp_lambda.lambda_adapter import lambda_handler
    from mcp_lambda.settings import get_settings
    from mcp_lambda.stores.sessions import MemorySessionStore
    from mcp_lambda.stores.tasks import MemoryTaskStore

    runtime = build_runtime(
        get_settings(),
        None,
        sessions or MemorySessionStore(),
        idempotency,
        tasks=tasks or MemoryTaskStore(),
        invoker=invoker,
    )
    return lambda_handler(runtime)


def fresh_keys() -> Callable[[], dict[str, Any]]:
    """Events of first calls: a new tool_call_id each time (events are built outside the timed part)."""
    return lambda: keyed_event(f"bench-{uuid.uuid4().hex}")


def legacy_session(handler: Handler) -> dict[str, str]:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    response = handler(post(init, {}), LocalContext())
    session_id = response["headers"]["mcp-session-id"]
    headers = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    handler(post({"jsonrpc": "2.0", "method": "notifications/initialized"}, headers), LocalContext())
    return headers


def legacy_event(headers: dict[str, str], method: str, params: dict[str, Any]) -> dict[str, Any]:
    return post({"jsonrpc": "2.0", "id": 2, "method": method, "params": params}, headers)


def measure(handler: Handler, event: dict[str, Any], calls: int) -> list[float]:
    """Per-call latency in µs; the first WARM_UP calls warm up and are not counted."""
    context = LocalContext()
    for _ in range(WARM_UP):
        response = handler(event, context)
    assert response["statusCode"] == 200, response
    samples = []
    for _ in range(calls):
        started = time.perf_counter_ns()
        response = handler(event, context)
        samples.append((time.perf_counter_ns() - started) / 1000)
    assert response["statusCode"] == 200, response
    return samples


def settled(value: Any) -> Any:
    """A tool's return value; an `async def` tool's coroutine run to its end (the demo's never wait)."""
    if not inspect.iscoroutine(value):
        return value
    try:
        value.send(None)
    except StopIteration as done:
        return done.value
    value.close()
    raise RuntimeError("the tool awaited something: time it through the handler instead")


def p99(samples: list[float]) -> float:
    return sorted(samples)[min(len(samples) - 1, int(len(samples) * 0.99))]


def bare_handler() -> Handler:
    """The floor: FastAPI + Mangum with one POST route that parses the JSON body and returns a small result."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)

    async def endpoint(request: Request) -> Response:
        body = json.loads(await request.body())
        payload = {"jsonrpc": "2.0", "id": body.get("id"), "result": {"tools": []}}
        return Response(json.dumps(payload, separators=(",", ":")), media_type="application/json")

    app.add_api_route("/mcp", endpoint, methods=["POST"])
    return Mangum(app, lifespan="off", api_gateway_base_path="/")  # type: ignore[return-value]


Event = dict[str, Any] | Callable[[], dict[str, Any]]


class InfoLogsOff:
    """A case's handler with the business's logger at WARNING for each of its rounds: the call without its INFO
    lines, measured in the same interleaved rounds as the floor (`measure_interleaved` unwraps it)."""

    def __init__(self, handler: Handler, logger_name: str) -> None:
        self.handler = handler
        self.logger_name = logger_name

    @contextlib.contextmanager
    def rounds(self) -> Iterator[None]:
        import logging

        service = logging.getLogger(self.logger_name)
        level = service.level
        service.setLevel(logging.WARNING)
        try:
            yield
        finally:
            service.setLevel(level)


def measure_interleaved(
    runs: Mapping[str, tuple[Handler | InfoLogsOff, Event]], calls: int
) -> dict[str, list[float]]:
    """Per-call latency in µs for every case, measured in interleaved rounds of 50 calls.

    This VM's speed drifts by 2x within a minute; taking each case in turn spreads any drift over all of them,
    so the ratios to the floor stay meaningful even when the absolute figures move.
    """
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for case, event in runs.values():
        if not callable(event):
            measure(case.handler if isinstance(case, InfoLogsOff) else case, event, 0)  # warm-up only
    rounds, per_round = max(1, calls // 50), min(50, calls)
    for _ in range(rounds):
        for name, (case, event) in runs.items():
            handler = case.handler if isinstance(case, InfoLogsOff) else case
            context = LocalContext()
            with case.rounds() if isinstance(case, InfoLogsOff) else contextlib.nullcontext():
                for _ in range(per_round):
                    this = event() if callable(event) else event
                    started = time.perf_counter_ns()
                    handler(this, context)
                    samples[name].append((time.perf_counter_ns() - started) / 1000)
    return samples


def bench_business_cases() -> tuple[Handler, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A tools/call whose tool makes one GET through `ctx.http` to a fake downstream on 127.0.0.1 (keep-alive),
    and the same trivial tool written as `async def` (runs on the event loop) and as a plain `def` (handed to a
    worker thread and back, which keeps the deadline while it runs): their difference is that hand-off."""
    import logging
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from mcp_lambda.composition import build_runtime
    from mcp_lambda.lambda_adapter import lambda_handler
    from mcp_lambda.settings import Settings
    from mcp_lambda.stores.sessions import MemorySessionStore
    from mcp_lambda.tools import Business, ToolAnnotations, execution_result, tool

    class Downstream(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

        def do_GET(self) -> None:
            payload = b'{"code":0,"data":{"price":3}}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Downstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/price"

    @tool(
        description="Use to get a price from the downstream service.",
        annotations=ToolAnnotations(read_only=True),
    )
    def price(ctx: ToolContext) -> ToolResult:
        return execution_result(ctx.http.get(url, interface="price.get").json()["data"])

    @tool(description="Use to echo a message back.", annotations=ToolAnnotations(read_only=True))
    async def echo(message: str) -> ToolResult:
        return execution_result({"message": message})

    @tool(
        description="Use to echo a message back, from a plain function.",
        annotations=ToolAnnotations(read_only=True),
    )
    def echo_sync(message: str) -> ToolResult:
        return execution_result({"message": message})

    business = Business(
        name="bench", tools=[price, echo, echo_sync], egress=["127.0.0.1"]
    )  # its fake downstream
    logging.getLogger("mcp_lambda").setLevel(
        logging.ERROR
    )  # no manifest for this one: that warning is expected
    handler = lambda_handler(build_runtime(Settings(business="bench"), business, MemorySessionStore()))
    echoed = modern_event("tools/call", {"name": "echo", "arguments": {"message": "hi"}})
    echoed_sync = modern_event("tools/call", {"name": "echo_sync", "arguments": {"message": "hi"}})
    return (
        handler,
        modern_event("tools/call", {"name": "price", "arguments": {}}),
        echoed,
        echoed_sync,
    )


def report(title: str, results: dict[str, list[float]], floor_name: str, calls: int) -> float:
    floor = results[floor_name]
    floor_median, floor_p99 = statistics.median(floor), p99(floor)
    say(f"{title} ({calls} calls each, interleaved), µs:")
    say(f"  {'case':<28}{'median':>10}{'p99':>10}{'median/floor':>14}{'p99/floor':>11}")
    for name, samples in results.items():
        median = statistics.median(samples)
        ratio = median / floor_median
        aim = next((aim for prefix, aim in AIMS.items() if name.startswith(prefix)), None)
        flag = "" if aim is None or ratio <= aim else f"  (over the {aim:g}x target)"
        say(
            f"  {name:<28}{median:>10.0f}{p99(samples):>10.0f}{ratio:>14.2f}{p99(samples) / floor_p99:>11.2f}{flag}"
        )
    return floor_median


def warm_section(handler: Handler, calls: int) -> None:
    legacy = legacy_session(handler)
    floor_name = "bare FastAPI+Mangum (floor)"
    downstream, downstream_call, async_call, sync_call = bench_business_cases()
    call = modern_event("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS})
    # The targets first, on their own: the rows below run servers in this process (the Invoke API stand-in,
    # the fake downstream) whose threads slow whatever is measured after them on a 2-vCPU machine.
    targets: dict[str, tuple[Handler | InfoLogsOff, Event]] = {
        floor_name: (bare_handler(), modern_event("tools/list", {})),
        "tools/list (2026-07-28)": (handler, modern_event("tools/list", {})),
        "tools/call (2026-07-28)": (handler, call),
        "  same, INFO logs off": (InfoLogsOff(handler, business_name()), call),
        "tools/list (legacy)": (handler, legacy_event(legacy, "tools/list", {})),
        "tools/call (legacy)": (
            handler,
            legacy_event(legacy, "tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}),
        ),
        "tools/call, async def echo": (downstream, async_call),
        "tools/call, plain def echo": (downstream, sync_call),
    }
    report(
        "Warm in-process latency through the Lambda handler",
        measure_interleaved(targets, calls),
        floor_name,
        calls,
    )
    tool_itself_row(calls)
    say()
    # The keyed rows go through the exactly-once store (memory): a first call claims and completes its key, a
    # replay answers the stored result without running the tool.
    first = fresh_keys()
    handler(first(), LocalContext())  # imports Powertools Idempotency (and boto3) once, outside the timing
    replay = keyed_event("bench-replayed")
    # The task rows: a tools/call that stores a task and queues its worker (one Invoke API call, to the local
    # stand-in), and a tasks/get of a stored task (memory store).
    tasks = tasks_handler(task_invoker())
    task_get = get_task_event(tasks)
    features: dict[str, tuple[Handler, Event]] = {
        floor_name: (bare_handler(), modern_event("tools/list", {})),
        "subscribe_product, no key": (handler, keyed_event(None)),
        "  keyed, 1st call (memory)": (handler, first),
        "  keyed, replay (memory)": (handler, replay),
        "tools/call, creates a task": (tasks, create_task_event()),
        "  tasks/get of a task": (tasks, task_get),
        "tools/call via ctx.http": (downstream, downstream_call),
    }
    report(
        "Calls that add a store or downstream round trip",
        measure_interleaved(features, calls),
        floor_name,
        calls,
    )


def business_name() -> str:
    from mcp_lambda.settings import get_settings

    return get_settings().business


def tool_itself_row(calls: int) -> None:
    """What of a `search_routes` call is the tool function itself (called directly, its arguments validated once)."""
    from mcp_lambda_dev.businesses import load_business

    spec = load_business(business_name()).tool("search_routes")
    if spec is not None and spec.arguments is not None:
        kwargs = dict(spec.arguments.model_validate(ROUTE_ARGS))
        if spec.context_param:
            kwargs[spec.context_param] = None
        started = time.perf_counter_ns()
        for _ in range(calls):
            settled(spec.fn(**kwargs))
        say(
            f"  {'search_routes alone (its fn)':<28}{(time.perf_counter_ns() - started) / 1000 / calls:>10.0f}"
        )


def log_bytes_section(handler: Handler, event: dict[str, Any]) -> None:
    """What one tools/call writes to CloudWatch: its two mandated lines and its EMF metrics record, beside the
    same two records as Powertools' default formatter wrote them with `inject_lambda_context`'s keys."""
    import io
    import logging

    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    from mcp_lambda.observability import get_logger
    from mcp_lambda.settings import get_settings

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = get_logger(get_settings().business)
    keep, stdout, captured = Keep(), sys.stdout, io.StringIO()
    logging.getLogger(logger.name).addHandler(keep)
    sys.stdout = captured  # the EMF record; the log lines still go to the Logger's own stream
    context = LocalContext()
    try:
        handler(event, context)
    finally:
        logging.getLogger(logger.name).removeHandler(keep)
        sys.stdout = stdout
    lines = [r for r in records if str(getattr(r, "event", "")).startswith("mcp_tool_call_")]
    ours = logger.registered_formatter
    before = LambdaPowertoolsFormatter()
    before.append_keys(
        **{
            k: v
            for k, v in ours.log_format.items()
            if k not in ("level", "location", "message", "timestamp", "xray_trace_id")
        },
        xray_trace_id="",  # Powertools' default: on (it is None here only because no trace id is set)
        cold_start=False,
        function_name=context.function_name,
        function_memory_size=context.memory_limit_in_mb,
        function_arn=context.invoked_function_arn,
        function_request_id=context.aws_request_id,
    )
    now = [len(ours.format(record).encode()) for record in lines]
    then = [len(before.format(record).encode()) for record in lines]
    emf = [len(line.encode()) for line in captured.getvalue().splitlines() if line.startswith('{"_aws"')]
    say("CloudWatch bytes per tools/call (2026-07-28, search_routes):")
    say(
        f"  {'started + finished lines':<28}{' + '.join(map(str, now))} = {sum(now)} B; as Powertools' defaults"
        f" with inject_lambda_context wrote them: {' + '.join(map(str, then))} = {sum(then)} B"
        f" ({sum(now) / sum(then):.0%})"
    )
    say(f"  {'EMF metrics record':<28}{sum(emf)} B")


COLD_OURS = """
import json, time, sys
t0 = time.perf_counter()
from mcp_lambda.handler import handler
from mcp_lambda_dev.local.events import LocalContext, http_event
t1 = time.perf_counter()
event = http_event("POST", "/mcp", json.loads(sys.argv[1]), sys.argv[2])
response = handler(event, LocalContext())
t2 = time.perf_counter()
body = json.loads(response["body"])
assert response["statusCode"] == 200 and "result" in body and not body["result"].get("isError"), response
sys.stderr.write(json.dumps({"import": t1 - t0, "first": t2 - t1}) + "\\n")
"""
# The handler from the staged package alone (make build's code for the business): no dev/ on the path, so the
# context is built here, and no PyYAML.
COLD_STAGED = """
import json, sys, time, types
sys.modules["yaml"] = None
t0 = time.perf_counter()
from mcp_lambda.handler import handler
t1 = time.perf_counter()
context = types.SimpleNamespace(function_name="mcp-bench", function_version="$LATEST", memory_limit_in_mb=1024,
    aws_request_id="bench", invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:mcp-bench",
    get_remaining_time_in_millis=lambda: 30_000)
response = handler(json.loads(sys.argv[3]), context)
t2 = time.perf_counter()
body = json.loads(response["body"])
assert response["statusCode"] == 200 and "result" in body and not body["result"].get("isError"), response
sys.stderr.write(json.dumps({"import": t1 - t0, "first": t2 - t1}) + "\\n")
"""
COLD_CALL = {"keyword": "cup", "limit": 10}
COLD_BARE = """
import json, time, sys
t0 = time.perf_counter()
from fastapi import FastAPI
from mangum import Mangum
from starlette.responses import Response
from mcp_lambda_dev.local.events import LocalContext, http_event
app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
async def endpoint():
    return Response(b'{"jsonrpc":"2.0","id":1,"result":{}}', media_type="application/json")
app.add_api_route("/mcp", endpoint, methods=["POST"])
handler = Mangum(app, lifespan="off", api_gateway_base_path="/")
t1 = time.perf_counter()
response = handler(http_event("POST", "/mcp", json.loads(sys.argv[1]), sys.argv[2]), LocalContext())
t2 = time.perf_counter()
assert response["statusCode"] == 200, response
sys.stderr.write(json.dumps({"import": t1 - t0, "first": t2 - t1}) + "\\n")
"""


# The floor with the collector paused the way mcp_lambda/handler.py pauses it: not the floor, a like-for-like row
# (FastAPI's own import pays ~15 ms of collector passes that our handler's import skips).
COLD_BARE_GC = COLD_BARE.replace(
    "t0 = time.perf_counter()\n", "t0 = time.perf_counter()\nimport gc\ngc.disable()\n", 1
).replace("t1 = time.perf_counter()\n", "gc.freeze()\ngc.enable()\nt1 = time.perf_counter()\n", 1)


def cold_run(
    code: str, manifest_dir: str, event: dict[str, Any], src: Path = REPO / "src"
) -> dict[str, float]:
    # The staged package runs alone (as in Lambda); src/ with dev/ beside it (as make run does).
    path = [str(src)] if code is COLD_STAGED else [str(src), str(REPO / "dev"), str(REPO)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path), "MANIFEST_DIR": manifest_dir}
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(event["headers"]), event["body"], json.dumps(event)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


@contextlib.contextmanager
def built_trees() -> Iterator[tuple[str, Path, Path]]:
    """What `make build` ships, in a temporary directory: (the compiled manifests' directory, a copy of src/ with
    the compiled tool schemas, the one-business package staged from it), every module compiled to .pyc."""
    import compileall
    import shutil
    import tempfile

    from mcp_lambda_tools.build.manifest_compile import main as compile_manifests
    from mcp_lambda_tools.build.package_stage import stage
    from mcp_lambda_tools.build.skills_compile import main as compile_skills
    from mcp_lambda_tools.build.tool_schemas_compile import main as compile_tool_schemas

    with tempfile.TemporaryDirectory() as manifests:
        # src/ as make build ships it: a copy with the compiled tool schemas beside each business's code.
        src = Path(manifests) / "src"
        shutil.copytree(REPO / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        # ...and the one-business package make build stages from it.
        staged = stage("demo", Path(manifests) / "stage", src).parent / "demo"
        with contextlib.redirect_stdout(io.StringIO()):
            compile_manifests([manifests])
            if compile_tool_schemas([str(src)]) != 0 or compile_tool_schemas(
                [str(staged), "--source", str(src)]
            ):
                raise RuntimeError("cold start: the tool schemas did not compile")
            # The package serves its skills from their compiled index, as make build writes it.
            if compile_skills([str(staged)]) != 0:
                raise RuntimeError("cold start: the skills index did not compile")
        for tree in (src, staged, REPO / "dev"):
            compileall.compile_dir(tree, quiet=1)
        yield manifests, src, staged


def cold_section(runs: int) -> None:
    """Import + first invocation in fresh processes, the two apps alternating; the manifest compiled to JSON
    as `make build` ships it. .pyc caches are warm, as in a package built with `make build PYC=1` (a plain
    `make build` ships none, and every cold start then compiles what it imports: about twice the time, for both).
    The repo's own modules are compiled here first (PYTHONDONTWRITEBYTECODE would otherwise leave them uncached).
    Two rows for us: a first tools/list, and a first tools/call (what a first request that runs a tool pays); the
    last row is the floor with the collector paused as our handler pauses it (a comparison, never the floor)."""
    say(
        f"Cold start in a fresh process (median of {runs} runs; .pyc caches warm, as with make build PYC=1), ms:"
    )
    say(f"  {'':<28}{'import':>10}{'1st call':>10}{'total':>10}{'ratio':>8}")
    with built_trees() as (manifests, src, staged):
        first_call = modern_event("tools/call", {"name": "search_products", "arguments": COLD_CALL})
        listing = modern_event("tools/list", {})
        cases = (
            ("bare FastAPI+Mangum", COLD_BARE, listing, src),
            ("handler, 1st tools/list", COLD_OURS, listing, src),
            ("handler, 1st tools/call", COLD_OURS, first_call, src),
            ("package, 1st tools/list", COLD_STAGED, listing, staged),
            ("package, 1st tools/call", COLD_STAGED, first_call, staged),
            ("bare, collector paused too", COLD_BARE_GC, listing, src),
        )
        samples: dict[str, list[dict[str, float]]] = {case[0]: [] for case in cases}
        for _ in range(runs):
            for label, code, event, tree in cases:
                samples[label].append(cold_run(code, manifests, event, tree))
    totals = {}
    for label, *_ in cases:
        imported = statistics.median(s["import"] for s in samples[label]) * 1000
        first = statistics.median(s["first"] for s in samples[label]) * 1000
        totals[label] = statistics.median((s["import"] + s["first"]) * 1000 for s in samples[label])
        ratio = totals[label] / totals[cases[0][0]]
        say(f"  {label:<28}{imported:>10.0f}{first:>10.1f}{totals[label]:>10.0f}{ratio:>8.2f}")


def manifest_section(handler: Handler) -> None:
    """Hook: what the run-time manifest check costs per tool result."""
    try:
        from mcp_lambda.manifest import bind_manifest
        from mcp_lambda.manifest.locate import manifest_path
        from mcp_lambda.settings import get_settings
        from mcp_lambda.tools import ToolResult
        from mcp_lambda_dev.businesses import load_business
    except ImportError as exc:
        say(f"Manifest check: skipped ({exc})")
        return
    settings = get_settings()
    business = load_business(settings.business)
    path = manifest_path(settings, business)
    if not path.exists():
        say(f"Manifest check: skipped (no manifest at {path})")
        return
    bound = bind_manifest(business, path)
    cases = {
        "search_routes": ROUTE_ARGS,
        "search_products": {"keyword": "cup", "limit": 10},
    }
    say("Manifest check cost per result, µs:")
    for name, arguments in cases.items():
        event = modern_event("tools/call", {"name": name, "arguments": arguments})
        wire = json.loads(handler(event, LocalContext())["body"])["result"]
        result = ToolResult(content=wire["content"], structured_content=wire.get("structuredContent"))
        runs = 5000
        started = time.perf_counter()
        for _ in range(runs):
            bound.check(name, result)
        say(f"  {name:<28}{(time.perf_counter() - started) / runs * 1e6:>10.1f}")


def timed(handler: Handler, events: list[dict[str, Any]]) -> list[float]:
    """Per-request latency in ms of each event, in order."""
    samples = []
    for event in events:
        started = time.perf_counter_ns()
        handler(event, LocalContext())
        samples.append((time.perf_counter_ns() - started) / 1e6)
    return samples


def store_row(name: str, reads: float, writes: float, samples: list[float], detail: str = "") -> None:
    say(
        f"  {name:<28} reads {reads:>5.2f}  writes {writes:>5.2f}  median {statistics.median(samples):.2f} ms"
        f"  p99 {p99(samples):.2f} ms{detail}"
    )


def dynamodb_section(calls: int) -> None:
    """DynamoDB reads/writes and latency of the requests that touch a table, against DynamoDB Local."""
    endpoint = os.environ.get("BENCH_DYNAMODB_ENDPOINT")
    local = None
    if not endpoint:  # `make bench` starts its own, as the integration tests' fixtures do
        try:
            local = services.dynamodb_local().start()
        except services.ServiceError as exc:
            say(f"DynamoDB: skipped ({exc})")
            return
        endpoint = local.endpoint_url
    try:
        dynamodb_rows(endpoint, calls)
    finally:
        if local is not None:
            local.stop()


def dynamodb_rows(endpoint: str, calls: int) -> None:
    import boto3

    from mcp_lambda.stores.exactly_once import DynamoDBIdempotencyStore
    from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore
    from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore
    from mcp_lambda_dev.aws_counters import DynamoDBCalls

    client = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    suffix = uuid.uuid4().hex[:8]
    tables = {kind: f"bench-{kind}-{suffix}" for kind in ("sessions", "idempotency", "tasks")}
    services.create_sessions_table(client, tables["sessions"])
    services.create_idempotency_table(client, tables["idempotency"])
    services.create_tasks_table(client, tables["tasks"])
    # Counted from outside the stores, per table (the three share one client).
    session_calls, once_calls, task_calls = (DynamoDBCalls(tables[kind]).watch(client) for kind in tables)
    try:
        store = DynamoDBSessionStore(tables["sessions"], client=client)
        once = DynamoDBIdempotencyStore(tables["idempotency"], client=client)
        tasks = DynamoDBTaskStore(tables["tasks"], client=client)
        handler = tasks_handler(task_invoker(), tasks, store, once)
        say(
            f"DynamoDB reads/writes and latency per request ({endpoint}, DynamoDB Local; {calls} requests each):"
        )
        session_calls.reset()
        headers = legacy_session(handler)
        reads, writes = session_calls.reads, session_calls.writes
        say(f"  {'initialize + initialized':<28} reads {reads:>5.2f}  writes {writes:>5.2f}")
        for name, (method, params) in {
            "tools/list (legacy)": ("tools/list", {}),
            "tools/call (legacy)": ("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}),
        }.items():
            event = legacy_event(headers, method, params)
            timed(handler, [event] * 10)  # warm-up: the client's connection, the first item read
            session_calls.reset()
            samples = timed(handler, [event] * calls)
            store_row(name, session_calls.reads / calls, session_calls.writes / calls, samples)
        first = fresh_keys()
        handler(keyed_event("bench-replay"), LocalContext())  # the replayed key exists before counting
        for name, events in {
            "keyed tools/call, 1st call": [first() for _ in range(calls)],
            "  keyed, replay (same key)": [keyed_event("bench-replay")] * calls,
        }.items():
            once_calls.reset()
            samples = timed(handler, events)
            per_call = ", ".join(
                f"{op} {count / calls:.2f}" for op, count in sorted(once_calls.operations.items())
            )
            store_row(name, once_calls.reads / calls, once_calls.writes / calls, samples, f"  ({per_call})")
        task_get = get_task_event(handler)
        for name, events in {
            "tools/call, creates a task": [create_task_event()] * calls,
            "  tasks/get of a task": [task_get] * calls,
        }.items():
            task_calls.reset()
            samples = timed(handler, events)
            store_row(name, task_calls.reads / calls, task_calls.writes / calls, samples)
    finally:
        for table in tables.values():
            client.delete_table(TableName=table)


def _tree_size(root: Path, tops: tuple[str, ...]) -> tuple[int, int]:
    files = [path for top in tops for path in (root / top).rglob("*") if path.is_file()]
    files = [path for path in files if "__pycache__" not in path.parts]
    return len(files), sum(path.stat().st_size for path in files)


def package_section() -> None:
    """What make build BUSINESS=demo ships of our code (staged here) beside all of src/ (what CodeUri: src/ held),
    and the size of the package .aws-sam/build holds, when one was built."""
    import tempfile

    from mcp_lambda_tools.build.package_check import problems
    from mcp_lambda_tools.build.package_stage import stage

    say("Lambda package, business 'demo' (make build BUSINESS=demo):")
    with tempfile.TemporaryDirectory() as out:
        staged = stage("demo", Path(out)).parent / "demo"
        count, size = _tree_size(staged, ("mcp_lambda", "businesses"))
        whole, whole_size = _tree_size(REPO / "src", ("mcp_lambda", "businesses"))
        verdict = "; ".join(problems(staged, "demo")) or "package_check clean"
    say(f"  {'our code, staged':<28}{count:>5} files {size / 1e3:>8.1f} kB  ({verdict})")
    say(f"  {'src/ (all of it)':<28}{whole:>5} files {whole_size / 1e3:>8.1f} kB")
    built = REPO / ".aws-sam" / "build" / "McpFunction"
    if built.is_dir():
        from mcp_lambda_tools.build.package_size import CLOSURE, distribution
        from mcp_lambda_tools.build.package_size import size as entry_size

        sizes = {entry: entry_size(entry) for entry in built.iterdir()}
        ours = sum(n for entry, n in sizes.items() if distribution(entry) not in CLOSURE)
        say(
            f"  {'built (.aws-sam/build)':<28}{sum(sizes.values()) / 1e6:.2f} MB unzipped, "
            f"{ours / 1e6:.2f} MB without the boto3 closure"
        )
    else:
        say(f"  {'built (.aws-sam/build)':<28}none: make build BUSINESS=demo")


def main() -> None:
    global OUT, WARM_UP
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--dynamodb-calls", type=int, default=200, help="requests per DynamoDB Local row")
    args = parser.parse_args()
    WARM_UP = min(WARM_UP, args.calls)
    warnings.filterwarnings("ignore")
    OUT = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # per-request log lines and EMF metrics still cost their formatting, not a terminal
    from mcp_lambda.handler import handler

    say(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; business '{os.environ.get('BUSINESS', 'demo')}'"
    )
    say()
    warm_section(handler, args.calls)
    say()
    log_bytes_section(
        handler,
        modern_event("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}),
    )
    say()
    package_section()
    say()
    cold_section(args.cold_runs)
    say()
    manifest_section(handler)
    say()
    dynamodb_section(args.dynamodb_calls)


if __name__ == "__main__":
    main()
