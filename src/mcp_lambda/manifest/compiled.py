"""`CompiledOnce`: what the manifest's checks compile from a spec object, made once per object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

S = TypeVar("S")
T = TypeVar("T")


class CompiledOnce(Generic[S, T]):
    """`build(source)`, made on the first call for a source object and returned for that same object after.

    Keyed by the object's identity, not its value: field mappings and entity specs are not hashable, and the manifest
    holds each one for the container's life. The object is kept beside what was made of it, so its id stays its own.

    Args:
        build: What to make of a source; it may call this `CompiledOnce` again for the parts of its source.
    """

    def __init__(self, build: Callable[[S], T]) -> None:
        self._build = build
        self._made: dict[int, tuple[S, T]] = {}

    def __call__(self, source: S) -> T:
        known = self._made.get(id(source))
        if known is None or known[0] is not source:
            known = self._made[id(source)] = (source, self._build(source))
        return known[1]
