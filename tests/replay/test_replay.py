"""Replay every business's recorded conversations (events/<business>/<conversation>/) through the real Lambda
handler, in order, comparing each answer with its recording and with the official wire types."""

from __future__ import annotations

from pathlib import Path

from mcp_lambda.testing.events import EVENTS_DIR, replay_conversations
from mcp_lambda.testing.replay import load_conversation

# One case per conversation of every business folder: a new business's recordings replay without a line here.
test_conversation_replays_as_recorded = replay_conversations()

DEMO = EVENTS_DIR / "demo"


def test_the_demo_conversations_are_saved() -> None:
    saved = {"doubao_2024_11_05", "modern_2026_07_28", "four_cases", "bad_inputs", "tasks_2026_07_28"}
    assert saved <= {p.name for p in DEMO.iterdir() if p.is_dir()}


def test_the_demo_conversations_are_the_scripted_ones() -> None:
    from tests.conversations.demo import CONVERSATIONS

    for name, steps in CONVERSATIONS.items():
        recorded = [step.name for step in load_conversation(DEMO / name)]
        assert recorded == [f"{index:02d}_{step.name}" for index, step in enumerate(steps, start=1)], name


def test_modern_conversation_never_sees_a_session_id() -> None:
    for step in load_conversation(DEMO / "modern_2026_07_28"):
        assert step.expected["headers"]["mcp-session-id"] is None


def test_the_events_folder_holds_only_business_folders() -> None:
    assert all(path.is_dir() or path.name == "README.md" for path in Path(EVENTS_DIR).iterdir())
