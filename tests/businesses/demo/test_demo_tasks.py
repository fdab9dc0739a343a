"""export_trip_plan, the demo's long-running tool: a task for a 2026-07-28 client that takes tasks (its worker
run through the same handler, as Lambda runs the asynchronous invocation), a job for a session client (the Doubao
platform), a plain call for a 2026-07-28 client without the extension."""

from __future__ import annotations

import pytest

from businesses.demo import BUSINESS
from mcp_lambda.testing import McpTestClient

TRIP = {"stops": ["guomao", "forbidden_city", "sanlitun"], "travel_mode": "transit", "file_format": "pdf"}


@pytest.fixture
def modern() -> McpTestClient:
    return McpTestClient(BUSINESS, "2026-07-28")


def test_an_export_runs_as_a_task_to_completion(modern: McpTestClient) -> None:
    task = modern.call_tool_as_task("export_trip_plan", TRIP)
    before = task.status()
    done = task.wait()

    assert before.status == "working" and task.created["pollIntervalMs"] == 1000
    assert done.status == "completed" and done.result is not None
    assert done.result.structured_content["legs"] == 2
    assert done.result.structured_content["download_url"].endswith(".pdf")
    assert [outcome["ran"] for outcome in task.outcomes] == [True]


def test_an_export_cancelled_before_its_worker_starts_never_runs(modern: McpTestClient) -> None:
    task = modern.call_tool_as_task("export_trip_plan", TRIP)

    cancelled = task.cancel()
    final = task.wait()

    assert cancelled.status == final.status == "cancelled" and final.result is None
    assert task.outcomes == [{"taskId": task.task_id, "run": 1, "ran": False, "status": "cancelled"}]


def test_an_export_cancelled_while_it_renders_stops_and_stays_cancelled(modern: McpTestClient) -> None:
    stops = ["guomao", "forbidden_city", "sanlitun", "olympic_park", "zhongguancun", "daxing_airport"]
    task = modern.call_tool_as_task("export_trip_plan", {"stops": stops}).run_in_background()

    rendering = task.wait_for(lambda state: (state.status_message or "").startswith("Rendering"))
    task.cancel()
    final = task.wait()

    assert rendering.status == "working"
    assert final.status == "cancelled" and final.result is None
    assert task.outcomes[0]["ran"] is True and task.outcomes[0]["status"] == "cancelled"


def test_two_consecutive_identical_stops_complete_the_task_with_an_error_result(
    modern: McpTestClient,
) -> None:
    done = modern.call_tool_as_task("export_trip_plan", {"stops": ["guomao", "guomao"]}).wait()

    assert done.status == "completed" and done.result is not None
    assert done.result.is_error and done.result.code == 40002


@pytest.mark.parametrize("era", ["2025-11-25", "2024-11-05"])
def test_a_session_client_gets_the_export_as_a_job(era: str) -> None:
    with McpTestClient(BUSINESS, era) as client:
        started = client.call_tool(
            "export_trip_plan", {"stops": ["guomao", "sanlitun"], "file_format": "ics"}
        )
        job_id = started.structured_content["job_id"]
        client.function.run_workers(job_id)  # what Lambda runs later, asynchronously
        result = client.call_tool("get_job_status", {"job_id": job_id})

    assert started.structured_content["state"] == "working" and "get_job_status" in started.text
    assert not result.is_error and result.structured_content["download_url"].endswith(".ics")


def test_a_modern_client_without_the_tasks_extension_waits_for_the_result(modern: McpTestClient) -> None:
    result = modern.call_tool("export_trip_plan", {"stops": ["guomao", "sanlitun"]})

    assert result.result_type == "complete" and result.structured_content["legs"] == 1
