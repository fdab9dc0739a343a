"""The demo's recorded conversations (events/demo/, scripted in conversations.py), replayed through the handler,
and what those recordings must hold."""

from __future__ import annotations

from mcp_lambda.testing import replay_conversations
from mcp_lambda.testing.events import EVENTS_DIR
from mcp_lambda.testing.replay import load_conversation

# As conversations.ENVIRONMENT: recorded with no inventory configured.
test_conversations = replay_conversations("demo", environment={"DEMO_INVENTORY_URL": ""})

DEMO = EVENTS_DIR / "demo"


def test_the_demo_conversations_are_saved() -> None:
    saved = {
        "doubao_2024_11_05",
        "modern_2026_07_28",
        "four_cases",
        "bad_inputs",
        "tasks_2026_07_28",
        "stock_2026_07_28",
    }
    assert saved <= {p.name for p in DEMO.iterdir() if p.is_dir()}


def test_modern_conversation_never_sees_a_session_id() -> None:
    for step in load_conversation(DEMO / "modern_2026_07_28"):
        assert step.expected["headers"]["mcp-session-id"] is None
