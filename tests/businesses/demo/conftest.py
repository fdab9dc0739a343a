"""Fixtures of the demo business's tests: a client per era, through the public test kit only."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from businesses.demo import BUSINESS
from mcp_lambda.testing import ERAS, Identity, McpTestClient

# The modern revision, the newest legacy revision, and the one the Doubao platform speaks.
DEMO_ERAS = ("2026-07-28", "2025-11-25", "2024-11-05")
assert set(DEMO_ERAS) <= set(ERAS)


@pytest.fixture(params=DEMO_ERAS)
def client(request: pytest.FixtureRequest) -> Iterator[McpTestClient]:
    with McpTestClient(BUSINESS, request.param) as opened:
        yield opened


@pytest.fixture
def someone() -> Identity:
    """A caller of its own: the demo keeps subscriptions per caller, for the life of the process."""
    return Identity(f"user-{uuid.uuid4().hex[:8]}", scopes=("subscriptions:read", "subscriptions:write"))


@pytest.fixture(params=DEMO_ERAS)
def as_someone(request: pytest.FixtureRequest, someone: Identity) -> Iterator[McpTestClient]:
    """A client of each era calling as `someone` (AUTH_MODE=none: the authorizer's claims still name it)."""
    with McpTestClient(BUSINESS, request.param, caller=someone) as opened:
        yield opened
