"""Businesses beside the demo: the framework's tests must pass whichever businesses a checkout has.

`write_businesses(root)` writes one small business per name under `root/businesses/`, named to sort before and
after `demo`; `more_businesses` (a fixture) adds them to the `businesses` package of this process, and
`pythonpath_with(root)` gives a child process the same view.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import businesses

ROOT = Path(__file__).resolve().parents[2]
# One name sorts before `demo`, one after it (and after `conformance`, the dev fixture).
NAMES = ("aaa_clinic", "zzz_clinic")
SOURCE = '''"""A business next to the demo, written by a test."""

from mcp_lambda.tools import Business, ToolAnnotations, ToolResult, execution_result, tool


@tool(description="Use to say hello. Not for anything else.", annotations=ToolAnnotations(read_only=True))
def hello() -> ToolResult:
    return execution_result({"hello": "{name}"})


BUSINESS = Business(name="{name}", tools=[hello])
'''


def write_businesses(root: Path, names: tuple[str, ...] = NAMES) -> Path:
    """Write one business package per name under `root/businesses/`.

    Args:
        root: A directory to put on the path (a tmp_path).
        names: The businesses' names.

    Returns:
        `root`, the path entry that holds them.
    """
    for name in names:
        package = root / "businesses" / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(SOURCE.replace("{name}", name), encoding="utf-8")
    return root


def pythonpath_with(root: Path) -> str:
    """The PYTHONPATH of make (src, dev, the repository) with `root`'s businesses after them."""
    return os.pathsep.join([str(ROOT / "src"), str(ROOT / "dev"), str(ROOT), str(root)])


@pytest.fixture
def more_businesses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, ...]]:
    """The businesses of NAMES beside the demo, importable as `businesses.<name>` in this process."""
    root = write_businesses(tmp_path / "more")
    monkeypatch.setattr(businesses, "__path__", [*businesses.__path__, str(root / "businesses")])
    yield NAMES
    for name in NAMES:
        sys.modules.pop(f"businesses.{name}", None)
