"""One `make run` server (the demo business through the Lambda handler) for the whole interop session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcp_lambda_dev.local.process import running_server


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    with running_server("demo") as url:
        yield url
