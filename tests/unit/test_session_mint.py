"""initialize never overwrites a session: an id collision draws a new id, and the client still gets a session."""

from __future__ import annotations

from tests.support.handlers import build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore, Session, SessionIdTaken
from mcp_lambda.testing import McpTestClient


class CollidingOnce(MemorySessionStore):
    def __init__(self) -> None:
        super().__init__()
        self.refused: list[str] = []

    def create(self, session: Session) -> None:
        if not self.refused:
            self.refused.append(session.session_id)
            raise SessionIdTaken("session id already exists")
        super().create(session)


def test_an_id_collision_mints_another_id() -> None:
    store = CollidingOnce()
    client = McpTestClient.over_handler(build_handler(BUSINESS, Settings(business="conformance"), store))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "c"}},
    }
    reply = client.post(body)
    session_id = reply.headers["mcp-session-id"]
    assert reply.status == 200
    assert session_id != store.refused[0]
    assert store.get(session_id) is not None


def test_a_session_id_we_could_never_have_minted_is_404_without_a_store_lookup() -> None:
    class Untouchable(MemorySessionStore):
        def get(self, session_id: str) -> Session | None:
            raise AssertionError("the store must not be asked")

    client = McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="conformance"), Untouchable())
    )
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    for bad in ("x" * 3000, "has space"):
        reply = client.post(body, {"mcp-session-id": bad})
        assert reply.status == 404
        assert reply.body["id"] == 7
