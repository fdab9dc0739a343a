"""The replayer's placeholder matching, so a broken matcher cannot make the replay pass vacuously."""

from __future__ import annotations

import pytest

from mcp_lambda.testing.replay import Mismatch, match, substitute


def test_placeholder_binds_on_first_sight_and_must_match_later() -> None:
    bindings: dict[str, str] = {}
    match({"id": "{{session_id}}"}, {"id": "abc"}, bindings)
    assert bindings == {"session_id": "abc"}
    match("{{session_id}}", "abc", bindings)
    with pytest.raises(Mismatch):
        match("{{session_id}}", "xyz", bindings)


def test_placeholder_inside_text() -> None:
    bindings: dict[str, str] = {}
    match("failed (error id {{error_id}}).", "failed (error id 00ff).", bindings)
    assert bindings["error_id"] == "00ff"


@pytest.mark.parametrize(
    "expected,actual",
    [
        ({"a": 1}, {"a": 1, "b": 2}),
        ([1, 2], [1]),
        (1, True),
        (1, 1.0),
        (None, "x"),
        ("{{x}}", 5),
        ({"a": "b"}, []),
    ],
)
def test_differences_are_reported(expected: object, actual: object) -> None:
    with pytest.raises(Mismatch):
        match(expected, actual, {})


def test_unbound_placeholder_in_an_event_is_an_error() -> None:
    with pytest.raises(AssertionError):
        substitute({"headers": {"mcp-session-id": "{{session_id}}"}}, {})
    assert substitute({"h": ["{{a}}-x"]}, {"a": "1"}) == {"h": ["1-x"]}
