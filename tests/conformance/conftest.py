"""A `conformance` fixtures server (the make-run path: HTTP -> API Gateway event -> Lambda handler)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcp_lambda_dev.local.process import running_server


@pytest.fixture(scope="module")
def conformance_url() -> Iterator[str]:
    with running_server("conformance") as url:
        yield url
