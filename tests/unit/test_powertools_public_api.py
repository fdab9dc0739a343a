"""Powertools is used through its public doors only: no module under src/ imports a private name of
`aws_lambda_powertools`, reads or calls a private attribute Powertools defines, or overrides one in a subclass of a
Powertools class. Private names change without notice between Powertools releases; public ones are documented.

The private names are read from the installed Powertools itself (every `_name` its classes define: methods,
`self._name` attributes, class attributes), so a new private door is caught as soon as it is used. A name that a
class of the same module defines for itself (`self._seconds` in a class that sets it, `issuer._jwks` beside the
class that has it) is ours, whatever Powertools calls its own: the one blind spot is a module that both defines a
`_logger` of its own and reads a Powertools Logger's. A subclass may implement Powertools' abstract `_` methods
(a persistence layer's `_put_record`: the documented door) and call its parent's through `super()`.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Iterator
from pathlib import Path

import aws_lambda_powertools
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
POWERTOOLS = "aws_lambda_powertools"
# Calls that read an attribute by a name given as a string.
BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr"})


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@functools.cache
def powertools_names() -> tuple[frozenset[str], frozenset[str]]:
    """(every private name a class of the installed Powertools defines: method, class or instance attribute;
    the private abstract methods among them, which a subclass is documented to implement, such as a persistence
    layer's `_put_record`)."""
    names: set[str] = set()
    abstract: set[str] = set()
    for path in Path(aws_lambda_powertools.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names.update(_defined_in_class(node))
                abstract.update(
                    method.name
                    for method in node.body
                    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef)
                    and any(ast.unparse(d).endswith("abstractmethod") for d in method.decorator_list)
                )
    private = frozenset(name for name in names if is_private(name))
    return private, frozenset(abstract) & private


def _defined_in_class(cls: ast.ClassDef) -> set[str]:
    """Names a class defines: its methods, class attributes, and `self.x` it assigns."""
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (
                        isinstance(part, ast.Attribute)
                        and isinstance(part.value, ast.Name)
                        and part.value.id in ("self", "cls")
                    ):
                        names.add(part.attr)
    return names


def problems(source: str, where: str = "<module>") -> list[str]:
    """Every use of a private Powertools name in `source`, one line each."""
    tree = ast.parse(source)
    private, abstract = powertools_names()
    found: list[str] = []
    from_powertools: set[str] = set()  # local names bound to something imported from Powertools
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == POWERTOOLS:
            if any(is_private(part) for part in (node.module or "").split(".")):
                found.append(f"{where}:{node.lineno}: imports from the private module {node.module}")
            for alias in node.names:
                from_powertools.add(alias.asname or alias.name)
                if is_private(alias.name):
                    found.append(f"{where}:{node.lineno}: imports the private name {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == POWERTOOLS and any(is_private(part) for part in parts):
                    found.append(f"{where}:{node.lineno}: imports the private module {alias.name}")
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    # The private names this module's own classes (no Powertools base) define: ours wherever they are read here.
    own = {name for cls in classes if not _extends(cls, from_powertools) for name in _defined_in_class(cls)}
    for owner, on_super, (name, lineno) in _attribute_uses(tree):
        if name not in private or name in own:
            continue
        if owner is not None and name in _defined_in_class(owner) and (not on_super or name in abstract):
            continue  # the class's own attribute; or an abstract method it implements, and its parent's
        found.append(f"{where}:{lineno}: uses Powertools' private attribute {name}")
    for cls in classes:
        for name in sorted((_defined_in_class(cls) & private) - abstract):
            if _overrides(cls, name, from_powertools):
                found.append(f"{where}:{cls.lineno}: {cls.name} overrides Powertools' private {name}")
    return found


def _extends(cls: ast.ClassDef, from_powertools: set[str]) -> bool:
    """Whether a base of `cls` is a name imported from Powertools."""
    return any(ast.unparse(base).split(".")[0] in from_powertools for base in cls.bases)


def _overrides(cls: ast.ClassDef, name: str, from_powertools: set[str]) -> bool:
    """Whether `cls` (a subclass of a Powertools class) defines `name` as a method, overriding Powertools'."""
    methods = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return _extends(cls, from_powertools) and name in methods


def _attribute_uses(tree: ast.Module) -> Iterator[tuple[ast.ClassDef | None, bool, tuple[str, int]]]:
    """(the enclosing class when the object is `self`, `cls` or `super()`; whether it is `super()`;
    (attribute, line)) for every `x._name` and every `getattr(x, "_name")`-style call."""

    def visit(
        node: ast.AST, cls: ast.ClassDef | None
    ) -> Iterator[tuple[ast.ClassDef | None, bool, tuple[str, int]]]:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, ast.ClassDef) else cls
            if isinstance(child, ast.Attribute) and is_private(child.attr):
                value = child.value
                on_self = isinstance(value, ast.Name) and value.id in ("self", "cls")
                on_super = isinstance(value, ast.Call) and ast.unparse(value.func) == "super"
                yield (cls if on_self or on_super else None), on_super, (child.attr, child.lineno)
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Name)
                and child.func.id in BY_NAME
                and len(child.args) >= 2
                and isinstance(child.args[1], ast.Constant)
                and isinstance(child.args[1].value, str)
                and is_private(child.args[1].value)
            ):
                yield None, False, (child.args[1].value, child.lineno)
            yield from visit(child, inner)

    yield from visit(tree, None)


def test_no_module_under_src_uses_a_private_powertools_name() -> None:
    found = [
        line
        for path in sorted(SRC.rglob("*.py"))
        for line in problems(path.read_text(encoding="utf-8"), str(path.relative_to(SRC)))
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        "from aws_lambda_powertools.logging.formatter import _get_context",
        "from aws_lambda_powertools.shared._private import thing",
        "import aws_lambda_powertools.logging._internal",
        "def f(logger):\n    return logger._logger.handlers",
        "def f(logger):\n    return getattr(logger, '_buffer_config', None)",
        """
        from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

        class Ours(LambdaPowertoolsFormatter):
            def line(self, record):
                return self._extract_log_message(log_record=record)
        """,
        """
        from aws_lambda_powertools.utilities.idempotency.base import IdempotencyHandler

        class Claim(IdempotencyHandler):
            def _get_function_response(self):
                return None
        """,
        """
        from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

        class Memory(BasePersistenceLayer):
            def _put_record(self, data_record):
                self._validate_payload(data_payload=data_record, stored_data_record=None)
        """,
    ],
    ids=[
        "private-name",
        "private-module",
        "import-private-module",
        "private-attribute",
        "getattr-by-name",
        "inherited-private-method",
        "overridden-private-method",
        "inherited-private-call-in-a-backend",
    ],
)
def test_the_check_finds_each_way_of_using_a_private_name(source: str) -> None:
    assert problems(textwrap.dedent(source))


def test_an_attribute_of_our_own_class_or_a_documented_abstract_method_is_not_a_problem() -> None:
    # `_put_record` & co. are the abstract methods a persistence backend is documented to implement.
    source = """
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    class Memory(BasePersistenceLayer):
        def _put_record(self, data_record):
            self._records = {}

        def _delete_record(self, data_record):
            self._put_record(data_record)
            return super()._delete_record(data_record)

    class Ours(LambdaPowertoolsFormatter):
        def __init__(self):
            super().__init__()
            self._seconds = 0

        def serialize(self, log):
            return str(self._seconds)
    """
    assert problems(textwrap.dedent(source)) == []
