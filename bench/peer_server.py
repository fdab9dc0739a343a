"""One implementation of the peers bench (bench/peers.py), run in a fresh process by the interpreter of its venv.

`peer_server.py cold|warm|size IMPLEMENTATION SPEC_FILE`: the standard library and the implementation only (run by
`.venv-bench`'s interpreter; ours with the staged package and `.venv-bench/ours` on its path). SPEC_FILE is JSON: the API Gateway events (`cold`,
`init`, `initialized` and one per warm case; legacy cases get the initialize answer's session id) and `calls`.

- `cold`: import and build the handler, answer the cold event; prints {"import": s, "first": s}.
- `warm`: the legacy handshake, then every case `calls` times in interleaved rounds of 50; prints each case's
  per-call µs and the process's peak RSS (KiB).
- `size` (a peer's): the installed size of what the implementation needs (its requirement closure in this venv,
  compiled caches and the boto3 closure the Lambda runtime provides left out), in bytes; ours is measured by
  bench/peers.py on the package as `make build` leaves it.

The implementations: `ours` (mcp_lambda.handler, the demo business), `sdk-sync` and `sdk-async` (the official
MCP Python SDK's MCPServer with a `def` or an `async def` tool, its streamable HTTP app in stateless JSON mode
behind Mangum, its lifespan started once per container) and `awslabs` (awslabs' MCPLambdaHandler, no session
store). This is a measurement, not a test.
"""

from __future__ import annotations

import json
import re
import resource
import sys
import time
import types
from pathlib import Path
from typing import Any

# The boto3 closure the Lambda Python runtime provides (dev/mcp_lambda_tools/build/package_size.py's CLOSURE).
RUNTIME_CLOSURE = {"boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"}
# What each implementation installs: requirement names (with extras) as its package would hold them.
REQUIREMENTS = {
    "sdk-sync": ["mcp", "mangum"],
    "sdk-async": ["mcp", "mangum"],
    "awslabs": ["awslabs.mcp-lambda-handler"],
}


def context() -> Any:
    """A Lambda context as the runtime passes it (the fields Mangum and Powertools read)."""
    return types.SimpleNamespace(
        function_name="mcp-bench",
        function_version="$LATEST",
        memory_limit_in_mb=1024,
        aws_request_id="bench",
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:mcp-bench",
        log_group_name="/aws/lambda/mcp-bench",
        log_stream_name="bench",
        get_remaining_time_in_millis=lambda: 30_000,
    )


def build(implementation: str) -> Any:
    """The implementation's Lambda handler: `handler(event, context) -> response`."""
    if implementation == "ours":
        from mcp_lambda.handler import handler

        return handler
    if implementation in ("sdk-sync", "sdk-async"):
        from mangum import Mangum
        from mangum.protocols.lifespan import LifespanCycle
        from mcp.server.mcpserver import MCPServer
        from mcp.server.transport_security import TransportSecuritySettings

        server = MCPServer("bench")
        if implementation == "sdk-sync":

            @server.tool(name="echo", description="Echo a message back.")
            def echo_sync(message: str) -> str:
                return message

        else:

            @server.tool(name="echo", description="Echo a message back.")
            async def echo_async(message: str) -> str:
                return message

        # The Host check on, for the events' host (as a deployment sets it for its API's domain).
        security = TransportSecuritySettings(allowed_hosts=["localhost"])
        app = server.streamable_http_app(stateless_http=True, json_response=True, transport_security=security)
        # The session manager runs once per instance: start its lifespan once for the container (on the loop
        # Mangum then uses for every invocation), not once per invocation as lifespan="auto" would.
        LifespanCycle(app, "on").__enter__()
        return Mangum(app, lifespan="off")
    if implementation == "awslabs":
        from awslabs.mcp_lambda_handler import MCPLambdaHandler

        mcp = MCPLambdaHandler(name="bench", version="1.0.0")

        @mcp.tool()
        def echo(message: str) -> str:
            """Echo a message back."""
            return message

        return mcp.handle_request
    raise SystemExit(f"unknown implementation {implementation!r}")


def answered(response: dict[str, Any]) -> bool:
    """Whether the response is a 2xx whose JSON-RPC body is a result (not an error, not an error result)."""
    if not 200 <= int(response.get("statusCode", 0)) < 300:
        return False
    try:
        body = json.loads(response.get("body") or "null")
    except ValueError:
        return False
    result = body.get("result") if isinstance(body, dict) else None
    return isinstance(result, dict) and not result.get("isError")


