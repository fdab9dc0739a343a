"""pydantic-settings is used through its public doors only: no module under src/ imports a private name or module
of `pydantic_settings`, overrides a private method its classes define, or reads a private attribute of theirs.
The private names are read from the installed pydantic-settings itself, so a new one is caught when first used."""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path

import pydantic_settings
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
LIBRARY = "pydantic_settings"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


@functools.cache
def private_names() -> frozenset[str]:
    """Every private method or `self._x` attribute a class of the installed pydantic-settings defines."""
    names: set[str] = set()
    for path in Path(pydantic_settings.__file__).parent.rglob("*.py"):
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(cls, ast.ClassDef):
                continue
            for node in ast.walk(cls):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(node.name)
                elif (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                ):
                    names.add(node.attr)
    return frozenset(name for name in names if _private(name))


def _defined(cls: ast.ClassDef) -> set[str]:
    """The methods of `cls` and the `self.x` attributes it assigns."""
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
        ):
            names.add(node.attr)
    return names


def problems(source: str, where: str = "<module>") -> list[str]:
    """Every use of a private pydantic-settings name in `source`, one line each.

    A private name a class of this module defines, not extending pydantic-settings, is the module's own.
    """
    found = []
    private = private_names()
    tree = ast.parse(source)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == LIBRARY:
            imported.update(alias.asname or alias.name for alias in node.names)
            parts = (node.module or "").split(".")
            found += [f"{where}:{node.lineno}: private module {node.module}" for p in parts if _private(p)]
            found += [f"{where}:{node.lineno}: private name {a.name}" for a in node.names if _private(a.name)]
    own: set[str] = set()
    for cls in (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)):
        if any(ast.unparse(base).split(".")[0] in imported for base in cls.bases):
            found += [
                f"{where}:{cls.lineno}: {cls.name} overrides private {name}"
                for name in _defined(cls) & private
            ]
        else:
            own |= _defined(cls)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private - own:
            found.append(f"{where}:{node.lineno}: uses pydantic-settings' private {node.attr}")
    return found


def test_no_module_under_src_uses_a_private_pydantic_settings_name() -> None:
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        for line in problems(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        # What settings.py did before: a subclass of the environment source overriding its private loader.
        """
        from pydantic_settings import EnvSettingsSource

        class Source(EnvSettingsSource):
            def _load_env_vars(self):
                return {}
        """,
        "from pydantic_settings.sources.utils import _get_env_var_key",
        "from pydantic_settings.sources import _private_module",
        "def f(source):\n    return source._extract_field_info(None, 'x')",
    ],
    ids=["overridden-private-method", "private-name", "private-module", "private-call"],
)
def test_the_check_finds_each_way_of_using_a_private_name(source: str) -> None:
    assert problems(textwrap.dedent(source))


def test_a_private_name_of_our_own_class_is_not_a_problem() -> None:
    source = """
    class Client:
        def __init__(self, url):
            self._url = url

        def _read_file(self):
            return self._url
    """
    assert {"_url", "_read_file"} <= private_names()
    assert problems(textwrap.dedent(source)) == []
