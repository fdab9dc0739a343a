"""Every public name of the two packages a business author imports says how to use it: a docstring, and for a
function or method that takes arguments `Args:`, plus `Returns:` (or `Yields:`) when it gives something back (a
method without arguments may say what it returns in its one line, as Google style allows)."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import pytest

import mcp_lambda.testing as testing
import mcp_lambda.tools as tools


def gaps(obj: Any, label: str) -> list[str]:
    """What the docstring of a public function (or each public method of a class) lacks."""
    if inspect.isclass(obj):
        found = [] if inspect.getdoc(obj) else [f"{label}: no docstring"]
        for name, member in vars(obj).items():
            if not name.startswith("_") and inspect.isfunction(member):
                found += gaps(member, f"{label}.{name}")
        return found
    if not inspect.isfunction(obj):
        return []
    doc = inspect.getdoc(obj) or ""
    signature = inspect.signature(obj)
    takes = [name for name in signature.parameters if name not in ("self", "cls")]
    found = [] if doc else [f"{label}: no docstring"]
    if doc and takes and "Args:" not in doc:
        found.append(f"{label}: no Args:")
    gives = signature.return_annotation not in (None, "None", inspect.Signature.empty)
    if doc and takes and gives and "Returns:" not in doc and "Yields:" not in doc:
        found.append(f"{label}: no Returns:")
    return found


@pytest.mark.parametrize("module", [tools, testing], ids=lambda module: module.__name__)
def test_every_public_name_says_how_to_use_it(module: ModuleType) -> None:
    found = [gap for name in module.__all__ for gap in gaps(getattr(module, name), name)]
    assert not found, "\n".join(found)


def test_the_check_finds_a_function_without_its_sections() -> None:
    def lookup(key: str) -> int:
        """Find it."""
        return len(key)

    assert gaps(lookup, "lookup") == ["lookup: no Args:", "lookup: no Returns:"]
