"""The public record/replay of the test kit, on a tiny business written into tmp_path: what is recorded replays
green, and a changed answer, an unqueued worker event or a missing recording fails with the step named."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import businesses
import mcp_lambda.testing
from mcp_lambda.testing.conversation import Step, initialize, modern, modern_headers, rpc, session
from mcp_lambda.testing.events import (
    EVENTS_DIR,
    record_conversations,
    replay_conversation,
    replay_conversations,
)
from mcp_lambda.testing.replay import Mismatch, RecordedStep, check_wire

ROOT = Path(__file__).resolve().parents[2]
SHOP = """
    import secrets

    from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool


    @tool(description="Use to place an order for one item. Not for anything else.")
    def place_order(item: str, ctx: ToolContext) -> ToolResult:
        return execution_result({"order_id": "ord_" + secrets.token_hex(6), "item": item}, text=f"ordered {item}")


    BUSINESS = Business(name="tinyshop", tools=[place_order], instructions="A business for the kit's tests.")
"""
ORDER = {"name": "place_order", "arguments": {"item": "cup"}}
CONVERSATIONS = {
    "modern_order": [
        Step("tools_list", body=modern("tools/list"), headers=modern_headers("tools/list")),
        Step(
            "place_order",
            body=modern("tools/call", ORDER, 2),
            headers=modern_headers("tools/call", "place_order"),
        ),
    ],
    "legacy_order": [
        Step("initialize", body=initialize("2025-11-25"), capture_session="session_id"),
        Step("place_order", body=rpc("tools/call", ORDER, 2), headers=session()),
        Step("delete_session", method="DELETE", headers=session()),
    ],
}
MINTED = {"order_id": r"ord_[0-9a-f]{12}"}


def _throwaway(name: str, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """businesses.<name>, a throwaway business package under tmp_path."""
    package = tmp_path / "code" / "businesses" / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(source))
    monkeypatch.setattr(businesses, "__path__", [*businesses.__path__, str(package.parent)])
    yield name
    sys.modules.pop(f"businesses.{name}", None)


@pytest.fixture
def tinyshop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """businesses.tinyshop, a throwaway business package under tmp_path."""
    yield from _throwaway("tinyshop", SHOP, tmp_path, monkeypatch)


@pytest.fixture
def recorded(tinyshop: str, tmp_path: Path) -> Path:
    events = tmp_path / "events"
    record_conversations(tinyshop, CONVERSATIONS, events_dir=events, minted=MINTED)
    return events


def test_a_recording_is_one_folder_per_conversation_of_numbered_event_and_answer_files(
    recorded: Path,
) -> None:
    names = sorted(str(path.relative_to(recorded)) for path in recorded.rglob("*.json"))
    assert names == [
        "tinyshop/legacy_order/01_initialize.expected.json",
        "tinyshop/legacy_order/01_initialize.json",
        "tinyshop/legacy_order/02_place_order.expected.json",
        "tinyshop/legacy_order/02_place_order.json",
        "tinyshop/legacy_order/03_delete_session.expected.json",
        "tinyshop/legacy_order/03_delete_session.json",
        "tinyshop/modern_order/01_tools_list.expected.json",
        "tinyshop/modern_order/01_tools_list.json",
        "tinyshop/modern_order/02_place_order.expected.json",
        "tinyshop/modern_order/02_place_order.json",
    ]
    answer = json.loads((recorded / "tinyshop/legacy_order/02_place_order.expected.json").read_text())
    assert answer["body"]["result"]["structuredContent"] == {"order_id": "{{order_id}}", "item": "cup"}
    event = json.loads((recorded / "tinyshop/legacy_order/02_place_order.json").read_text())
    assert event["headers"]["mcp-session-id"] == "{{session_id}}"


def test_recording_again_writes_the_same_bytes(recorded: Path, tinyshop: str, tmp_path: Path) -> None:
    again = tmp_path / "again"
    record_conversations(tinyshop, CONVERSATIONS, events_dir=again, minted=MINTED)
    for path in recorded.rglob("*.json"):
        assert (again / path.relative_to(recorded)).read_bytes() == path.read_bytes(), path.name


@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
def test_a_recorded_conversation_replays_green(recorded: Path, tinyshop: str, conversation: str) -> None:
    replay_conversation(tinyshop, recorded / tinyshop / conversation)


def test_a_changed_answer_fails_naming_the_conversation_and_the_step(recorded: Path, tinyshop: str) -> None:
    path = recorded / "tinyshop/legacy_order/02_place_order.expected.json"
    answer = json.loads(path.read_text())
    answer["body"]["result"]["structuredContent"]["item"] = "teapot"
    path.write_text(json.dumps(answer))
    with pytest.raises(
        Mismatch, match=r"tinyshop/legacy_order/02_place_order: body\.result\.structuredContent"
    ):
        replay_conversation(tinyshop, recorded / tinyshop / "legacy_order")


def test_a_changed_status_fails_naming_the_step(recorded: Path, tinyshop: str) -> None:
    path = recorded / "tinyshop/modern_order/01_tools_list.expected.json"
    path.write_text(path.read_text().replace('"statusCode": 200', '"statusCode": 202'))
    with pytest.raises(Mismatch, match=r"tinyshop/modern_order/01_tools_list: status 200 != 202"):
        replay_conversation(tinyshop, recorded / tinyshop / "modern_order")


def test_a_worker_event_the_handler_did_not_queue_fails(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    shutil.copytree(EVENTS_DIR / "demo" / "tasks_2026_07_28", folder)
    worker = folder / "03_task_worker_invocation.json"
    event = json.loads(worker.read_text())
    event["mcp_lambda.task"]["run"] += 1
    worker.write_text(json.dumps(event))
    with pytest.raises(Mismatch, match=r"demo/tasks/03_task_worker_invocation: the handler queued"):
        replay_conversation("demo", folder)


def test_the_one_liner_is_a_test_with_one_case_per_conversation(recorded: Path, tinyshop: str) -> None:
    test = replay_conversations(tinyshop, events_dir=recorded)
    [mark] = [mark for mark in test.pytestmark if mark.name == "parametrize"]  # type: ignore[attr-defined]
    assert mark.kwargs["ids"] == ["tinyshop/legacy_order", "tinyshop/modern_order"]
    for business, folder in mark.args[1]:
        test(business, folder)


def test_a_business_without_recordings_gets_a_failing_case_that_says_how_to_record(tmp_path: Path) -> None:
    test = replay_conversations("nothing_yet", events_dir=tmp_path)
    [mark] = [mark for mark in test.pytestmark if mark.name == "parametrize"]  # type: ignore[attr-defined]
    [(business, folder)] = mark.args[1]
    with pytest.raises(Mismatch, match=r"make events BUSINESS=nothing_yet"):
        test(business, folder)


def test_recording_the_demo_again_gives_the_saved_files_byte_for_byte(tmp_path: Path) -> None:
    from mcp_lambda_tools.suites.record_events import load_script

    demo = load_script("demo")
    assert demo is not None
    record_conversations("demo", demo.CONVERSATIONS, events_dir=tmp_path, minted=demo.MINTED)
    saved = sorted(path.relative_to(EVENTS_DIR) for path in (EVENTS_DIR / "demo").rglob("*.json"))
    assert saved == sorted(path.relative_to(tmp_path) for path in (tmp_path / "demo").rglob("*.json"))
    changed = [
        str(name) for name in saved if (tmp_path / name).read_bytes() != (EVENTS_DIR / name).read_bytes()
    ]
    assert not changed


def test_the_wire_check_rejects_an_unofficial_shape_and_is_skipped_without_mcp_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    step = RecordedStep("01_tools_list", {"headers": {"mcp-protocol-version": "2026-07-28"}}, {})
    bad = {"statusCode": 200, "body": {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}}  # no resultType
    with pytest.raises(ValueError, match="resultType"):  # pydantic's ValidationError
        check_wire(step, bad)
    monkeypatch.delattr(mcp_lambda.testing, "wire")
    monkeypatch.delitem(sys.modules, "mcp_lambda.testing.wire")
    monkeypatch.setitem(sys.modules, "mcp_types", None)  # what an install without the dev dependencies has
    assert check_wire(step, bad) is False


def test_make_events_for_a_business_without_a_conversation_file_says_what_to_write(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from mcp_lambda_tools.suites.record_events import main

    assert main(["no_such_business"]) == 2
    assert "write tests/businesses/no_such_business/conversations.py" in capsys.readouterr().err
    assert not (EVENTS_DIR / "no_such_business").exists()


COUNTER = """
    from mcp_lambda.tools import Business, ToolResult, execution_result, tool

    CALLS = []  # in-memory state, as a container keeps it


    def fresh() -> None:
        CALLS.clear()


    @tool(description="Use to count this container's calls. Not for anything else.")
    def count() -> ToolResult:
        CALLS.append(1)
        return execution_result({"calls": len(CALLS)})


    BUSINESS = Business(name="tinycounter", tools=[count], on_cold_start=fresh)
"""
COUNT = [
    Step("count", body=modern("tools/call", {"name": "count", "arguments": {}}, 1),
            headers=modern_headers("tools/call", "count")),
]  # fmt: skip


@pytest.fixture
def tinycounter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """businesses.tinycounter: a business with in-memory state, emptied by its on_cold_start hook."""
    yield from _throwaway("tinycounter", COUNTER, tmp_path, monkeypatch)


def test_each_conversation_is_recorded_and_replayed_against_a_fresh_business_state(
    tinycounter: str, tmp_path: Path
) -> None:
    events = tmp_path / "events"
    record_conversations(tinycounter, {"first": COUNT, "second": COUNT}, events_dir=events)

    answers = [
        json.loads((events / tinycounter / name / "01_count.expected.json").read_text())["body"]["result"]
        for name in ("first", "second")
    ]
    assert [answer["structuredContent"]["calls"] for answer in answers] == [1, 1]
    for name in ("second", "first", "second"):  # any order, any number of times
        replay_conversation(tinycounter, events / tinycounter / name)
