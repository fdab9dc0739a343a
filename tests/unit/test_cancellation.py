"""`notifications/cancelled` for a running tools/call of a session reaches the tool on another container (two
handlers sharing one session store, as Lambda containers share the table): `ctx.cancelled()` turns true and a
wait on `ctx.http` stops; a notification naming no running request changes nothing."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.cancel_business import CANCEL_BUSINESS, STARTED, TARGET
from tests.support.handlers import build_handler

from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import FakeService, McpTestClient, fake_service
from mcp_lambda.testing.apigateway import LocalContext
from mcp_lambda.testing.runtime import HandlerTransport

SESSION = "2024-11-05"
SETTINGS = Settings(
    business="cancelbiz",
    request_deadline_ms=25_000,
    http_timeout_ms=20_000,
    http_max_attempts=1,
    egress_allow=("127.0.0.1",),  # the test's slow service
)


class ContainerOfItsOwn(HandlerTransport):
    """A container serving on a loop of its own thread: the kit's in-process calls take turns on one loop (one
    container), and here the first container is busy with the call the second one hears cancelled."""

    def deliver(self, event: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            return self.handler(event, LocalContext())  # type: ignore[no-any-return]
        finally:
            asyncio.set_event_loop(None)
            loop.close()


class TwoContainers:
    """One session opened on the first container; the second one gets its notifications."""

    def __init__(self) -> None:
        sessions = MemorySessionStore()
        first = ContainerOfItsOwn(build_handler(CANCEL_BUSINESS, SETTINGS, sessions))
        self.first = McpTestClient(None, SESSION, transport=first)
        self.first.initialize()
        self.second = McpTestClient.over_handler(
            build_handler(CANCEL_BUSINESS, SETTINGS, sessions), era=SESSION
        )
        self.second.session_id = self.first.session_id

    def call_in_background(self, name: str, arguments: dict[str, Any], request_id: int) -> dict[str, Any]:
        answer: dict[str, Any] = {}

        def call() -> None:
            reply = self.first.rpc(
                "tools/call", {"name": name, "arguments": arguments}, request_id=request_id
            )
            answer.update(reply.result or {"error": reply.error})

        STARTED.clear()
        thread = threading.Thread(target=call, daemon=True)
        thread.start()
        self.thread = thread
        assert STARTED.wait(10), "the tool never started"
        return answer


@pytest.fixture
def containers() -> TwoContainers:
    return TwoContainers()


@pytest.fixture
def slow_service() -> Iterator[FakeService]:
    with fake_service() as service:
        service.latency_ms = 15_000  # answers long after the call was cancelled
        TARGET["url"] = service.url
        yield service
        service.latency_ms = 0


def test_a_cancelled_call_sees_ctx_cancelled_on_another_container(containers: TwoContainers) -> None:
    answer = containers.call_in_background("wait_until_cancelled", {"seconds": 20}, request_id=41)

    accepted = containers.second.notify("notifications/cancelled", {"requestId": 41, "reason": "user stop"})
    containers.thread.join(30)

    assert accepted.status == 202
    assert answer["structuredContent"] == {
        "success": False,
        "cancelled": True,
        "message": "stopped: cancelled",
    }


def test_ctx_http_stops_waiting_once_the_call_is_cancelled(
    containers: TwoContainers, slow_service: FakeService
) -> None:
    answer = containers.call_in_background("slow_fetch", {}, request_id="fetch-1")

    containers.second.notify("notifications/cancelled", {"requestId": "fetch-1"})
    containers.thread.join(30)

    assert answer["isError"] is True
    assert "cancelled" in answer["structuredContent"]["message"]
    assert answer["structuredContent"]["suggested_action"] == "skip_and_continue"


def test_a_cancellation_of_another_request_id_changes_nothing(containers: TwoContainers) -> None:
    answer = containers.call_in_background("wait_until_cancelled", {"seconds": 1.5}, request_id=7)

    containers.second.notify("notifications/cancelled", {"requestId": "7"})  # a string: another request
    containers.second.notify("notifications/cancelled", {"requestId": {"not": "an id"}})
    containers.thread.join(30)

    assert answer["structuredContent"]["cancelled"] is False


@pytest.mark.parametrize(
    ("request_id", "key"),
    [
        (7, "7"),
        ("7", '"7"'),  # 1 and "1" name different requests
        (
            'été\n"q"\u2028\ud800',
            '"été\\n\\"q\\"\u2028\ud800"',
        ),  # as json.dumps(ensure_ascii=False) writes it
        (True, None),
        (1.5, None),
        (None, None),
        ("x" * 300, None),  # longer than any id a client cancels sensibly
    ],
)
def test_a_request_id_is_keyed_by_its_json_text(request_id: Any, key: str | None) -> None:
    import json

    from mcp_lambda.protocol.cancellation import request_key

    assert request_key(request_id) == key
    if key is not None:
        assert key == json.dumps(
            request_id, ensure_ascii=False
        )  # the key sessions already hold stays the same
