"""initialize never overwrites a session: an id collision draws a new id, and the client still gets a session."""

from __future__ import annotations

import asyncio
import json

from businesses.conformance import BUSINESS
from mcp_lambda.app import create_app
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.local.events import LocalContext, http_event
from mcp_lambda.sessions import MemorySessionStore, Session
from mcp_lambda.settings import Settings


class CollidingOnce(MemorySessionStore):
    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    def create(self, session: Session) -> None:
        if not self.refused:
            self.refused.append(session.session_id)
            raise ValueError("session id already exists")
        super().create(session)


def test_an_id_collision_mints_another_id() -> None:
    asyncio.set_event_loop(asyncio.new_event_loop())
    store = CollidingOnce()
    app = create_app(Settings(business="conformance"), BUSINESS, store)
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "c"}},
    }
    event = http_event("POST", "/mcp", {"content-type": "application/json"}, json.dumps(body))
    response = lambda_handler(app)(event, LocalContext())
    session_id = response["headers"]["mcp-session-id"]
    assert response["statusCode"] == 200
    assert session_id != store.refused[0]
    assert store.get(session_id) is not None


def test_a_session_id_we_could_never_have_minted_is_404_without_a_store_lookup() -> None:
    asyncio.set_event_loop(asyncio.new_event_loop())

    class Untouchable(MemorySessionStore):
        def get(self, session_id: str) -> Session | None:
            raise AssertionError("the store must not be asked")

    app = create_app(Settings(business="conformance"), BUSINESS, Untouchable())
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    for bad in ("x" * 3000, "has space"):
        event = http_event(
            "POST", "/mcp", {"content-type": "application/json", "mcp-session-id": bad}, json.dumps(body)
        )
        response = lambda_handler(app)(event, LocalContext())
        assert response["statusCode"] == 404
        assert json.loads(response["body"])["id"] == 7
