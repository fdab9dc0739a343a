"""The strict-JSON check of a tool's result: orjson's quick yes never accepts what json's strict encode refuses."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import enum
import json
import uuid
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcp_lambda.strict_json import json_problem


class Colour(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 1


class Name(str):
    pass


@dataclasses.dataclass
class Point:
    x: int = 1


def _circular() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


VALUES = {
    "plain JSON": {"a": [1, 2.5, "ü", None, True, {"b": 1e16, "c": 1e-05, "d": -0.0}]},
    "NaN": {"a": [float("nan")]},
    "Infinity": {"a": float("-inf")},
    "a UUID (orjson writes it)": {"a": uuid.UUID(int=7)},
    "an Enum (orjson writes its value)": {"a": Colour.RED},
    "an IntEnum": {"a": Level.HIGH},
    "a datetime": {"a": datetime.datetime(2026, 1, 1)},
    "a dataclass": {"a": Point()},
    "a str subclass": {"a": Name("x")},
    "an OrderedDict": collections.OrderedDict(a=1),
    "a tuple": {"a": (1, 2)},
    "an int key": {1: "x"},
    "an int beyond 64 bits": {"a": 2**70},
    "a set": {"a": {1}},
    "bytes": {"a": b"x"},
    "a cycle": _circular(),
    # Without a null anywhere (orjson's text then settles NaN): what only the core-type check can catch.
    "a UUID, no null": {"a": [uuid.UUID(int=7), 1]},
    "an Enum, no null": {"a": Colour.RED, "b": "x"},
    "an IntEnum, no null": [Level.HIGH],
    "a str subclass, no null": [Name("x")],
    "a complex": {"a": 1j},
    "a bytearray": [bytearray(b"x")],
    "a frozenset": [frozenset()],
    "Ellipsis": [...],
    "a tuple key": {(1,): 2},
    "plain JSON, no null": {"a": [1, 2.5, "ü", True, (3,), {"b": 1e16, "c": -0.0}]},
}


def _json_accepts(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


@pytest.mark.parametrize("value", VALUES.values(), ids=VALUES.keys())
def test_a_result_is_strict_json_exactly_when_json_strict_encode_accepts_it(value: Any) -> None:
    assert (json_problem(value) is None) == _json_accepts(value)


def test_the_problem_names_the_field_and_why() -> None:
    assert json_problem(VALUES["NaN"]) == "result.a[0] is nan (not a JSON number)"
    assert json_problem(VALUES["a UUID (orjson writes it)"]) == "result.a is a UUID (not JSON)"
    assert json_problem(VALUES["an Enum (orjson writes its value)"]) == "result.a is a Colour (not JSON)"


LEAVES = st.sampled_from(
    [
        None,
        True,
        0,
        -(2**63),
        2**64,
        1.5,
        float("nan"),
        float("inf"),
        "",
        "ü",
        "\ud800",
        Name("n"),
        Level.HIGH,
        Colour.RED,
        uuid.UUID(int=1),
        datetime.date(2026, 1, 1),
        Point(),
        b"x",
        bytearray(b"y"),
        1j,
        ...,
        frozenset(),
    ]
)
KEYS = st.sampled_from(["a", "b", "ü", 1, 2.5, None, True, (1,)])


@settings(max_examples=500, deadline=None)
@given(
    st.recursive(
        LEAVES,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner, inner)
            | st.dictionaries(KEYS, inner, max_size=4)
            | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=3).map(collections.OrderedDict)
        ),
        max_leaves=12,
    )
)
def test_any_value_is_strict_json_exactly_when_json_strict_encode_accepts_it(value: Any) -> None:
    assert (json_problem(value) is None) == _json_accepts(value)
