"""`make run` as a process, from the client's side: a Content-Length it cannot use is answered 400 (never a hang
or a dropped connection), a burst of connections queues instead of being reset, and WORKERS=n serves n requests
at once from n independent handler instances that share every store (a keyed call runs once, a task is found
from any worker)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.wire import modern_meta
from mcp_lambda_dev.local.process import DISCOVER, REPO, running_server
from mcp_lambda_dev.local.server import LISTEN_BACKLOG


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _exchange(port: int, head: str, body: bytes = b"", timeout: float = 10) -> bytes:
    """Send one raw request and read until the server closes or the timeout passes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(head.encode("latin-1") + body)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
        return received


def _post(port: int, body: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {len(body.encode())}",
        "Connection: close",
        *(f"{k}: {v}" for k, v in (headers or {}).items()),
    ]
    raw = _exchange(port, "\r\n".join(lines) + "\r\n\r\n", body.encode())
    head, _, payload = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), parsed, json.loads(payload) if payload else None


@pytest.fixture(scope="module")
def demo_server() -> Iterator[str]:
    with running_server("demo") as url:
        yield url


@pytest.mark.parametrize("length", ["-1", "abc", "1e3", " "])
def test_a_content_length_that_is_not_a_number_is_400(demo_server: str, length: str) -> None:
    port = _port(demo_server)
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"

    raw = _exchange(port, head, b"{}", timeout=5)

    assert raw.startswith(b"HTTP/1.1 400 "), raw[:200]
    assert b"Content-Length must be a non-negative integer" in raw
    assert b"connection: close" in raw.lower()


def test_a_chunked_body_is_411_not_misread(demo_server: str) -> None:
    port = _port(demo_server)
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    raw = _exchange(port, head, b"2\r\n{}\r\n0\r\n\r\n", timeout=5)
    assert raw.startswith(b"HTTP/1.1 411 "), raw[:200]


def test_the_server_still_answers_after_bad_lengths(demo_server: str) -> None:
    status, _, body = _post(_port(demo_server), DISCOVER, _modern("server/discover"))
    assert status == 200 and body["result"]["supportedVersions"] == ["2026-07-28"]


def test_a_burst_of_200_connections_is_queued_and_answered(demo_server: str) -> None:
    port = _port(demo_server)
    if shutil.which("ss"):
        listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
        backlog = int(listening.split()[2])  # a listening socket's Send-Q is its backlog
        assert backlog >= min(LISTEN_BACKLOG, int(Path("/proc/sys/net/core/somaxconn").read_text()))
    gate = threading.Barrier(200)

    def one(_: int) -> int:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            gate.wait()
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n"
                f"Content-Length: {len(DISCOVER)}\r\nConnection: close\r\n\r\n"
            )
            sock.sendall(head.encode() + DISCOVER.encode())
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
            return int(received.split()[1])

    with ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(one, range(200)))
    assert statuses == [200] * 200


# --- WORKERS=n ----------------------------------------------------------------------------------------------

RENDEZVOUS = """
import threading

from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool

# Imported once per process, so every handler instance (container) shares it.
MEETING = threading.Barrier(2, timeout=2)


@tool(description="Use to meet a second call: succeeds only when two calls are served at the same time.")
def meet(ctx: ToolContext) -> ToolResult:
    try:
        MEETING.wait()
    except threading.BrokenBarrierError:
        MEETING.reset()
        return execution_result({"met": False})
    return execution_result({"met": True})


BUSINESS = Business(name="rendezvous", tools=[meet])
"""


