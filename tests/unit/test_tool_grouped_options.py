"""`@tool`'s grouped options: `limits=CallLimits(...)` and `access=Access(...)`; the keywords they replaced still
work for one release, each with a DeprecationWarning naming the new spelling."""

from __future__ import annotations

import pytest

from mcp_lambda.tools import Access, CallLimits, execution_result, tool
from mcp_lambda.tools.errors import ToolSignatureError


def _body() -> object:
    return execution_result({})


def test_the_grouped_options_reach_the_spec() -> None:
    spec = tool(
        description="Use to test.",
        name="grouped",
        limits=CallLimits(rate="5/second", quota="100/hour"),
        access=Access(scopes=["orders:read"], visibility=["app"]),
    )(_body)
    assert (spec.rate_limit, spec.quota) == ("5/second", "100/hour")
    assert spec.scopes == ("orders:read",) and spec.visibility == ("app",)


def test_an_old_keyword_still_works_with_a_warning_naming_the_new_spelling() -> None:
    with pytest.warns(DeprecationWarning, match=r"@tool\(quota=\.\.\.\) is deprecated.*limits=CallLimits"):
        spec = tool(description="Use to test.", name="old", quota="3/day")(_body)  # type: ignore[call-overload]
    assert spec.quota == "3/day"
    with pytest.warns(DeprecationWarning, match=r"access=Access\(scopes=\.\.\.\)"):
        spec = tool(description="Use to test.", name="old", scopes=["a:b"])(_body)  # type: ignore[call-overload]
    assert spec.scopes == ("a:b",)


def test_an_old_keyword_beside_its_group_is_refused() -> None:
    with pytest.raises(ToolSignatureError, match="give quota inside limits="):
        tool(description="x", name="x", limits=CallLimits(rate="1/second"), quota="1/day")(_body)  # type: ignore[call-overload]


def test_a_keyword_tool_never_had_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'read_only'"):
        tool(description="x", name="x", read_only=True)(_body)  # type: ignore[call-overload]


def test_a_group_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(ToolSignatureError, match="limits must be a CallLimits"):
        tool(description="x", name="x", limits="5/second")(_body)  # type: ignore[arg-type]