def cold(implementation: str, spec: dict[str, Any]) -> dict[str, float]:
    started = time.perf_counter()
    handler = build(implementation)
    built = time.perf_counter()
    response = handler(spec["cold"], context())
    done = time.perf_counter()
    if not answered(response):
        raise SystemExit(f"{implementation}: the cold request failed: {response}")
    return {"import": built - started, "first": done - built}


def session_headers(handler: Any, spec: dict[str, Any]) -> dict[str, str]:
    """The legacy handshake; the headers a legacy request then carries (the session id when one was issued)."""
    response = handler(spec["init"], context())
    if not answered(response):
        raise SystemExit(f"initialize failed: {response}")
    headers = {key.lower(): value for key, value in (response.get("headers") or {}).items()}
    session = {"mcp-session-id": headers["mcp-session-id"]} if "mcp-session-id" in headers else {}
    if session:
        initialized = json.loads(json.dumps(spec["initialized"]))
        initialized["headers"].update(session)
        handler(initialized, context())
    return session


def warm(implementation: str, spec: dict[str, Any]) -> dict[str, Any]:
    handler = build(implementation)
    session = session_headers(handler, spec)
    cases: dict[str, dict[str, Any]] = {}
    for name, event in spec["cases"].items():
        event = json.loads(json.dumps(event))
        if name.endswith("(legacy)"):
            event["headers"].update(session)
        response = handler(event, context())
        if not answered(response):
            raise SystemExit(f"{implementation}, {name}: {response}")
        cases[name] = event
    ctx, calls = context(), spec["calls"]
    for event in cases.values():  # warm-up
        for _ in range(min(100, calls)):
            handler(event, ctx)
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(max(1, calls // 50)):
        for name, event in cases.items():
            for _ in range(min(50, calls)):
                started = time.perf_counter_ns()
                handler(event, ctx)
                samples[name].append((time.perf_counter_ns() - started) / 1000)
    return {"samples": samples, "rss_kib": peak_rss_kib()}


def peak_rss_kib() -> int:
    """This process's peak resident set (KiB): /proc's VmHWM, which starts afresh at exec. getrusage's ru_maxrss
    does not: it keeps the forking parent's peak (here the bench's own), so every implementation would read at
    least that."""
    try:
        status = Path("/proc/self/status").read_text(encoding="utf-8")
    except OSError:  # not Linux: the rusage figure, with its caveat
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) if found else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _requirement(line: str) -> tuple[str, set[str], str]:
    """`name[extra,...]; marker` -> (normalized name, extras, marker)."""
    requirement, _, marker = line.partition(";")
    found = re.match(r"\s*([A-Za-z0-9._-]+)\s*(\[([^\]]*)\])?", requirement)
    if found is None:
        return "", set(), ""
    extras = {extra.strip() for extra in (found.group(3) or "").split(",") if extra.strip()}
    return re.sub(r"[-_.]+", "-", found.group(1)).lower(), extras, marker


def closure_size(requirements: list[str]) -> int:
    """Bytes of the installed files of `requirements` and everything they require (as installed here), without
    compiled caches and without the boto3 closure. A requirement not installed here (another platform's, an
    extra's) is skipped."""
    from importlib import metadata  # here, not at the top: the measured processes load only what they import

    seen: set[str] = set()
    pending = [_requirement(line)[:2] for line in requirements]
    total = 0
    while pending:
        name, extras = pending.pop()
        if not name or name in seen or name in RUNTIME_CLOSURE:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        for file in dist.files or []:
            if "__pycache__" in file.parts or file.suffix == ".pyc" or str(file).startswith(".."):
                continue
            path = Path(str(file.locate()))
            if path.is_file():
                total += path.stat().st_size
        for line in dist.requires or []:
            child, child_extras, marker = _requirement(line)
            wanted = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
            if wanted is None or wanted.group(1) in extras:
                pending.append((child, child_extras))
    return total


def main() -> None:
    mode, implementation, spec_file = sys.argv[1:4]
    spec = json.loads(Path(spec_file).read_text(encoding="utf-8"))
    if mode == "cold":
        out: Any = cold(implementation, spec)
    elif mode == "warm":
        out = warm(implementation, spec)
    else:
        out = {"bytes": closure_size(REQUIREMENTS[implementation])}
    sys.stderr.write("\n" + json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
