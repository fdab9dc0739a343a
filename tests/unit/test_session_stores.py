"""Both session stores refuse to overwrite a session id with the same named error."""

from __future__ import annotations

import pytest

from mcp_lambda.stores.sessions import MemorySessionStore, SessionIdTaken, dynamodb, open_session


def test_a_colliding_session_id_raises_session_id_taken() -> None:
    store = MemorySessionStore()
    session = open_session(protocol_version="2024-11-05", business="testbiz", ttl_seconds=60)
    store.create(session)

    with pytest.raises(SessionIdTaken):
        store.create(session)
    assert store.get(session.session_id) == session


def test_session_id_taken_is_one_error_for_every_store() -> None:
    # The DynamoDB store raises the same class (tests/integration covers the conditional write itself).
    assert dynamodb.SessionIdTaken is SessionIdTaken
    assert issubclass(SessionIdTaken, ValueError)
