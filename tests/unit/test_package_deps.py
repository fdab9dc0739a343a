"""What a business's package carries beyond the framework: its own exact pins (never against the framework's),
PyJWT when the stack's AuthMode is jwt (from samconfig.toml and DEPLOY_PARAMS, no flag), each part sized apart."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from mcp_lambda_tools.build.package_deps import (
    DependencyError,
    auth_mode,
    conflicts,
    deploy_parameters,
    deploy_refusal,
    install,
    pins,
    prepare,
)
from mcp_lambda_tools.build.package_deps import main as deps_main
from mcp_lambda_tools.build.package_size import main as size_main

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORK = pins(ROOT / "src" / "requirements.txt")
SAMCONFIG = """
version = 0.1
[default.deploy.parameters]
parameter_overrides = "AuthMode=jwt JwtIssuer=https://issuer.example/"
[staging.deploy.parameters]
parameter_overrides = ["Environment=staging"]
"""


def _requirements(tmp_path: Path, *lines: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "requirements.txt"
    path.write_text("# the business's own pins\n" + "\n".join(lines) + "\n")
    return path


def _wheel(folder: Path, name: str, requires: tuple[str, ...] = ()) -> Path:
    """A pure-Python wheel of one module, as an index would serve it."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n" + "".join(
        f"Requires-Dist: {requirement}\n" for requirement in requires
    )
    files = {
        f"{name}/__init__.py": "VALUE = 1\n",
        f"{info}/METADATA": metadata,
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{file},,\n" for file in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(path, "w") as wheel:
        for file, text in files.items():
            wheel.writestr(file, text)
    return path


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A built package: the framework's urllib3 and the business's code."""
    root = tmp_path / "McpFunction"
    (root / "urllib3").mkdir(parents=True)
    (root / "urllib3" / "__init__.py").write_text("x" * 3000)
    (root / "businesses" / "clinic").mkdir(parents=True)
    (root / "businesses" / "clinic" / "__init__.py").write_text("y" * 2000)
    return root


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip reads wheels from this folder only (no network)."""
    folder = tmp_path / "wheels"
    _wheel(folder, "slotkit")
    _wheel(folder, "oldhttp", requires=("urllib3<2",))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    return folder


def test_a_business_pin_must_be_exact_and_agree_with_the_framework(tmp_path: Path) -> None:
    requirements = _requirements(
        tmp_path, "slotkit==1.0", f"pydantic=={FRAMEWORK['pydantic']}", "pydantic>=99", "requests", "-e ./x"
    )
    assert conflicts(requirements, FRAMEWORK) == [
        f"{requirements}: pydantic>=99 conflicts with the framework's pin pydantic=={FRAMEWORK['pydantic']} "
        "(src/requirements.txt); use the framework's version",
        f"{requirements}: pin 'requests' exactly, as the framework does: requests==<version>",
        f"{requirements}: '-e ./x' is not a requirement (name==version; no options, paths or URLs)",
    ]


def test_the_auth_mode_follows_samconfig_and_deploy_params(tmp_path: Path) -> None:
    samconfig = tmp_path / "samconfig.toml"
    samconfig.write_text(SAMCONFIG)

    assert auth_mode(deploy_parameters("", samconfig)) == "jwt"
    assert auth_mode(deploy_parameters("AuthMode=apigateway", samconfig)) == "apigateway"
    assert deploy_parameters("", samconfig, "staging") == {"Environment": "staging"}
    assert (
        auth_mode(deploy_parameters("JwtIssuer=https://i.example/", tmp_path / "none.toml")) == "apigateway"
    )
    assert auth_mode(deploy_parameters("", tmp_path / "none.toml")) == "none"
    quoted = deploy_parameters("""ToolQuotas='{"a": "5/hour"}' AuthMode=jwt""", tmp_path / "none.toml")
    assert quoted == {"ToolQuotas": '{"a": "5/hour"}', "AuthMode": "jwt"}


def test_a_package_without_pyjwt_is_refused_for_a_jwt_stack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = {"business": "clinic", "jwt": False}
    assert deploy_refusal(built, "AuthMode=jwt JwtIssuer=https://i.example/") == (
        "the stack's AuthMode is jwt but the package was built without PyJWT: run 'make build BUSINESS=clinic' "
        "with the same DEPLOY_PARAMS (or AuthMode=jwt in samconfig.toml)"
    )
    assert deploy_refusal(built, "JwtIssuer=https://i.example/") is None
    assert deploy_refusal({**built, "jwt": True}, "AuthMode=jwt") is None

    record = tmp_path / "package.json"
    record.write_text(json.dumps(built))
    monkeypatch.setenv("DEPLOY_PARAMS", "AuthMode=jwt JwtIssuer=https://i.example/")
    assert deps_main([str(record), "--check-deploy"]) == 1
    assert "built without PyJWT" in capsys.readouterr().err
    assert deps_main([str(tmp_path / "missing.json"), "--check-deploy"]) == 1


def test_make_deploy_passes_samconfigs_overrides_with_deploy_params(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_PARAMS", """AuthMode=none ToolQuotas='{"a": "5/hour"}'""")
    assert deps_main(["--overrides"]) == 0
    assert capsys.readouterr().out == """AuthMode=none 'ToolQuotas={"a": "5/hour"}'\n"""


def test_a_business_pin_is_installed_into_its_package_only_once(package: Path, local_index: Path) -> None:
    constraints = _requirements(package.parent, "urllib3==2.8.0")
    added = install(
        _requirements(package.parent / "b", "slotkit==1.0"), package, constraints, ("python", "-m", "pip")
    )

    assert added == ["slotkit", "slotkit-1.0.dist-info"]
    assert (package / "slotkit" / "__init__.py").read_text() == "VALUE = 1\n"


def test_a_pin_whose_dependencies_break_the_frameworks_pins_is_refused(
    package: Path, local_index: Path
) -> None:
    constraints = _requirements(package.parent, "urllib3==2.8.0")
    with pytest.raises(DependencyError, match=r"pip could not install .* for the Lambda platform"):
        install(
            _requirements(package.parent / "b", "oldhttp==1.0"), package, constraints, ("python", "-m", "pip")
        )
    assert not (package / "oldhttp").exists()


def test_the_build_record_and_the_sizes_apart(
    package: Path,
    local_index: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = tmp_path / "src"
    (source / "businesses" / "clinic").mkdir(parents=True)
    (source / "requirements.txt").write_text("urllib3==2.8.0\n")
    (source / "businesses" / "clinic" / "requirements.txt").write_text("slotkit==1.0\n")
    (source / "businesses" / "clinic" / "stack.yaml").write_text("Package:\n  BudgetMb: 0.0021\n")
    monkeypatch.setenv("DEPLOY_PARAMS", "")
    record = prepare("clinic", package, "AuthMode=none", source, ("python", "-m", "pip"))

    assert record == {
        "business": "clinic",
        "auth_mode": "none",
        "jwt": False,
        "parts": {"business": ["businesses", "slotkit", "slotkit-1.0.dist-info"], "jwt": []},
        "budget_mb": 0.0021,
    }
    path = tmp_path / "package.json"
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert (
        size_main([str(package), "--record", str(path), "--limit-mb", "16"]) == 1
    )  # 2000 B of code + slotkit > 2100 B
    out, err = capsys.readouterr()
    assert "  framework: 0.0 MB without the boto3 closure" in out
    assert "  business clinic: 0.00 MB (budget 0.0021 MB), its code and slotkit, slotkit-1.0.dist-info" in out
    assert (
        err
        == "package_size: business clinic is over its 0.0021 MB budget (Package.BudgetMb in its stack.yaml)\n"
    )


def test_conflicting_pins_fail_the_build_before_anything_is_installed(package: Path, tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "businesses" / "clinic").mkdir(parents=True)
    (source / "requirements.txt").write_text("urllib3==2.8.0\n")
    (source / "businesses" / "clinic" / "requirements.txt").write_text("urllib3==1.26.0\n")
    with pytest.raises(
        DependencyError, match=re.escape("urllib3==1.26.0 conflicts with the framework's pin urllib3==2.8.0")
    ):
        prepare("clinic", package, "", source)
    assert sorted(entry.name for entry in package.iterdir()) == ["businesses", "urllib3"]
