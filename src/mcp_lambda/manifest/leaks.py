"""The leak check: does a value the model must not see reach what the model reads?

A value is hidden from the caller when its field is `llm_visible: false` (its whole value, inside included) or
requires a scope the caller lacks. What the model reads is every string of the result's content blocks (text, and
a resource link's name, title, description and URI; not base64 data); of a text the server built (the business's
sentence, then the model-visible projection as JSON), the sentence: the projection holds nothing hidden, and its
keys are the manifest's names. docs/manifest.md gives the rule's reasons.

- A hidden string of MIN_LEAK_LENGTH characters or more leaks when the text holds it in any case, not inside a
  longer word or number (ASCII letters and digits around it do not count as a match).
- A hidden number with MIN_SIGNIFICANT_DIGITS significant digits or more leaks when a number in the text has the
  same significant digits at any scale (0.8731 as "0.8731", "87.31%", "8731", "8,731"), or those digits rounded
  to no fewer than MIN_SIGNIFICANT_DIGITS and at most ROUNDING_DIGITS fewer ("87.3%").
- The false-positive guard: a hidden value the result also shows the model (in a model-visible string or number
  of the same result) is the business's own to show, never a leak. `entity_type` is exempt: its value is the
  declared type name, which the manifest publishes.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..tools import ToolResult
from .compiled import CompiledOnce
from .models import EntitySpec, FieldSpec, Manifest
from .visibility import NO_SCOPES, Projected, declared_entities, granted, last_projection

MIN_LEAK_LENGTH = 4
MIN_SIGNIFICANT_DIGITS = 3
ROUNDING_DIGITS = 2
# A number as people write it: 8731, 8,731, 0.8731, .8731 (the sign and any % or unit are around it).
NUMBER = re.compile(r"(?<![0-9A-Za-z])(?:\d[\d,]*(?:\.\d+)?|\.\d+)")
# Content-block keys whose strings are not read by a model as text.
UNREAD_KEYS = frozenset({"type", "data", "blob", "mimeType"})


def significant_digits(number: str) -> str:
    """The digits of a written number without its sign, separators, point, leading and trailing zeros.

    Args:
        number: A number as written ("0.8731", "8,731", "87.31").

    Returns:
        "8731" for each of them; "" for zero.
    """
    return number.replace(",", "").replace(".", "").lstrip("-").strip("0")


# Cached: the same hidden numbers come back call after call (an equal int and float have the same renderings,
# so sharing an entry is right).
@functools.lru_cache(maxsize=4096)
def number_renderings(value: int | float) -> frozenset[str]:
    """The significant digits by which a hidden number is recognised in text: its own, and its roundings.

    Args:
        value: A hidden number.

    Returns:
        Empty when it has fewer than MIN_SIGNIFICANT_DIGITS significant digits (too common to call a leak).
    """
    if isinstance(value, float) and not math.isfinite(value):
        return frozenset()
    digits = significant_digits(format(Decimal(repr(value)), "f"))
    if len(digits) < MIN_SIGNIFICANT_DIGITS:
        return frozenset()
    found = {digits}
    for keep in range(max(MIN_SIGNIFICANT_DIGITS, len(digits) - ROUNDING_DIGITS), len(digits)):
        shortened = Decimal(f"{digits[:keep]}.{digits[keep:]}").quantize(Decimal(1), "ROUND_HALF_UP")
        rounded = significant_digits(str(shortened))
        if len(rounded) >= MIN_SIGNIFICANT_DIGITS:
            found.add(rounded)
    return frozenset(found)


@dataclass
class _Sorted:
    """The values of one result, sorted: hidden ones with their field's path, and what the model is shown."""

    hidden: list[tuple[str, str | None, str | frozenset[str]]] = field(default_factory=list)
    visible_strings: list[str] = field(default_factory=list)
    visible_numbers: set[str] = field(default_factory=set)
    with_visible: bool = (
        True  # False: only the hidden values (the visible ones are the guard's, needed later)
    )

    def hide(self, path: str, scope: str | None, value: Any) -> None:
        needles: list[str | frozenset[str]] = []
        _needles_of(value, needles)
        self.hidden.extend((path, scope, needle) for needle in needles)

    def show(self, value: Any) -> None:
        if not self.with_visible:
            return
        for leaf in _leaves(value):
            if isinstance(leaf, str):
                self.visible_strings.append(leaf.casefold())
                self.visible_numbers.update(significant_digits(n) for n in NUMBER.findall(leaf))
            elif _is_number(leaf):
                self.visible_numbers.update(number_renderings(leaf) or ())


