"""What the Lambda package ships is what the function uses: every module of ours in it imports with the package
alone, and is imported by some path from the handler (or named by the settings, or offered to a business); the
Powertools units `dev/mcp_lambda_tools/build/package_prune.py` drops are never imported, and what it keeps imports:
every module of Powertools left in the package imports with the package alone, but the few that need what the
package deliberately leaves out (`POWERTOOLS_LEFT_OUT`), and its only data files left are the ones a module reads."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_lambda.stores import BACKENDS
from mcp_lambda_tools.build.package_prune import (
    ASSETS,
    TOP,
    drop,
    main,
    module_names,
    reached,
    unused,
    unused_assets,
    unused_units,
)
from mcp_lambda_tools.build.package_stage import stage

ROOT = Path(__file__).resolve().parents[2]
# Imported by something other than an import statement of ours: the handler (Lambda's entry), the business (by
# name, from the settings), each store backend (by name, from the settings), and the modules a business imports
# besides `mcp_lambda.tools` (docs/errors.md names `mcp_lambda.tools.errors`).
ENTRY_POINTS = (
    "mcp_lambda.handler",
    "businesses.demo",
    "mcp_lambda.tools.errors",
    *(module for backends in BACKENDS.values() for module in backends.values()),
)

# Powertools modules the package ships that cannot import, each for a reason the package chose: the Redis
# persistence layers need redis (the package has none: the exactly-once store is DynamoDB or memory), and the
# event handler's schema-validation middleware needs the validation utility package_prune drops (nothing imports
# that middleware).
POWERTOOLS_LEFT_OUT = {
    f"{TOP}.utilities.idempotency.persistence.cache": "redis",
    f"{TOP}.utilities.idempotency.persistence.redis": "redis",
    f"{TOP}.event_handler.middlewares.schema_validation": f"{TOP}.utilities.validation",
}


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stage")
    stage("demo", out)
    return out / "demo"


def shipped_modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every .py of the package."""
    found = {}
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        is_package = path.name == "__init__.py"
        found[".".join(relative.with_suffix("").parts[: -1 if is_package else None])] = (path, is_package)
    return found


def test_every_module_shipped_is_imported_by_some_path(staged: Path) -> None:
    modules = shipped_modules(staged)
    seen: set[str] = set()
    pending = list(ENTRY_POINTS)
    while pending:
        name = pending.pop()
        if name in seen or name not in modules:
            continue
        seen.add(name)
        parts = name.split(".")
        pending += [".".join(parts[:end]) for end in range(1, len(parts))]
        pending += list(module_names(modules[name][0], name, modules[name][1]))
    assert sorted(set(modules) - seen) == []
    assert "mcp_lambda.handler" in seen and "businesses.demo.routes" in seen  # the walk itself reaches far


IMPORT_ALL = r"""
import importlib, json, site, sys
staged = sys.argv[1]
# The package first, then the standard library and the installed dependencies: not src/ nor dev/.
sys.path[:] = [staged] + [p for p in sys.path if p.startswith(sys.base_prefix) or p in site.getsitepackages()]
sys.modules["yaml"] = None  # the package has no PyYAML
failed = {}
for name in json.loads(sys.argv[2]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print("RESULT " + json.dumps(failed))
"""


def _import_all(path: Path, names: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(path), json.dumps(names)],
        capture_output=True,
        text=True,
        check=True,
        cwd=path,
        env={
            "PATH": "/usr/bin:/bin",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "MANIFEST_DIR": str(ROOT / "manifest"),
        },
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))  # type: ignore[no-any-return]


def test_every_module_shipped_imports_with_the_package_alone(staged: Path) -> None:
    names = sorted(
        name for name in shipped_modules(staged) if name != "mcp_lambda.handler"
    )  # it builds the app
    assert _import_all(staged, names) == {}


def test_the_powertools_units_pruned_are_never_imported_and_what_stays_imports(tmp_path: Path) -> None:
    package = _with_powertools(tmp_path, ours=True)
    dropped = unused_units(package)
    assert package / TOP / "utilities" / "batch" in dropped  # a utility nothing of ours imports
    for unit in dropped:
        shutil.rmtree(unit)
    kept = sorted(reached(package))
    assert f"{TOP}.utilities.idempotency" in kept and f"{TOP}.utilities.circuit_breaker" in kept
    # Every Powertools module our code (at any depth) reaches imports from the pruned copy, first on the path.
    assert _import_all(package, kept) == {}


def test_a_powertools_utility_a_business_imports_is_kept(tmp_path: Path) -> None:
    package = _with_powertools(tmp_path)
    (package / "businesses" / "shop").mkdir(parents=True)
    (package / "businesses" / "shop" / "__init__.py").write_text(
        "def handler():\n    from aws_lambda_powertools.utilities.batch import BatchProcessor\n"
    )
    dropped = unused_units(package)
    assert package / TOP / "utilities" / "batch" not in dropped
    assert package / TOP / "utilities" / "kafka" in dropped


