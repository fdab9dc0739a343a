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
