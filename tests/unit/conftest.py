"""In-process fixtures: the runtime built with build_runtime around a test business and a memory store,
wrapped in Mangum like mcp_lambda/handler.py, driven with API Gateway payload-2.0 events."""

from __future__ import annotations

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.handlers import build_handler

from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import MODERN, McpTestClient


@pytest.fixture
def store() -> MemorySessionStore:
    return MemorySessionStore()


@pytest.fixture
def client(store: MemorySessionStore) -> McpTestClient:
    return McpTestClient.over_handler(
        build_handler(TEST_BUSINESS, Settings(business=TEST_BUSINESS.name), store)
    )


@pytest.fixture
def modern(client: McpTestClient) -> McpTestClient:
    return client.clone(era=MODERN, capabilities={})


@pytest.fixture
def legacy(client: McpTestClient) -> McpTestClient:
    session = client.clone(era="2025-11-25")
    session.initialize()
    return session
