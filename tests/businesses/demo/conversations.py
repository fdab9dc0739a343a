"""The demo's scripted conversations, recorded by `make events BUSINESS=demo` to events/demo/ and replayed by
test_demo_conversations.py. A business keeps a file like this one, `tests/businesses/<business>/conversations.py`,
with `CONVERSATIONS` (and `MINTED` / `ENVIRONMENT` when it needs them): see docs/testing.md, "Recorded
conversations".
"""

from __future__ import annotations

import base64
from typing import Any

from mcp_lambda.testing.conversation import (
    MODERN,
    Request,
    initialize,
    meta,
    modern,
    modern_headers,
    rpc,
    session,
    task_worker,
)

# Values the demo mints in answers: one subscription id per execution of subscribe_product.
MINTED = {"subscription_id": r"sub_[0-9a-f]{12}"}
# Recorded with no inventory, so no recording depends on a live port: check_stock's answers from an inventory
# (and its failures) are tested against a fake one in test_demo_stock.py. The replay sets the same.
ENVIRONMENT = {"DEMO_INVENTORY_URL": ""}

ROUTE_ARGS = {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "taxi"}

DOUBAO_2024_11_05 = [
    Request("initialize", body=initialize("2024-11-05"), capture_session="session_id"),
    Request(
        "notifications_initialized", body=rpc("notifications/initialized", request_id=None), headers=session()
    ),
    Request("tools_list", body=rpc("tools/list", {}, 2), headers=session()),
    Request(
        "tools_call",
        body=rpc("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}, 3),
        headers=session(),
    ),
    Request("delete_session", method="DELETE", headers=session()),
]

MODERN_2026_07_28 = [
    Request(
        "server_discover",
        body=modern("server/discover", request_id=1),
        headers=modern_headers("server/discover"),
    ),
    Request("tools_list", body=modern("tools/list", request_id=2), headers=modern_headers("tools/list")),
    Request(
        "tools_call",
        body=modern("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}, 3),
        headers=modern_headers("tools/call", "search_routes"),
    ),
]


def _call(name: str, arguments: dict[str, Any], request_id: int) -> Request:
    return Request(
        name, body=rpc("tools/call", {"name": name, "arguments": arguments}, request_id), headers=session()
    )


# The seed's four cases and a business error, in Doubao's own flow (2024-11-05, a session).
FOUR_CASES = [
    Request("initialize", body=initialize("2024-11-05"), capture_session="session_id"),
    Request(
        "notifications_initialized", body=rpc("notifications/initialized", request_id=None), headers=session()
    ),
    _call("search_routes", ROUTE_ARGS, 2),
    _call("search_routes_for_reference", {"origin": "guomao", "destination": "capital_airport_t3"}, 3),
    _call("search_products", {"keyword": "cup"}, 4),
    _call("subscribe_product", {"product_id": "p-1003", "alert": "price_drop", "target_price_yuan": 30}, 5),
    Request(
        "search_routes_missing_destination_40001",
        body=rpc("tools/call", {"name": "search_routes", "arguments": {"origin": "guomao"}}, 6),
        headers=session(),
    ),
    Request("delete_session", method="DELETE", headers=session()),
]


SUBSCRIBE = {"product_id": "p-1004", "alert": "restock"}


def _subscribe(name: str, arguments: dict[str, Any], request_id: int, tool_call_id: str | None) -> Request:
    body = modern("tools/call", {"name": "subscribe_product", "arguments": arguments}, request_id)
    if tool_call_id is not None:
        body["params"]["_meta"]["tool_call_id"] = tool_call_id
    return Request(name, body=body, headers=modern_headers("tools/call", "subscribe_product"))


# Exactly-once calls: a call, its retry with the same tool_call_id (replayed: the same subscription), the same id
# with other arguments (40900, nothing runs), and the call without an id (it runs: a new subscription).
EXACTLY_ONCE = [
    _subscribe("subscribe_product", SUBSCRIBE, 1, "call_replay_0001"),
    _subscribe("retry_same_tool_call_id_replayed", SUBSCRIBE, 2, "call_replay_0001"),
    _subscribe(
        "same_tool_call_id_other_arguments_40900",
        {"product_id": "p-1004", "alert": "price_drop", "target_price_yuan": 30},
        3,
        "call_replay_0001",
    ),
    _subscribe("without_tool_call_id_runs_again", SUBSCRIBE, 4, None),
]


def _b64(value: str) -> str:
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


LIST = modern("tools/list", request_id=7)
LIST_HEADERS = modern_headers("tools/list")
V25 = "2025-11-25"
BAD_INPUTS = [
    Request("initialize_2025_11_25", body=initialize(V25, client="replay"), capture_session="session_id"),
    Request(
        "origin_not_allowed_403", body=LIST, headers={**LIST_HEADERS, "origin": "https://evil.example.com"}
    ),
    Request("accept_without_json_406", body=LIST, headers={**LIST_HEADERS, "accept": "text/event-stream"}),
    Request("content_type_not_json_415", body=LIST, headers={**LIST_HEADERS, "content-type": "text/plain"}),
    Request("declared_body_over_limit_413", body=LIST, headers={**LIST_HEADERS, "content-length": "2097152"}),
    Request("invalid_json_32700", raw='{"jsonrpc": "2.0", "id": 7, "method": ', headers=LIST_HEADERS),
    Request(
        "malformed_request_32600",
        body={"jsonrpc": "2.0", "id": 7, "method": 42},
        headers=session(version=V25),
    ),
    Request(
        "unknown_tool_32602",
        body=modern("tools/call", {"name": "book_flight", "arguments": {}}, 8),
        headers=modern_headers("tools/call", "book_flight"),
    ),
    Request(
        "bad_arguments_is_error",
        body=modern("tools/call", {"name": "search_routes", "arguments": {"origin": "", "extra": 1}}, 9),
        headers=modern_headers("tools/call", "search_routes"),
    ),
    Request(
        "legacy_missing_session_400", body=rpc("tools/list", {}, 10), headers={"mcp-protocol-version": V25}
    ),
    Request(
        "legacy_unknown_session_404",
        body=rpc("tools/list", {}, 11),
        headers={"mcp-session-id": "no-such-session"},
    ),
    Request("legacy_get_405", method="GET", headers={**session(version=V25), "accept": "text/event-stream"}),
    Request("legacy_ping", body=rpc("ping", None, 12), headers=session(version=V25)),
    Request(
        "legacy_unsupported_version_header_400",
        body=rpc("tools/list", {}, 13),
        headers=session(version="2099-01-01"),
    ),
    Request(
        "negotiate_1999_01_01", body=initialize("1999-01-01", 14, "replay"), capture_session="session_old"
    ),
    Request(
        "negotiate_2024_11_05_echoed",
        body=initialize("2024-11-05", 15, "replay"),
        capture_session="session_v1",
    ),
    Request(
        "initialize_2025_03_26", body=initialize("2025-03-26", 16, "replay"), capture_session="batch_session"
    ),
    Request(
        "batch_2025_03_26",
        body=[
            rpc("ping", None, 17),
            rpc("notifications/initialized", request_id=None),
            rpc("tools/list", {}, 18),
        ],
        headers=session("batch_session"),
    ),
    Request(
        "batch_only_notifications_202",
        body=[rpc("notifications/initialized", request_id=None)],
        headers=session("batch_session"),
    ),
    Request("modern_missing_meta_32602", body=rpc("tools/list", {}, 19), headers=LIST_HEADERS),
    Request(
        "modern_version_header_mismatch_32020",
        body=rpc("tools/list", {"_meta": meta("v999.0.0")}, 20),
        headers=LIST_HEADERS,
    ),
    Request(
        "modern_method_header_mismatch_32020",
        body=modern("tools/list", request_id=21),
        headers=modern_headers("tools/call"),
    ),
    Request(
        "modern_base64_name_mismatch_32020",
        body=modern("tools/call", {"name": "search_routes", "arguments": ROUTE_ARGS}, 22),
        headers=modern_headers("tools/call", _b64("search_products")),
    ),
    Request(
        "modern_base64_name_ok",
        body=modern(
            "tools/call", {"name": "search_products", "arguments": {"keyword": "cup", "limit": 2}}, 23
        ),
        headers=modern_headers("tools/call", _b64("search_products")),
    ),
    Request(
        "modern_unsupported_version_32022",
        body=rpc("tools/list", {"_meta": meta("v999.0.0")}, 24),
        headers=modern_headers("tools/list", version="v999.0.0"),
    ),
    Request(
        "modern_removed_initialize_404",
        body=modern("initialize", {"protocolVersion": MODERN, "capabilities": {}}, 25),
        headers=modern_headers("initialize"),
    ),
    Request("modern_removed_ping_404", body=modern("ping", request_id=26), headers=modern_headers("ping")),
    Request(
        "modern_removed_logging_set_level_404",
        body=modern("logging/setLevel", {"level": "debug"}, 27),
        headers=modern_headers("logging/setLevel"),
    ),
    Request(
        "modern_removed_resources_subscribe_404",
        body=modern("resources/subscribe", {"uri": "test://x"}, 28),
        headers=modern_headers("resources/subscribe"),
    ),
    Request(
        "modern_get_405",
        method="GET",
        headers={"mcp-protocol-version": MODERN, "accept": "text/event-stream"},
    ),
    Request("modern_delete_405", method="DELETE", headers={"mcp-protocol-version": MODERN}),
    Request("modern_batch_rejected", body=[LIST], headers=LIST_HEADERS),
    Request(
        "modern_notification_202",
        body=rpc("notifications/cancelled", {"requestId": 3, "_meta": meta()}, None),
        headers=modern_headers("notifications/cancelled"),
    ),
    Request("legacy_delete_session", method="DELETE", headers=session(version=V25)),
    Request("legacy_use_after_delete_404", body=rpc("tools/list", {}, 29), headers=session(version=V25)),
    Request("modern_tools_list_still_served", body=modern("tools/list", request_id=30), headers=LIST_HEADERS),
]

TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
TRIP = {"stops": ["guomao", "forbidden_city", "sanlitun"], "travel_mode": "transit", "file_format": "pdf"}
TASK = modern_headers("tasks/get", "{{task_id}}")
# The tasks extension: a long export answered as a task, worked by the asynchronous self-invocation, polled.
TASKS_2026_07_28 = [
    Request(
        "tools_call_export_trip_plan_task",
        body=modern("tools/call", {"name": "export_trip_plan", "arguments": TRIP}, 1, TASKS),
        headers=modern_headers("tools/call", "export_trip_plan"),
        capture_task="task_id",
    ),
    Request("tasks_get_working", body=modern("tasks/get", {"taskId": "{{task_id}}"}, 2, TASKS), headers=TASK),
    task_worker(),
    Request(
        "tasks_get_completed", body=modern("tasks/get", {"taskId": "{{task_id}}"}, 3, TASKS), headers=TASK
    ),
    Request(
        "tasks_cancel_after_completion",
        body=modern("tasks/cancel", {"taskId": "{{task_id}}"}, 4, TASKS),
        headers=modern_headers("tasks/cancel", "{{task_id}}"),
    ),
    Request(
        "tasks_get_without_the_extension_32021",
        body=modern("tasks/get", {"taskId": "{{task_id}}"}, 5),
        headers=TASK,
    ),
]


EXPORT_CALL = {"name": "export_trip_plan", "arguments": TRIP, "_meta": {"tool_call_id": "call-export-1"}}
# The Doubao platform has no tasks: the same export, in a 2024-11-05 session, answered as a job that the model
# follows with get_job_status (the job id is derived from the caller, the tool and its tool_call_id).
JOBS_2024_11_05 = [
    Request("initialize", body=initialize("2024-11-05"), capture_session="session_id"),
    Request(
        "notifications_initialized", body=rpc("notifications/initialized", request_id=None), headers=session()
    ),
    Request("tools_list_has_the_job_tools", body=rpc("tools/list", {}, 2), headers=session()),
    Request(
        "tools_call_export_trip_plan_starts_a_job",
        body=rpc("tools/call", EXPORT_CALL, 3),
        headers=session(),
        capture_task="job_id",
    ),
    Request(
        "tools_call_retried_finds_the_same_job", body=rpc("tools/call", EXPORT_CALL, 4), headers=session()
    ),
    Request(
        "get_job_status_working",
        body=rpc("tools/call", {"name": "get_job_status", "arguments": {"job_id": "{{job_id}}"}}, 5),
        headers=session(),
    ),
    task_worker("job_worker_invocation"),
    Request(
        "get_job_status_completed_is_the_tools_result",
        body=rpc("tools/call", {"name": "get_job_status", "arguments": {"job_id": "{{job_id}}"}}, 6),
        headers=session(),
    ),
    Request(
        "cancel_job_after_completion",
        body=rpc("tools/call", {"name": "cancel_job", "arguments": {"job_id": "{{job_id}}"}}, 7),
        headers=session(),
    ),
    Request("delete_session", method="DELETE", headers=session()),
]


def _check_stock(name: str, product_id: str, request_id: int) -> Request:
    body = modern("tools/call", {"name": "check_stock", "arguments": {"product_id": product_id}}, request_id)
    return Request(name, body=body, headers=modern_headers("tools/call", "check_stock"))


# The downstream tool without its downstream: what an agent is told when no inventory is configured, and an id
# the schema refuses before anything is asked.
STOCK_2026_07_28 = [
    _check_stock("check_stock_no_inventory_50101", "p-1001", 1),
    _check_stock("check_stock_bad_product_id_is_error", "p-1/../x", 2),
]

CONVERSATIONS = {
    "doubao_2024_11_05": DOUBAO_2024_11_05,
    "modern_2026_07_28": MODERN_2026_07_28,
    "four_cases": FOUR_CASES,
    "bad_inputs": BAD_INPUTS,
    "exactly_once_2026_07_28": EXACTLY_ONCE,
    "tasks_2026_07_28": TASKS_2026_07_28,
    "jobs_2024_11_05": JOBS_2024_11_05,
    "stock_2026_07_28": STOCK_2026_07_28,
}
