"""One `make run` server (the demo business through the Lambda handler) for the whole interop session, and the
local authorization server for the OAuth interop test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.oauth import Issuer

from mcp_lambda_dev import services
from mcp_lambda_dev.local.process import running_server


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    with running_server("demo") as url:
        yield url


@pytest.fixture(scope="session")
def oauth_issuer() -> Iterator[Issuer]:
    """A real OAuth/OIDC authorization server process (oauth2-mock-server) on a free port."""
    try:
        service = services.oauth_server().start()
    except services.ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield Issuer(service)
    service.stop()
