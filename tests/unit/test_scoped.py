"""`Scoped`: the context variable holds the value inside the block only, nested blocks restore in order, and an
exception in the block still resets it."""

from __future__ import annotations

from contextvars import ContextVar

import pytest

from mcp_lambda.scoped import Scoped

VAR: ContextVar[str | None] = ContextVar("test_scoped", default=None)


def test_the_value_holds_inside_the_block_and_nested_blocks_restore_in_order() -> None:
    with Scoped(VAR, "outer") as outer:
        assert outer == "outer" and VAR.get() == "outer"
        with Scoped(VAR, "inner"):
            assert VAR.get() == "inner"
        assert VAR.get() == "outer"
    assert VAR.get() is None


def test_an_exception_in_the_block_still_resets_the_value() -> None:
    with pytest.raises(RuntimeError), Scoped(VAR, "during"):
        raise RuntimeError("boom")
    assert VAR.get() is None
