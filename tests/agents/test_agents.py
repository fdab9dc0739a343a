"""Eight real MCP clients and agent frameworks against the demo, each checked on what its model would read.

Each framework lists the tools; calls one; gets an error result (its code and `suggested_action`, where the
framework surfaces them); chains `search_products` -> `subscribe_product` with a `product_id` its scripted model
took from the tool output the framework handed it; and runs `export_trip_plan` (a task tool: none of these clients
declares the 2026-07-28 tasks extension: a stateless client gets the result synchronously, a session client a job
whose id and next step its model reads). The table is in docs/agents.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.agents.frameworks import FRAMEWORKS

from businesses.demo import BUSINESS as DEMO

pytestmark = pytest.mark.interop

NAMES = [framework.name for framework in FRAMEWORKS]
# What the demo offers a model: every framework must list all of it (an app-only card action is not listed to a
# client that declared no MCP Apps support, and none of these declares it).
TOOLS = {spec.name for spec in DEMO.tools if spec.model_visible}
# The clients that open a session (a legacy revision, mcp 1.x and the TypeScript SDK 1.x): without the tasks
# extension the demo's long export runs as a job there (docs/tasks.md), and the framework's job tools are listed.
LEGACY_CLIENTS = {"typescript-sdk-1", "typescript-sdk-1-stdio", "mcp-remote", "langchain"}
JOB_TOOLS = {"get_job_status", "cancel_job"}
ERROR_MESSAGE = "Origin and destination are the same place."
ERROR_FIELDS = {"code": 40002, "suggested_action": "fix_arguments"}
# Both legs of the trip report progress (0 of 2, 1 of 2) before the result.
EVERY_PROGRESS = [[0, 2], [1, 2]]


def _report(reports: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    report = reports[name]
    assert "failed" not in report, report["failed"]
    return report


@pytest.mark.parametrize("name", NAMES)
def test_lists_the_demo_tools(reports: dict[str, dict[str, Any]], name: str) -> None:
    assert set(_report(reports, name)["tools"]) == (TOOLS | JOB_TOOLS if name in LEGACY_CLIENTS else TOOLS)


@pytest.mark.parametrize("name", NAMES)
def test_the_model_reads_a_tool_result(reports: dict[str, dict[str, Any]], name: str) -> None:
    assert "About 12 min, 3.6 km, about 22 yuan." in _report(reports, name)["reads"]["call"]


@pytest.mark.parametrize("name", NAMES)
def test_the_model_reads_an_error_result(reports: dict[str, dict[str, Any]], name: str) -> None:
    """The message reaches the model, and the code and suggested_action reach whoever the framework gives them."""
    report = _report(reports, name)
    read = report["reads"]["error"]
    assert ERROR_MESSAGE in read, read
    surfaced = report.get("error_surfaced", {})
    if name == "pydantic-ai":  # the agent hands its model the structured error itself (a retry prompt)
        assert all(str(value) in read for value in ERROR_FIELDS.values()), read
    elif (
        name == "langchain"
    ):  # an isError ToolMessage: content only, no artifact (structured content is dropped)
        assert surfaced == {"status": "error", "artifact": None}
    else:  # the structured error beside the text: the SDK's result, openai-agents' custom_data_extractor
        assert surfaced.get("is_error") is True, surfaced
        assert {key: surfaced.get(key) for key in ERROR_FIELDS} == ERROR_FIELDS


@pytest.mark.parametrize("name", NAMES)
def test_the_model_chains_search_to_subscribe_from_what_it_read(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    report = _report(reports, name)
    assert report["product_id"] is not None, (
        f"no product_id in what the model read: {report['reads']['search']!r}"
    )
    assert "Subscribed (sub_" in report["reads"]["subscribe"], report["reads"]["subscribe"]


@pytest.mark.parametrize("name", NAMES)
def test_the_task_tool_answers_synchronously_or_as_a_job(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    read = _report(reports, name)["reads"]["task"]
    if name in LEGACY_CLIENTS:  # the model reads the job's id and its next step
        assert "Started export_trip_plan as a background job (job_id " in read, read
        assert "Call get_job_status with this job_id" in read, read
    else:
        assert "Exported 2 legs" in read, read


def _progress(name: str) -> list[list[int]]:
    # A job's start answers before the work: its progress is get_job_status's to report, not a notification's.
    return [] if name in LEGACY_CLIENTS else EVERY_PROGRESS


@pytest.mark.parametrize("name", [name for name in NAMES if name.startswith("typescript-sdk")])
def test_typescript_clients_receive_every_progress_notification(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    assert _report(reports, name)["progress"] == _progress(name)


@pytest.mark.parametrize("name", ["python-sdk", "fastmcp", "langchain"])
def test_python_progress_callbacks_receive_every_notification(
    reports: dict[str, dict[str, Any]], name: str
) -> None:
    assert _report(reports, name)["progress"] == _progress(name)


def _hidden_field_names() -> set[str]:
    """The demo manifest's `llm_visible: false` and undeclared (card-only) fields, by name (not entity_type)."""
    from mcp_lambda.manifest import load_manifest
    from mcp_lambda.manifest.visibility import all_fields

    manifest = load_manifest(Path(__file__).resolve().parents[2] / "manifest" / "demo.yaml")
    hidden = {path.rsplit(".", 1)[-1] for path, spec in all_fields(manifest) if not spec.llm_visible}
    return (hidden - {"entity_type"}) | {"map_image_url", "image_url", "supplier_cost_yuan"}


@pytest.mark.parametrize("name", NAMES)
def test_no_model_reads_a_hidden_value_of_the_demo(reports: dict[str, dict[str, Any]], name: str) -> None:
    """None of these clients renders cards, so what any of them hands its model (Pydantic AI's MCPToolset hands
    it structuredContent too) holds no hidden field: neither its name nor its value."""
    reads = _report(reports, name)["reads"]
    read = "\n".join((reads["call"], reads["search"]))
    assert not {field for field in _hidden_field_names() if f'"{field}"' in read}, read
    assert "page/route?id=" not in read and "page/product?id=" not in read, read
    assert "img.example.com" not in read and "maps.example.com" not in read, read
    if (
        name == "pydantic-ai"
    ):  # its model reads structuredContent (entity_type is only there), yet nothing hidden
        assert '"entity_type"' in read, read
