"""The import-graph check of `make lint`: imports flow one way through the layers, and no module cycles.

Hand-written (stdlib `ast`, ~100 lines) because import-linter's contracts check layers between packages but not
cycles between modules inside one package, and we want both, with `TYPE_CHECKING` imports counted as imports.

Usage: python dev/mcp_lambda_tools/lint/import_graph.py [ROOT ...]   (default: src) — exit 1 with one line per problem.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "mcp_lambda"
# The business packages sit above every layer but these two: only the composition root loads a business (and the
# test kit may build one); a business imports the framework, never the other way round.
BUSINESSES = "businesses"
MAY_IMPORT_BUSINESSES = ("testing", "composition")
# Top to bottom. A module may import its own layer's package or anything below; `|` separates independent
# siblings of one layer, which must not import each other.
LAYERS = (
    "testing",
    "handler",
    "snapshot",
    "lambda_adapter",
    "composition",
    "app",
    "transport",
    "protocol | auth",
    "calls | apps",
    "manifest | skills",
    "tools",
    "platform_api | secrets",
    "downstream",
    "stores",
    "aws | caller",
    "observability",
    "settings",
    "deadlines | trace_context",
    "workers | restore | inline",
    "errors | wire | strict_json | encoding | scoped",
)


def layer_of(module: str) -> tuple[int, str] | None:
    """(layer index, top-level part) of a `mcp_lambda.x...` module; None for the package itself."""
    parts = module.split(".")
    if parts[0] != PACKAGE or len(parts) < 2:
        return None
    for index, layer in enumerate(LAYERS):
        if parts[1] in (name.strip() for name in layer.split("|")):
            return index, parts[1]
    raise SystemExit(f"import_graph: module {module} is in no layer; add it to LAYERS")


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def dynamic_import(node: ast.AST) -> str | None:
    """The module a call `importlib.import_module("x")` / `import_module("x")` / `__import__("x")` names (for an
    f-string, its constant start), else None."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in ("import_module", "__import__"):
        return None
    argument = node.args[0]
    if isinstance(argument, ast.JoinedStr) and argument.values:
        argument = argument.values[0]
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return argument.value.rstrip(".")
    return None


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """Every module of ours (and `businesses`) that `module` imports, at any depth of the file (TYPE_CHECKING
    included), statically or by a constant name given to `importlib.import_module` / `__import__`."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if (dynamic := dynamic_import(node)) is not None:
            targets.add(dynamic)
        elif isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return {t for t in targets if (t in known or is_business(t)) and t != module}


def is_business(module: str) -> bool:
    return module == BUSINESSES or module.startswith(BUSINESSES + ".")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def is_package_init_edge(source: str, target: str, known: dict[str, Path]) -> bool:
    # A package's __init__ re-exporting its own modules is not a cycle with them.
    return known[source].name == "__init__.py" and target.startswith(source + ".")


def problems(root: Path) -> list[str]:
    known = modules(root)
    graph = {m: imports_of(m, p, set(known)) for m, p in known.items()}
    graph = {m: {t for t in ts if not is_package_init_edge(m, t, known)} for m, ts in graph.items()}
    ours = {m: {t for t in ts if t in known} for m, ts in graph.items()}
    found = [f"cycle: {' <-> '.join(component)}" for component in cycles(ours)]
    for source, targets in sorted(graph.items()):
        here = layer_of(source)
        for target in sorted(targets):
            if is_business(target):
                if here is None or here[1] not in MAY_IMPORT_BUSINESSES:
                    found.append(
                        f"upward import: {source} -> {target} ({BUSINESSES} is above every layer but "
                        f"{', '.join(MAY_IMPORT_BUSINESSES)})"
                    )
                continue
            there = layer_of(target)
            if here is None or there is None or here[1] == there[1]:
                continue
            if there[0] < here[0]:
                found.append(f"upward import: {source} -> {target} ({LAYERS[here[0]]} is below {there[1]})")
            elif there[0] == here[0]:
                found.append(
                    f"sibling import: {source} -> {target} ({here[1]} and {there[1]} are independent)"
                )
    return found


def main(argv: list[str]) -> int:
    found = [p for root in (argv or ["src"]) for p in problems(Path(root))]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
