"""Drop the parts of Powertools the function never imports from a package: `package_prune.py PACKAGE_DIR` (make build).

Powertools ships every utility (the event handler, the parser, batch, streaming, ...) in one distribution, ~3.6 MB,
of which the function imports Logger, Metrics, Tracer, Idempotency, the circuit breaker and what they import. The
roots are the package's own modules that name Powertools (ours, the business's and its dependencies'), so a
Powertools utility the business imports itself is kept; the closure of their imports inside Powertools (every
import at any depth of a file: functions and TYPE_CHECKING blocks too) decides what stays. What is dropped is a
whole unit, a subpackage directly under `aws_lambda_powertools/` or `aws_lambda_powertools/utilities/`, and only
when none of its modules is reached: the few imports Powertools makes by computed name stay inside their own unit.
Besides whole units, the event handler's Swagger UI assets (`ASSETS`, ~1.7 MB of minified JavaScript and CSS) go:
the unit stays only because `shared/functions.py` imports its pydantic helpers inside a function, and the assets
are read by nothing but the route `enable_swagger()` adds to an event handler resolver, which the function never
builds; they stay when a module of the package outside Powertools names `enable_swagger`.
Last, each distribution's metadata (`*.dist-info`) keeps what is read at run time and drops the rest (`trim_metadata`,
~0.5 MB): `RECORD`, pip's list of installed files for `pip uninstall`, goes, and `METADATA` keeps its headers (what
`importlib.metadata.version()` and `requires()` read) without the long description after them (pydantic's is its
whole changelog). Licenses, SBOMs and entry points stay.
Prints what was dropped and the bytes saved; `--dry-run` only prints.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

TOP = "aws_lambda_powertools"
# Data files of a kept unit the function never reads, and the name a module must use for them to be read.
ASSETS = (
    "event_handler/openapi/swagger_ui/swagger-ui-bundle.min.js",
    "event_handler/openapi/swagger_ui/swagger-ui.min.css",
)
ASSETS_USER = "enable_swagger"


def module_names(path: Path, module: str, is_package: bool) -> Iterator[str]:
    """Every module a file imports, at any depth, relative imports resolved (`module` is the file's own name);
    for `from X import a`, both X and X.a (which may be a module)."""
    package = module if is_package else module.rpartition(".")[0]
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in node.names)


def module_file(root: Path, name: str) -> tuple[Path, bool] | None:
    """The file of module `name` under `root` (and whether it is a package's `__init__.py`), or None."""
    base = root.joinpath(*name.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py", True
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py"), False
    return None


def reached(root: Path) -> set[str]:
    """The Powertools modules the package's other modules import, and everything those import in turn."""
    pending: list[str] = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        if relative.parts[0] == TOP or "__pycache__" in relative.parts:
            continue
        text = path.read_bytes()
        if TOP.encode() not in text:
            continue
        is_package = path.name == "__init__.py"
        module = ".".join(relative.with_suffix("").parts[: -1 if is_package else None])
        pending += [name for name in module_names(path, module, is_package) if name.split(".")[0] == TOP]
    found: set[str] = set()
    while pending:
        name = pending.pop()
        if name in found:
            continue
        located = module_file(root, name)
        if located is None:
            continue
        found.add(name)
        parts = name.split(".")
        pending += [".".join(parts[:end]) for end in range(1, len(parts))]  # its packages run first
        pending += [n for n in module_names(located[0], name, located[1]) if n.split(".")[0] == TOP]
    return found


def units(root: Path) -> Iterator[Path]:
    """The droppable units: each subpackage directly under Powertools and under its `utilities`."""
    top = root / TOP
    for parent in (top, top / "utilities"):
        for entry in sorted(parent.iterdir()):
            if entry.is_dir() and (entry / "__init__.py").is_file() and entry != top / "utilities":
                yield entry


def unused_units(root: Path) -> list[Path]:
    """The units no reached module is in."""
    modules = reached(root)
    kept = {root.joinpath(*name.split(".")) for name in modules}
    return [unit for unit in units(root) if not any(path == unit or unit in path.parents for path in kept)]


def unused_assets(root: Path) -> list[Path]:
    """The `ASSETS` in the package, unless a module of it outside Powertools names `ASSETS_USER`."""
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        outside = relative.parts[0] != TOP and "__pycache__" not in relative.parts
        if outside and ASSETS_USER.encode() in path.read_bytes():
            return []
    return [root / TOP / asset for asset in ASSETS if (root / TOP / asset).is_file()]


def unused(root: Path) -> list[Path]:
    """Everything `main` drops: the units no reached module is in, then the assets nothing reads that are not in
    one of those units already."""
    units = unused_units(root)
    assets = [asset for asset in unused_assets(root) if not any(unit in asset.parents for unit in units)]
    return units + assets


def drop(path: Path) -> None:
    """Remove what `unused` names: a unit's directory or an asset file."""
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


def prune(root: Path) -> None:
    """Everything `main` does to a package, without the report: drop what `unused` names, trim the metadata."""
    for path in unused(root):
        drop(path)
    trim_metadata(root)


def trim_metadata(root: Path, dry_run: bool = False) -> int:
    """Drop every `*.dist-info/RECORD` and the description body of every `METADATA` under `root` (the package's top
    level, where pip installs them); returns the bytes saved. The headers of `METADATA` end at its first blank line
    (the email format of the core metadata specification); the body after it is the project's README."""
    saved = 0
    for info in root.glob("*.dist-info"):
        record = info / "RECORD"
        if record.is_file():
            saved += record.stat().st_size
            if not dry_run:
                record.unlink()
        metadata = info / "METADATA"
        if metadata.is_file():
            text = metadata.read_bytes()
            end = text.find(b"\n\n")
            if end >= 0:
                saved += len(text) - end - 1
                if not dry_run:
                    metadata.write_bytes(text[: end + 1])
    return saved


def tree_size(path: Path) -> int:
    return sum(file.stat().st_size for file in path.rglob("*") if file.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", type=Path)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    if not (args.package / TOP).is_dir():
        print(f"package_prune: no {TOP} in {args.package}: nothing to prune")
        return 0
    dropped = unused(args.package)
    units = sum(path.is_dir() for path in dropped)
    saved = 0
    for path in dropped:
        saved += tree_size(path) if path.is_dir() else path.stat().st_size
        print(
            f"package_prune: {'would drop' if args.dry_run else 'dropped'} {path.relative_to(args.package)}"
        )
        if not args.dry_run:
            drop(path)
    print(
        f"package_prune: {units} Powertools units never imported and {len(dropped) - units} assets never read, "
        f"{saved / 1e6:.2f} MB"
    )
    trimmed = trim_metadata(args.package, args.dry_run)
    print(
        f"package_prune: {'would trim' if args.dry_run else 'trimmed'} the distributions' metadata "
        f"(RECORD, long descriptions), {trimmed / 1e6:.2f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
