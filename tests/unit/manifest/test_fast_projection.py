"""The compiled projection (manifest/fast_projection.py) builds exactly what `visibility.project_fields` builds.

An entity type with every kind of field (visible, hidden, scoped; nested objects and arrays, their items visible,
hidden or scoped; containers with nothing declared inside) gets every kind of value in every field, for callers
holding each set of scopes; the two projections must be the same dicts, keys in the same order, values of the
same types (a tuple stays a tuple, a mapping becomes a dict).
"""

from __future__ import annotations

from collections import UserDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.manifest import Manifest, load_manifest
from mcp_lambda.manifest.fast_projection import entity_projection
from mcp_lambda.manifest.visibility import model_projection, project_fields

MANIFEST = """
tools:
  find:
    output: {kind: entities, entity_types: [record]}
entities:
  record:
    schema:
      record_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      label: {type: string}
      secret: {type: string, llm_visible: false}
      cost: {type: int, requires_scope: "s1"}
      raw: {type: object}
      pile: {type: array}
      spot:
        type: object
        properties:
          city: {type: string}
          code: {type: string, llm_visible: false}
          at: {type: object, requires_scope: "s2", properties: {lat: {type: float}, note: {type: string, llm_visible: false}}}
      pieces:
        type: array
        items:
          type: object
          properties:
            label: {type: string}
            sku: {type: string, llm_visible: false}
            price: {type: int, requires_scope: "s1"}
            sizes: {type: array, items: {type: int}}
      hidden_items: {type: array, items: {type: string, llm_visible: false}}
      scoped_items: {type: array, items: {type: object, requires_scope: "s2", properties: {a: {type: string}}}}
      grid: {type: array, items: {type: array, items: {type: object, properties: {x: {type: int}, y: {type: int, llm_visible: false}, z: {type: int, requires_scope: "s3"}}}}}
      trailer: {type: string}
"""

SCOPES = [
    frozenset(),
    frozenset({"s1"}),
    frozenset({"s2"}),
    frozenset({"s3"}),
    frozenset({"s1", "s2", "other"}),
]
VALUES: list[Any] = [
    None,
    True,
    0,
    1.5,
    "",
    "text",
    (1, 2),
    [],
    [1, "a"],
    {},
    {"city": "x", "code": "c", "extra": 1},
    {"at": {"lat": 1.5, "note": "n"}},
    {"at": [1]},
    [{"label": "n", "sku": "s", "price": 3, "sizes": [1, (2,)]}],
    [{"sizes": (1, 2)}, "not an object", None, [{"x": 1, "y": 2}]],
    [[{"x": 1, "y": 2, "z": 3}], ({"x": 1},)],
    ({"label": "in a tuple"},),
    UserDict({"city": "u", "code": "c"}),
    [UserDict({"label": "u", "sku": "s"})],
    object(),
]


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "trailer": "last",  # out of declaration order: the projection orders by the manifest
        "record_id": "t-1",
        "entity_type": "record",
        "label": "A record",
        "secret": "hidden",
        "cost": 12345,
        "raw": {"anything": [1]},
        "pile": [1, "two"],
        "spot": {"code": "c", "city": "Beijing", "at": {"lat": 39.9, "note": "n"}},
        "pieces": [{"label": "lid", "sku": "s", "price": 1, "sizes": [1, 2]}],
        "hidden_items": ["a", "b"],
        "scoped_items": [{"a": "x"}],
        "grid": [[{"x": 1, "y": 2, "z": 3}]],
        "undeclared": "card only",
    }
    return {**base, **overrides}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> Manifest:
    path: Path = tmp_path_factory.mktemp("projection") / "manifest.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    return load_manifest(path)


def entities() -> Iterator[tuple[str, Any]]:
    yield "as declared", record()
    for name in record():
        for value in VALUES:
            yield f"{name}={value!r}", record(**{name: value})
        yield f"without {name}", {k: v for k, v in record().items() if k != name}
    yield "a Mapping entity", UserDict(record())


def test_the_compiled_projection_is_the_walks_for_every_value_and_scope(manifest: Manifest) -> None:
    spec = manifest.entities["record"]
    count = 0
    for changed, entity in entities():
        for scopes in SCOPES:
            walked = project_fields(spec.fields, entity, scopes)
            compiled = entity_projection(spec, entity, scopes)
            # repr: the same keys in the same order, and the same types all the way down.
            assert repr(compiled) == repr(walked), (changed, sorted(scopes))
            count += 1
    assert count > 1000


def test_scopes_decide_what_is_projected(manifest: Manifest) -> None:
    spec = manifest.entities["record"]
    anonymous = entity_projection(spec, record(), frozenset())
    assert list(anonymous) == ["record_id", "label", "raw", "pile", "spot", "pieces", "hidden_items",
                               "scoped_items", "grid", "trailer"]  # fmt: skip
    assert anonymous["spot"] == {"city": "Beijing"} and anonymous["pieces"] == [
        {"label": "lid", "sizes": [1, 2]}
    ]
    assert anonymous["hidden_items"] == [] and anonymous["scoped_items"] == []
    granted = entity_projection(spec, record(), {"s1", "s2"})
    assert granted["cost"] == 12345 and granted["spot"]["at"] == {"lat": 39.9}
    assert granted["pieces"] == [{"label": "lid", "price": 1, "sizes": [1, 2]}]


def test_the_models_projection_uses_it(manifest: Manifest) -> None:
    projected = model_projection(
        manifest, "find", {"entities": [record(), "not an entity"]}, scopes=frozenset()
    )
    assert projected == {"entities": [project_fields(manifest.entities["record"].fields, record())]}


def test_every_scope_a_field_requires_at_any_depth_is_advertised(manifest: Manifest) -> None:
    from mcp_lambda.composition import field_scopes_of

    # s3 is required only inside an array of arrays (grid's items' items).
    assert field_scopes_of(manifest) == ("s1", "s2", "s3")
