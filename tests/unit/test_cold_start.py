"""Cold start: what a fresh Lambda process does while it imports the handler, checked in fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.processes import HANDLER_ENV

ROOT = Path(__file__).resolve().parents[2]
ENV = HANDLER_ENV

GC_STATE = r"""
import gc, json, sys
try:
    import mcp_lambda.handler
    started = True
except Exception:
    started = False
print("RESULT " + json.dumps({"started": started, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def run(code: str, **env: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return result


def test_start_up_objects_are_frozen_and_the_collector_runs_again_once_the_handler_is_built() -> None:
    state = run(GC_STATE)
    assert state["started"] is True
    assert state["enabled"] is True
    assert isinstance(state["frozen"], int) and state["frozen"] > 10_000  # modules, classes, validators


def test_a_failed_start_up_leaves_the_collector_running() -> None:
    state = run(GC_STATE, BUSINESS="no_such_business")
    assert state["started"] is False
    assert state["enabled"] is True


def test_the_handler_starts_without_pydantic_settings() -> None:
    # Installed here (the MCP SDK needs it): only an import of ours could bring it into the function's start.
    state = run(
        "import json, sys\nimport mcp_lambda.handler\n"
        'print("RESULT " + json.dumps({"loaded": sorted(n for n in sys.modules if n.startswith("pydantic_settings")),'
        ' "demo": "businesses.demo.settings" in sys.modules}))'
    )
    assert state == {"loaded": [], "demo": True}


# A fresh container serves a stateless tools/list and a tools/call, then, as a client
# that declares the tasks extension, asks for a task; the process reports what it had imported and built.
FIRST_REQUESTS = r"""
import json, sys
from mcp_lambda import handler
from mcp_lambda_dev.local.events import LocalContext, http_event

def post(method, params, extensions=None, name=None, status=200):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": extensions} if extensions else {}}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name:
        headers["mcp-name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    response = handler.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    assert response["statusCode"] == status, response
    return json.loads(response["body"])

def state():
    loaded = {name: name in sys.modules for name in ("mcp_lambda.stores.tasks", "mcp_lambda.protocol.tasks", "difflib")}
    built = {}
    models = (("mcp_lambda.stores.sessions.base", "Session"), ("mcp_lambda.stores.tasks.base", "Task"),
              ("mcp_lambda.stores.tasks.identity", "StoredCaller"))
    for module, model in models:
        cls = getattr(sys.modules.get(module), model, None)
        built[model] = bool(cls is not None and cls.__pydantic_complete__)
    return {"loaded": loaded, "built": built}

seen = {}
assert post("tools/list", {})["result"]["tools"]
search = {"name": "search_products", "arguments": {"keyword": "cup", "limit": 10}}
assert "result" in post("tools/call", search, name="search_products")
seen["stateless"] = state()
if sys.argv[1] == "snapshot":
    from mcp_lambda import snapshot
    snapshot.before_snapshot(handler._asgi_handler)
    seen["snapshot"] = state()
else:
    asked = post("tasks/get", {"taskId": "gone"}, {"io.modelcontextprotocol/tasks": {}}, "gone", 400)
    assert "Task not found" in asked["error"]["message"], asked
    seen["task"] = state()
print("RESULT " + json.dumps(seen))
"""
NOT_LOADED = {"mcp_lambda.stores.tasks": False, "mcp_lambda.protocol.tasks": False, "difflib": False}


def test_requests_without_tasks_never_load_the_task_modules_and_a_task_request_does() -> None:
    seen = run(FIRST_REQUESTS.replace("sys.argv[1]", "'task'"))
    assert seen["stateless"] == {
        "loaded": NOT_LOADED,
        "built": {"Session": False, "Task": False, "StoredCaller": False},
    }
    task = seen["task"]
    assert isinstance(task, dict)
    assert task["loaded"] == {
        **NOT_LOADED,
        "mcp_lambda.stores.tasks": True,
        "mcp_lambda.protocol.tasks": True,
    }


def test_before_the_snapshot_everything_loaded_on_first_use_is_loaded() -> None:
    seen = run(FIRST_REQUESTS.replace("sys.argv[1]", "'snapshot'"))
    assert seen["stateless"]["built"] == {"Session": False, "Task": False, "StoredCaller": False}  # type: ignore[index]
    snapshot = seen["snapshot"]
    assert isinstance(snapshot, dict)
    assert snapshot["loaded"] == {
        **NOT_LOADED,
        "mcp_lambda.stores.tasks": True,
        "mcp_lambda.protocol.tasks": True,
    }
    assert snapshot["built"] == {"Session": True, "Task": True, "StoredCaller": True}
