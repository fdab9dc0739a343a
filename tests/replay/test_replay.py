"""Framework-level checks of the recorded conversations under events/: each business's own tests replay them
(`replay_conversations("<business>")` in tests/businesses/<business>/), so a recording can never go unreplayed,
and what is recorded is what the business's conversations.py scripts."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_lambda.testing.events import EVENTS_DIR
from mcp_lambda.testing.replay import load_conversation
from mcp_lambda_tools.suites.record_events import load_script

ROOT = Path(__file__).resolve().parents[2]
BUSINESS_TESTS = ROOT / "tests" / "businesses"
RECORDED = sorted(path.name for path in EVENTS_DIR.iterdir() if path.is_dir())


def replayed_businesses(folder: Path) -> set[str]:
    """The businesses whose recordings a test file of `folder` replays: `replay_conversations("<name>")` calls."""
    names = set()
    for path in folder.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name | ast.Attribute)
                and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
                == "replay_conversations"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(str(node.args[0].value))
    return names


def test_there_are_recordings_to_check() -> None:
    assert "demo" in RECORDED


@pytest.mark.parametrize("business", RECORDED)
def test_every_recorded_business_is_replayed_by_its_own_tests(business: str) -> None:
    folder = BUSINESS_TESTS / business
    assert folder.is_dir(), f"events/{business}/ has no tests/businesses/{business}/ to replay it"
    assert business in replayed_businesses(folder), (
        f"no test file in tests/businesses/{business}/ calls replay_conversations({business!r})"
    )


@pytest.mark.parametrize("business", RECORDED)
def test_the_recordings_are_the_scripted_conversations(business: str) -> None:
    script = load_script(business)
    assert script is not None, f"events/{business}/ has no tests/businesses/{business}/conversations.py"
    recorded = {path.name for path in (EVENTS_DIR / business).iterdir() if path.is_dir()}
    assert recorded == set(script.CONVERSATIONS), f"record again: make events BUSINESS={business}"
    for name, steps in script.CONVERSATIONS.items():
        saved = [step.name for step in load_conversation(EVENTS_DIR / business / name)]
        assert saved == [f"{index:02d}_{step.name}" for index, step in enumerate(steps, start=1)], name


def test_the_guard_finds_a_replay_call_and_misses_a_folder_without_one(tmp_path: Path) -> None:
    (tmp_path / "test_shop_conversations.py").write_text(
        'from mcp_lambda import testing\n\ntest_conversations = testing.replay_conversations("shop")\n'
    )
    (tmp_path / "test_shop_tools.py").write_text(
        'replay_conversations = print\nreplay_conversations("other")\n'
    )
    (tmp_path / "helpers.py").write_text('replay_conversations("not_a_test_file")\n')

    assert replayed_businesses(tmp_path) == {"shop", "other"}
    assert replayed_businesses(tmp_path / "empty") == set()


def test_the_events_folder_holds_only_business_folders() -> None:
    assert all(path.is_dir() or path.name == "README.md" for path in Path(EVENTS_DIR).iterdir())