def _modern(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    return {**headers, "Mcp-Name": name} if name else headers


def _meet(port: int) -> bool:
    body = json.loads(DISCOVER)
    body.update(method="tools/call", params={**body["params"], "name": "meet", "arguments": {}})
    _, _, answer = _post(port, json.dumps(body), _modern("tools/call", "meet"))
    return bool(answer["result"]["structuredContent"]["met"])


@pytest.fixture(scope="module")
def rendezvous_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("rendezvous")
    (root / "businesses" / "rendezvous").mkdir(parents=True)
    (root / "businesses" / "rendezvous" / "__init__.py").write_text(RENDEZVOUS)
    return os.pathsep.join([str(root), str(REPO / "src"), str(REPO / "dev"), str(REPO)])


@pytest.mark.parametrize(("workers", "both_met"), [("2", True), ("1", False)])
def test_workers_serve_that_many_requests_at_once(rendezvous_path: str, workers: str, both_met: bool) -> None:
    with (
        running_server("rendezvous", WORKERS=workers, PYTHONPATH=rendezvous_path) as url,
        ThreadPoolExecutor(2) as pool,
    ):
        met = list(pool.map(lambda _: _meet(_port(url)), range(2)))
    assert met == [both_met, both_met]  # one container serves one request at a time


def test_workers_share_the_session_store(demo_server: str) -> None:
    with running_server("demo", WORKERS="3") as url:
        port = _port(url)
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-03-26",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        _, headers, _ = _post(port, json.dumps(initialize))
        session = {"Mcp-Session-Id": headers["mcp-session-id"]}
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        with ThreadPoolExecutor(6) as pool:  # concurrent, so they land on different workers
            statuses = list(pool.map(lambda _: _post(port, ping, session)[0], range(12)))
    assert statuses == [200] * 12


# Every store is shared between the workers, as containers share DynamoDB: exactly-once, tasks and sessions.

TASKS_META = modern_meta({"extensions": {"io.modelcontextprotocol/tasks": {}}})


def _modern_call(port: int, method: str, params: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": {**params, "_meta": meta}}
    name = params.get("name") or params.get("taskId")
    _, _, answer = _post(port, json.dumps(body), _modern(method, name))
    assert isinstance(answer, dict)
    return answer


def test_workers_run_a_keyed_call_once(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    meta = {**json.loads(DISCOVER)["params"]["_meta"], "tool_call_id": "call-once-across-workers"}
    arguments = {"product_id": "p-1004", "alert": "restock"}
    with running_server(
        "demo", output=output, WORKERS="2", LOG_FORMAT="json", POWERTOOLS_LOG_LEVEL="INFO"
    ) as url:
        port = _port(url)
        with ThreadPoolExecutor(20) as pool:  # concurrent, so they land on both workers
            answers = list(
                pool.map(
                    lambda _: _modern_call(
                        port, "tools/call", {"name": "subscribe_product", "arguments": arguments}, meta
                    ),
                    range(20),
                )
            )
        listed = _modern_call(
            port,
            "tools/call",
            {"name": "list_subscriptions", "arguments": {}},
            meta | {"tool_call_id": "list"},
        )
    succeeded = {
        answer["result"]["structuredContent"]["subscription_id"]
        for answer in answers
        if "result" in answer and not answer["result"].get("isError")
    }
    assert len(succeeded) == 1, answers
    assert len(listed["result"]["structuredContent"]["entities"]) == 1, listed  # one side effect
    lines = [json.loads(line) for line in output.read_text().splitlines() if line.startswith("{")]
    executed = [
        line
        for line in lines
        if line.get("tool_name") == "subscribe_product" and line.get("outcome") == "success"
    ]
    assert len(executed) == 1, executed


def test_workers_share_the_task_store() -> None:
    arguments = {"stops": ["guomao", "sanlitun"]}
    with running_server("demo", WORKERS="2") as url:
        port = _port(url)
        created = _modern_call(
            port, "tools/call", {"name": "export_trip_plan", "arguments": arguments}, TASKS_META
        )
        task_id = created["result"]["taskId"]
        with ThreadPoolExecutor(4) as pool:  # concurrent, so they land on both workers
            polls = list(
                pool.map(lambda _: _modern_call(port, "tasks/get", {"taskId": task_id}, TASKS_META), range(8))
            )
    assert [("result" in poll, poll.get("error")) for poll in polls] == [(True, None)] * 8


def test_workers_count_into_one_quota() -> None:
    quotas = json.dumps({"subscribe_product": "4/day"})  # a window that does not reset mid-test
    arguments = {"product_id": "p-1004", "alert": "restock"}
    meta = json.loads(DISCOVER)["params"]["_meta"]
    with running_server("demo", WORKERS="2", TOOL_QUOTAS=quotas) as url:
        port = _port(url)
        with ThreadPoolExecutor(10) as pool:  # concurrent, so they land on both workers
            answers = list(
                pool.map(
                    lambda n: _modern_call(
                        port,
                        "tools/call",
                        {"name": "subscribe_product", "arguments": arguments},
                        meta | {"tool_call_id": f"quota-{n}"},
                    ),
                    range(10),
                )
            )
    codes = sorted(answer["result"]["structuredContent"].get("code", 0) for answer in answers)
    assert codes == [0] * 4 + [42900] * 6, answers


def test_make_run_gives_check_stock_a_stand_in_inventory(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    meta = json.loads(DISCOVER)["params"]["_meta"]
    with running_server("demo", output=output, DEMO_INVENTORY_URL="") as url:
        answer = _modern_call(
            _port(url), "tools/call", {"name": "check_stock", "arguments": {"product_id": "p-1001"}}, meta
        )
    [stock] = answer["result"]["structuredContent"]["entities"]
    assert (stock["product_id"], stock["quantity"]) == ("p-1001", 18)
    assert "check_stock asks a stand-in inventory at http://127.0.0.1:" in output.read_text()
