"""The platform client's retry rule, against a real HTTP server on 127.0.0.1: idempotent calls are retried on
429/5xx, a POST is not (unless the caller says it is idempotent), and the one log line counts the attempts."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcp_lambda.platform_api import PlatformApiClient, PlatformApiError

LOGGER = "tests.platform_api"


@dataclass
class Platform:
    """A scripted platform: answers `statuses` in order, then 200; records the method of every request."""

    url: str
    statuses: list[int] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)


@pytest.fixture
def platform() -> Iterator[Platform]:
    scripted = Platform(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            scripted.seen.append(self.command)
            status = scripted.statuses.pop(0) if scripted.statuses else 200
            payload = json.dumps(
                {"code": 0 if status == 200 else 1, "data": {"requests": len(scripted.seen)}}
            )
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("x-tt-logid", f"L-{len(scripted.seen)}")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload.encode())

        do_GET = do_POST = do_PUT = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    scripted.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield scripted
    finally:
        server.shutdown()
        server.server_close()


def _client(url: str) -> PlatformApiClient:
    return PlatformApiClient(url, logging.getLogger(LOGGER), timeout_seconds=2, backoff_seconds=0.01)


def _call_line(caplog: pytest.LogCaptureFixture) -> dict[str, Any]:
    """The one `platform_api_call` record, with its `extra` fields as keys."""
    (record,) = [record for record in caplog.records if record.name == LOGGER]
    assert record.getMessage() == "platform_api_call"
    return vars(record)


def test_a_post_that_gets_503_is_not_retried(platform: Platform, caplog: pytest.LogCaptureFixture) -> None:
    platform.statuses = [503]
    with caplog.at_level(logging.INFO, logger=LOGGER), pytest.raises(PlatformApiError) as caught:
        _client(platform.url).call("order.create", "/open/v1/order", json_body={"item": 1})

    assert platform.seen == ["POST"]
    assert (caught.value.status, caught.value.business_code, caught.value.log_id) == (503, 1, "L-1")
    line = _call_line(caplog)
    assert (line["http_status"], line["attempts"], line["error"]) == (503, 1, "HTTP 503")


def test_a_get_that_gets_503_then_200_is_retried(
    platform: Platform, caplog: pytest.LogCaptureFixture
) -> None:
    platform.statuses = [503]
    with caplog.at_level(logging.INFO, logger=LOGGER):
        response = _client(platform.url).call("items.list", "/open/v1/items", method="GET")

    assert platform.seen == ["GET", "GET"]
    assert (response.status, response.data, response.log_id) == (200, {"requests": 2}, "L-2")
    line = _call_line(caplog)
    assert (line["levelno"], line["http_status"], line["attempts"]) == (logging.INFO, 200, 2)


def test_a_post_marked_idempotent_is_retried(platform: Platform) -> None:
    platform.statuses = [503, 429]
    response = _client(platform.url).call("order.upsert", "/open/v1/order", json_body={}, idempotent=True)

    assert platform.seen == ["POST", "POST", "POST"]
    assert response.data == {"requests": 3}


def test_a_get_marked_not_idempotent_is_not_retried(platform: Platform) -> None:
    platform.statuses = [502]
    with pytest.raises(PlatformApiError):
        _client(platform.url).call("token.consume", "/open/v1/token", method="GET", idempotent=False)

    assert platform.seen == ["GET"]


def test_retries_stop_after_max_attempts_and_report_the_last_answer(platform: Platform) -> None:
    platform.statuses = [500, 502, 504, 200]
    with pytest.raises(PlatformApiError) as caught:
        _client(platform.url).call("items.list", "/open/v1/items", method="GET")

    assert platform.seen == ["GET"] * 3
    assert (caught.value.status, caught.value.log_id) == (504, "L-3")


def test_a_refused_connection_is_retried_even_for_a_post(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = PlatformApiClient(f"http://127.0.0.1:{port}", logging.getLogger(LOGGER), backoff_seconds=0)
    with caplog.at_level(logging.INFO, logger=LOGGER), pytest.raises(PlatformApiError) as caught:
        client.call("order.create", "/open/v1/order", json_body={})

    assert caught.value.status is None
    assert _call_line(caplog)["attempts"] == client.max_attempts


def test_the_platform_client_shares_ctx_http_s_circuit_breaker(platform: Platform) -> None:
    from mcp_lambda.downstream import DownstreamUnavailable, EgressPolicy, HttpClient

    http = HttpClient(
        logging.getLogger(LOGGER),
        backoff_seconds=0.01,
        failure_threshold=2,
        reset_seconds=30,
        egress=EgressPolicy([platform.url]),
    )
    client = PlatformApiClient(platform.url, logging.getLogger(LOGGER), http=http)
    platform.statuses = [503] * 6
    for _ in range(2):
        with pytest.raises(PlatformApiError):
            client.call("items.list", "/open/v1/items", method="GET")
    reached = len(platform.seen)

    with pytest.raises(PlatformApiError) as caught:
        client.call("items.list", "/open/v1/items", method="GET")

    assert len(platform.seen) == reached  # the open circuit sent nothing
    assert isinstance(caught.value, DownstreamUnavailable)  # a tool letting it go answers 50300
    assert caught.value.retry_after_ms is not None and 0 < caught.value.retry_after_ms <= 30_000
