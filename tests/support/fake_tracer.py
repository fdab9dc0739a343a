"""A stand-in for the Powertools Tracer that tracing creates (X-Ray is not reachable from a test)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class FakeSubsegment:
    def __init__(self) -> None:
        self.annotations: dict[str, Any] = {}

    def put_annotation(self, key: str, value: Any) -> None:
        self.annotations[key] = value


class FakeTracer:
    """Records each subsegment opened through `provider.in_subsegment`, by name."""

    def __init__(self) -> None:
        self.subsegments: list[tuple[str, FakeSubsegment]] = []
        self.provider = self

    @contextmanager
    def in_subsegment(self, name: str) -> Iterator[FakeSubsegment]:
        subsegment = FakeSubsegment()
        self.subsegments.append((name, subsegment))
        yield subsegment