def _site_packages() -> Path:
    """The site-packages directory the tests' Powertools is installed in."""
    return Path(next(p for p in site.getsitepackages() if (Path(p) / TOP).is_dir()))


def _with_powertools(tmp_path: Path, ours: bool = False) -> Path:
    """`tmp_path/package` holding the installed Powertools and, with `ours`, our code without the test kit."""
    package = tmp_path / "package"
    if ours:
        shutil.copytree(
            ROOT / "src" / "mcp_lambda", package / "mcp_lambda", ignore=shutil.ignore_patterns("testing")
        )
    shutil.copytree(_site_packages() / TOP, package / TOP, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def _pruned_powertools(tmp_path: Path) -> Path:
    """Our code and the installed Powertools in one tree, pruned as make build prunes it."""
    package = _with_powertools(tmp_path, ours=True)
    for path in unused(package):
        drop(path)
    return package


def test_everything_of_powertools_the_package_ships_imports_or_is_left_out_on_purpose(tmp_path: Path) -> None:
    package = _pruned_powertools(tmp_path)
    shipped = {name for name in shipped_modules(package) if name.split(".")[0] == TOP}
    failed = _import_all(package, sorted(shipped))
    assert {name: error.split(":")[0] for name, error in failed.items()} == dict.fromkeys(
        POWERTOOLS_LEFT_OUT, "ModuleNotFoundError"
    )
    for name, missing in POWERTOOLS_LEFT_OUT.items():
        assert f"No module named '{missing}'" in failed[name]
    # What is not a module is what a module reads: the marker of its types and nothing else.
    data = sorted(
        str(path.relative_to(package / TOP))
        for path in (package / TOP).rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    )
    assert data == ["py.typed"]


def test_the_swagger_assets_go_unless_a_business_names_enable_swagger(tmp_path: Path) -> None:
    package = _with_powertools(tmp_path)
    assert unused_assets(package) == [package / TOP / asset for asset in ASSETS]
    # Only the route enable_swagger() adds reads them.
    readers = [
        path.relative_to(package / TOP).as_posix()
        for path in (package / TOP).rglob("*.py")
        if any(Path(asset).name.encode() in path.read_bytes() for asset in ASSETS)
    ]
    assert readers == ["event_handler/api_gateway.py"]
    (package / "businesses" / "shop").mkdir(parents=True)
    (package / "businesses" / "shop" / "__init__.py").write_text(
        "from aws_lambda_powertools.event_handler import APIGatewayRestResolver\n"
        "app = APIGatewayRestResolver(enable_validation=True)\napp.enable_swagger(path='/docs')\n"
    )
    assert unused_assets(package) == []


def test_trimmed_metadata_still_answers_what_run_time_asks(tmp_path: Path) -> None:
    """RECORD and the long descriptions go; version, requirements and entry points read the same as before."""
    from mcp_lambda_tools.build.package_prune import trim_metadata

    site_dir = _site_packages()
    names = ["pydantic", "fastapi", "aws_lambda_powertools", "opentelemetry_api", "orjson"]
    for name in names:
        (info,) = site_dir.glob(f"{name}-*.dist-info")
        shutil.copytree(info, tmp_path / info.name)
    before = {name: _metadata_seen(tmp_path, name) for name in names}
    saved = trim_metadata(tmp_path)
    assert saved > 100_000  # pydantic's METADATA alone carries its changelog
    assert not list(tmp_path.glob("*.dist-info/RECORD"))
    assert {name: _metadata_seen(tmp_path, name) for name in names} == before
    pydantic_info = next(tmp_path.glob("pydantic-*.dist-info"))
    assert (pydantic_info / "METADATA").read_bytes().endswith(b"\n")
    assert b"\n\n" not in (pydantic_info / "METADATA").read_bytes()


def _metadata_seen(path: Path, name: str) -> str:
    """What `importlib.metadata` answers for `name` with only `path` to look in, in a fresh interpreter."""
    script = (
        "import json, sys; from importlib import metadata as m; d = m.distribution(sys.argv[1]); "
        "print(json.dumps([d.version, d.requires, sorted(e.name for e in d.entry_points), d.metadata['Name']]))"
    )
    found = subprocess.run(
        # -S: no site-packages, so the trimmed copies are the only metadata there is.
        [
            sys.executable,
            "-S",
            "-c",
            f"import sys; sys.path.insert(0, {str(path)!r}); exec({script!r})",
            name,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout


def test_a_package_whose_event_handler_goes_whole_prunes_without_naming_its_assets(tmp_path: Path) -> None:
    """Powertools alone, nothing of ours: the event handler is an unused unit, so its assets go with it and are not
    named again (removing them after their directory failed the build)."""
    package = _with_powertools(tmp_path)
    handler_unit = package / TOP / "event_handler"
    assert handler_unit in unused_units(package)
    assert not [path for path in unused(package) if handler_unit in path.parents]
    assert main([str(package)]) == 0
    assert not handler_unit.exists()
