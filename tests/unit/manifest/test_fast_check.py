"""The entities check's fast path (manifest/fast_check.py) never passes what the full check refuses.

Every declared field of a manifest that uses every type (nested objects and arrays, an object and an array with
nothing declared inside, an int id, a refresh key) is given every kind of value a tool can return, and removed;
so are the entity type, the entity and the entities list. Wherever the fast path accepts, the full check must
find nothing; and it must accept the valid results, or it would be no faster path at all.
"""

from __future__ import annotations

import enum
import math
from collections import UserDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.manifest import BoundManifest, load_manifest
from mcp_lambda.manifest.check import ToolCheck
from mcp_lambda.tools import entities

MANIFEST = """
tools:
  find_things:
    output: {kind: entities, entity_types: [thing, counter]}
  find_counters:
    output: {kind: entities, entity_types: [counter]}
  not_entities:
    output: {kind: execution_result}
entities:
  thing:
    schema:
      thing_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      card_key: {type: string, is_refresh_key: true}
      title: {type: string}
      count: {type: int}
      ratio: {type: float}
      flag: {type: boolean}
      loose: {type: object}
      bag: {type: array}
      place:
        type: object
        properties:
          city: {type: string}
          at: {type: object, properties: {lat: {type: float}, lng: {type: float}}}
      parts:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            sizes: {type: array, items: {type: int}}
  counter:
    schema:
      counter_id: {type: int, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      value: {type: float}
  unused:
    schema:
      unused_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
"""


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Text(str):
    pass


class Table(dict):  # type: ignore[type-arg]
    pass


# Every kind of value a tool can put in a field.
VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -7,
    2**70,
    Level.HIGH,
    0.0,
    1.5,
    -2.25,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x",
    "abcd",
    Text("t"),
    Colour.RED,
    b"bytes",
    [],
    [1],
    [1, "a"],
    ["a"],
    [{"name": "n"}],
    [{"name": 1}],
    [{"sizes": [1, 2]}],
    [{"sizes": [1.5]}],
    [{"sizes": "no"}],
    (),
    (1,),
    {},
    {"a": 1},
    {"city": "x"},
    {"city": 1},
    {"at": {"lat": 1.5}},
    {"at": {"lat": 1}},
    {"at": []},
    Table(),
    Table(city="x"),
    UserDict({"city": "x"}),
    object(),
]


def thing(**overrides: Any) -> dict[str, Any]:
    base = {
        "thing_id": "t-1",
        "entity_type": "thing",
        "card_key": "k-1",
        "title": "A thing",
        "count": 3,
        "ratio": 0.5,
        "flag": True,
        "loose": {"any": ["thing", 1]},
        "bag": [1, "two", None],
        "place": {"city": "Beijing", "at": {"lat": 39.9, "lng": 116.4}},
        "parts": [{"name": "lid", "sizes": [1, 2]}, {"name": "cup"}],
        "undeclared": object(),
    }
    return {**base, **overrides}


def counter(**overrides: Any) -> dict[str, Any]:
    return {"counter_id": 7, "entity_type": "counter", "value": 1.25, **overrides}


@pytest.fixture(scope="module")
def bound(tmp_path_factory: pytest.TempPathFactory) -> BoundManifest:
    path: Path = tmp_path_factory.mktemp("fast") / "manifest.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    return BoundManifest.from_manifest(load_manifest(path))


def check_of(bound: BoundManifest, tool: str) -> ToolCheck:
    return ToolCheck.compile(bound.manifest, tool)


def full_check(check: ToolCheck, structured: Any) -> list[str]:
    out: list[str] = []
    check._check_entities(structured, out)
    return out


def mutations() -> Iterator[tuple[str, Any]]:
    """(what was changed, structuredContent) for every field given every value, and every field removed."""
    for name in thing():
        for value in VALUES:
            yield f"thing.{name}={value!r}", {"entities": [thing(**{name: value})]}
        yield f"thing without {name}", {"entities": [{k: v for k, v in thing().items() if k != name}]}
    for name, value in (
        [("place", {"city": "x", "at": value}) for value in VALUES]
        + [("parts", [{"name": "n", "sizes": value}]) for value in VALUES]
        + [("parts", [value]) for value in VALUES]
    ):
        yield f"thing.{name} inside={value!r}", {"entities": [thing(**{name: value})]}
    for name in counter():
        for value in VALUES:
            yield f"counter.{name}={value!r}", {"entities": [counter(**{name: value})]}
    for entity_type in ["unused", "nothing", "", None, 1, Colour.RED, Text("thing")]:
        yield f"entity_type={entity_type!r}", {"entities": [thing(entity_type=entity_type)]}
    for items in VALUES:
        yield f"entities={items!r}", {"entities": items}
        yield f"an entity={items!r}", {"entities": [thing(), items]}
    yield "no entities", {}
    yield "a Mapping entity", {"entities": [UserDict(thing())]}
    yield "a dict subclass entity", {"entities": [Table(thing())]}


@pytest.mark.parametrize("tool", ["find_things", "find_counters"])
def test_the_fast_path_never_passes_what_the_full_check_refuses(bound: BoundManifest, tool: str) -> None:
    check = check_of(bound, tool)
    assert check.fast is not None
    passed = refused = 0
    for changed, structured in mutations():
        if check.fast.isinstance_python(structured):
            assert full_check(check, structured) == [], changed
            passed += 1
        else:
            refused += 1
    # Both answers occur: the matrix holds values of the right type as well as wrong ones (find_counters refuses
    # every thing).
    assert passed >= (50 if tool == "find_things" else 5) and refused > 50


def test_the_fast_path_passes_valid_results_so_the_full_walk_is_skipped(bound: BoundManifest) -> None:
    check = check_of(bound, "find_things")
    assert check.fast is not None
    valid = [{"entities": []}, {"entities": [thing(), counter(), thing(parts=[], place={})]}]
    for structured in valid:
        assert full_check(check, structured) == []
        assert check.fast.isinstance_python(structured)
    # find_counters may not return a thing: refused by both.
    counters = check_of(bound, "find_counters")
    assert counters.fast is not None
    assert not counters.fast.isinstance_python({"entities": [thing()]})
    assert full_check(counters, {"entities": [thing()]}) != []


def test_a_refused_result_gets_the_full_checks_messages(bound: BoundManifest) -> None:
    result = entities(
        [thing(count="3", parts=[{"sizes": [1, 1.5]}], undeclared="card"), counter(counter_id="")]
    )
    assert bound.check("find_things", result) == [
        "find_things: entities[0].count: expected int, got string",
        "find_things: entities[0].parts[0].sizes[1]: expected int, got float",
        "find_things: entities[1].counter_id: the entity id is empty",
        "find_things: entities[1].counter_id: expected int, got string",
    ]


def test_tools_that_return_no_entities_have_no_fast_path(bound: BoundManifest) -> None:
    assert check_of(bound, "not_entities").fast is None
