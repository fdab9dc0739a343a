"""The test kit's `fake_service`: a client that hangs up on a slow answer (its own timeout, what a slow fake is for)
prints nothing into the test's output; a fault of the fake's own is still reported."""

from __future__ import annotations

import socket
import time
import urllib.request

import pytest

from mcp_lambda.testing import fake_service


def test_a_client_that_hangs_up_on_a_slow_answer_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with fake_service() as service:
        service.latency_ms = 300
        for _ in range(2):
            with pytest.raises((TimeoutError, OSError)):
                urllib.request.urlopen(service.url + "/slow", timeout=0.05)
        deadline = time.monotonic() + 5
        while len(service.seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.6)  # both answers written after their clients left
    assert len(service.seen) == 2
    assert "Exception occurred" not in capfd.readouterr().err


def test_a_fault_of_the_fakes_own_is_still_reported(capfd: pytest.CaptureFixture[str]) -> None:
    def broken(request: object) -> tuple[int, object]:
        raise RuntimeError("the route itself is broken")

    with fake_service() as service:
        service.routes["/broken"] = broken
        with socket.create_connection(("127.0.0.1", service.port), timeout=5) as connection:
            connection.sendall(b"GET /broken HTTP/1.1\r\nHost: x\r\n\r\n")
            connection.recv(1)  # the server closes the connection once the handler has failed
    err = capfd.readouterr().err
    assert "Exception occurred" in err and "the route itself is broken" in err