def _compile_hidden_ways(spec: EntitySpec) -> Any:
    return _object_node({name: field for name, field in spec.fields.items() if name != "entity_type"})


# What of an entity may be hidden, compiled once per entity spec: ("field", spec, inside) for a field that is
# llm_visible: false or needs a scope, ("object", {name: node}) and ("array", node of the items) on the way to one;
# None where nothing can be hidden. The first pass walks only these ways.
_HIDDEN_WAYS = CompiledOnce(_compile_hidden_ways)


def hidden_ways(spec: EntitySpec) -> Any:
    """The compiled ways to what an entity spec may hide (`entity_type` left out); None when it hides nothing."""
    return _HIDDEN_WAYS(spec)


def _object_node(fields: Mapping[str, FieldSpec]) -> Any:
    children = {name: node for name, field in fields.items() if (node := _node(field)) is not None}
    return ("object", children) if children else None


def _node(spec: FieldSpec) -> Any:
    inside = None
    if spec.type == "object" and spec.properties:
        inside = _object_node(spec.properties)
    elif spec.type == "array" and spec.items is not None:
        items = _node(spec.items)
        inside = ("array", items) if items is not None else None
    if not spec.llm_visible or spec.requires_scope is not None:
        return ("field", spec, inside)
    return inside


def _needles(node: Any, value: Any, scopes: Collection[str], out: list[str | frozenset[str]]) -> None:
    """The fast pass: what `_hide` finds, without the paths (built only for a value the text may hold). On every
    entities result: dicts and lists are tested by their concrete types first (an ABC check costs more)."""
    if node[0] == "field":
        spec = node[1]
        scope = spec.requires_scope
        if not spec.llm_visible or (scope is not None and scope not in scopes):
            _needles_of(value, out)
            return
        node = node[2]
        if node is None:
            return
    kind, sub = node
    if kind == "object":
        if isinstance(value, (dict, Mapping)):  # dict first: the common case, no ABC check
            for name, child in sub.items():
                if name in value:
                    _needles(child, value[name], scopes, out)
    elif isinstance(value, list):
        for item in value:
            _needles(sub, item, scopes, out)


def _needles_of(value: Any, out: list[str | frozenset[str]]) -> None:
    """The needles of one hidden value (its leaves: strings long enough, numbers with enough digits)."""
    kind = type(value)  # a plain string or number, the usual hidden value, without the walk's generator
    if kind is str:
        if len(value) >= MIN_LEAK_LENGTH:
            out.append(value.casefold())
        return
    if kind is int or kind is float:
        if renderings := number_renderings(value):
            out.append(renderings)
        return
    for leaf in _leaves(value):
        if isinstance(leaf, str):
            if len(leaf) >= MIN_LEAK_LENGTH:
                out.append(leaf.casefold())
        elif _is_number(leaf) and (renderings := number_renderings(leaf)):
            out.append(renderings)


def _hide(node: Any, value: Any, path: str, scopes: Collection[str], out: _Sorted) -> None:
    """The first pass: only the values hidden from the caller, along the compiled ways."""
    if node[0] == "field":
        _, spec, inside = node
        if not _visible(spec, scopes):
            out.hide(path, spec.requires_scope if spec.llm_visible else None, value)
            return
        if inside is None:
            return
        node = inside
    kind, sub = node
    if kind == "object" and isinstance(value, Mapping):
        for name, child in sub.items():
            if name in value:
                _hide(child, value[name], f"{path}.{name}", scopes, out)
    elif kind == "array" and isinstance(value, list):
        for index, item in enumerate(value):
            _hide(sub, item, f"{path}[{index}]", scopes, out)


def leaked_fields(
    manifest: Manifest, tool: str, result: ToolResult, scopes: Collection[str] = NO_SCOPES
) -> list[str]:
    """The hidden fields whose value what the model reads carries: one path per leak, never the value.

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        result: Its result, its text settled.
        scopes: The scopes the caller was granted (a field requiring another is hidden from it).

    Returns:
        Paths such as `entities[0].products[1].detail_url`, in order.
    """
    return list(leaks(manifest, tool, result, scopes))


def leaks(
    manifest: Manifest, tool: str, result: ToolResult, scopes: Collection[str] = NO_SCOPES
) -> dict[str, str | None]:
    """`leaked_fields` with why each is hidden: the path, and the scope the caller lacks (None: llm_visible)."""
    entry = manifest.tools.get(tool)
    if result.is_error or entry is None or entry.output.kind != "entities":
        return {}
    structured = result.structured_content
    entities = list(declared_entities(manifest, structured))
    # First the hidden values alone, without their paths (the common case: none is in the text), then their
    # paths and the guard for those that are.
    needles: list[str | frozenset[str]] = []
    for _, entity, spec in entities:
        ways = hidden_ways(spec)
        if ways is not None:
            _needles(ways, entity, scopes, needles)
    if not needles:
        return {}
    read = "\n".join(_read_strings(result.content, last_projection(structured, scopes))).casefold()
    wants_numbers = any(isinstance(needle, frozenset) for needle in needles)
    numbers = {significant_digits(n) for n in NUMBER.findall(read)} if wants_numbers else set()
    if not any(_in(needle, read, numbers) for needle in needles):
        return {}
    hidden = _Sorted(with_visible=False)
    for index, entity, spec in entities:
        ways = hidden_ways(spec)
        if ways is not None:
            _hide(ways, entity, f"entities[{index}]", scopes, hidden)
    suspects = [(path, scope, needle) for path, scope, needle in hidden.hidden if _in(needle, read, numbers)]
    if not suspects:
        return {}
    shown = _Sorted()
    _sort(entities, scopes, shown)
    found: dict[str, str | None] = {}  # ordered, each path once
    for path, scope, needle in suspects:
        if isinstance(needle, frozenset):
            leaked = not needle.isdisjoint(numbers - shown.visible_numbers)
        else:
            leaked = not any(needle in text for text in shown.visible_strings)
        if leaked:
            found.setdefault(path, scope)
    return found


def _sort(entities: list[tuple[int, dict[str, Any], Any]], scopes: Collection[str], out: _Sorted) -> None:
    for index, entity, spec in entities:
        for name, child in spec.fields.items():
            if name in entity and name != "entity_type":
                _split(child, entity[name], f"entities[{index}].{name}", scopes, out)


def _in(needle: str | frozenset[str], read: str, numbers: set[str]) -> bool:
    if isinstance(needle, frozenset):
        return not needle.isdisjoint(numbers)
    return _word_in(needle, read)


def _word_in(needle: str, text: str) -> bool:
    if needle not in text:
        return False
    return re.search(rf"(?<![0-9a-z]){re.escape(needle)}(?![0-9a-z])", text) is not None


def _visible(spec: FieldSpec, scopes: Collection[str]) -> bool:
    return spec.llm_visible and granted(spec, scopes)


def _split(spec: FieldSpec, value: Any, path: str, scopes: Collection[str], out: _Sorted) -> None:
    """Sort the values of a declared field into hidden (with their field's path) and model-visible."""
    if not _visible(spec, scopes):
        out.hide(path, spec.requires_scope if spec.llm_visible else None, value)
    elif spec.type == "object" and spec.properties and isinstance(value, Mapping):
        for name, child in spec.properties.items():
            if name in value:
                _split(child, value[name], f"{path}.{name}", scopes, out)
    elif spec.type == "array" and spec.items is not None and isinstance(value, list):
        for index, item in enumerate(value):
            _split(spec.items, item, f"{path}[{index}]", scopes, out)
    else:
        out.show(value)


def _read_strings(content: list[dict[str, Any]], built: Projected | None = None) -> Iterator[str]:
    """Every string of the content blocks a model reads. A text the server built (`built`: the business's
    sentence, then the model-visible projection as JSON) is read as its sentence alone: the projection holds only
    values the model may see, and its keys are the manifest's own names."""
    for block in content:
        for key, value in block.items():
            if key not in UNREAD_KEYS:
                if built is not None and key == "text" and value is built.text:
                    if built.sentence is not None:
                        yield built.sentence
                    continue
                if type(value) is str:  # a block's type and text: no walk
                    yield value
                    continue
                yield from (leaf for leaf in _leaves(value) if isinstance(leaf, str))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, Mapping):
        for child in value.values():
            yield from _leaves(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from _leaves(child)
    else:
        yield value
