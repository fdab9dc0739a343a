"""What a business's package needs beyond the framework: its own pins, and PyJWT when its stack validates tokens.

`package_deps.py BUSINESS PACKAGE_DIR RECORD` (make build runs it after sam build; the deploy parameters are
`--deploy-params "K=V ..."`, by default $DEPLOY_PARAMS):

- the stack's `AuthMode` is read from the deploy parameters (samconfig.toml's `parameter_overrides`, then
  `DEPLOY_PARAMS`); when it is `jwt`, mk/requirements-jwt.txt is installed into the package;
- the business's own pins, `src/businesses/<name>/requirements.txt`, are installed into its package only, each an
  exact pin (`name==version`), none in conflict with the framework's pins (src/requirements.txt): a business pin
  of a framework package must be the framework's version, and what it pulls in is held to the framework's pins;
- RECORD (JSON) says what was installed for which part and the business's budget, for scripts/package_size.py,
  and which auth mode the package serves, for `make deploy` (`--check-deploy RECORD`), which refuses to deploy
  `AuthMode=jwt` with a package built without PyJWT.

Everything is installed for the Lambda platform (python3.13, manylinux2014_aarch64 wheels only; `--architecture
x86_64` for a package built for an x86_64 function, as `make sam-local` builds one on an x86_64 host).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from scripts.stack_compose import budget_mb

REPO = Path(__file__).resolve().parents[1]
FRAMEWORK_REQUIREMENTS = REPO / "src" / "requirements.txt"
JWT_REQUIREMENTS = REPO / "mk" / "requirements-jwt.txt"
SAMCONFIG = REPO / "samconfig.toml"
WHEEL_PLATFORMS = {"arm64": "manylinux2014_aarch64", "x86_64": "manylinux2014_x86_64"}


def lambda_platform(architecture: str = "arm64") -> tuple[str, ...]:
    """pip's options that select the Lambda runtime's wheels (python3.13) for `architecture`."""
    return (
        "--platform", WHEEL_PLATFORMS[architecture], "--implementation", "cp", "--python-version", "3.13",
        "--only-binary=:all:",
    )  # fmt: skip


BUSINESS_CODE = "businesses"  # the business part of the package: its code, and the entries its pins added


class DependencyError(Exception):
    """The business's requirements cannot be installed as they are; one line per problem."""


def requirement_lines(path: Path) -> list[str]:
    """The requirement lines of a requirements file, without comments and blank lines."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def pins(path: Path) -> dict[str, str]:
    """The exact pins of a requirements file: canonical name -> version."""
    found = {}
    for line in requirement_lines(path):
        requirement = Requirement(line)
        [spec] = requirement.specifier
        found[canonicalize_name(requirement.name)] = spec.version
    return found


def conflicts(business: Path, framework: Mapping[str, str]) -> list[str]:
    """What is wrong with a business's requirements file, against the framework's pins.

    Args:
        business: `src/businesses/<name>/requirements.txt`.
        framework: The framework's pins (canonical name -> version).

    Returns:
        One line per problem (empty when it can be installed).
    """
    found = []
    for line in requirement_lines(business):
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            found.append(
                f"{business}: '{line}' is not a requirement (name==version; no options, paths or URLs)"
            )
            continue
        specs = list(requirement.specifier)
        name = canonicalize_name(requirement.name)
        if name in framework and not requirement.specifier.contains(framework[name], prereleases=True):
            found.append(
                f"{business}: {line} conflicts with the framework's pin {requirement.name}=={framework[name]} "
                "(src/requirements.txt); use the framework's version"
            )
        elif requirement.url or len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version:
            found.append(
                f"{business}: pin '{line}' exactly, as the framework does: {requirement.name}==<version>"
            )
    return found


def deploy_parameters(
    deploy_params: str, samconfig: Path = SAMCONFIG, config_env: str = "default"
) -> dict[str, str]:
    """The stack's parameter overrides: samconfig.toml's `parameter_overrides`, then `deploy_params` over them.

    Args:
        deploy_params: `K=V` pairs as `make deploy DEPLOY_PARAMS=...` passes them (shell-quoted).
        samconfig: The SAM configuration file.
        config_env: Its environment (`sam deploy --config-env`).

    Returns:
        Parameter name -> value.
    """
    overrides: Any = ""
    if samconfig.is_file():
        config = tomllib.loads(samconfig.read_text(encoding="utf-8"))
        overrides = (
            config.get(config_env, {}).get("deploy", {}).get("parameters", {}).get("parameter_overrides", "")
        )
    words = shlex.split(overrides) if isinstance(overrides, str) else [str(word) for word in overrides]
    values = {}
    for word in [*words, *shlex.split(deploy_params)]:
        name, equals, value = word.partition("=")
        if equals:
            values[name] = value
    return values


def auth_mode(parameters: Mapping[str, str]) -> str:
    """The AUTH_MODE the stack gives its function (template.yaml: an empty AuthMode follows JwtIssuer)."""
    given = parameters.get("AuthMode", "")
    if given:
        return given
    return "apigateway" if parameters.get("JwtIssuer", "") else "none"


def constraints_file(paths: Sequence[Path], out: Path) -> Path:
    """The framework's pins as a pip constraints file (pip refuses extras in constraints)."""
    lines = [re.sub(r"\[[^\]]*\]", "", line) for path in paths for line in requirement_lines(path)]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def install(
    requirements: Path, package: Path, constraints: Path, pip: Sequence[str], architecture: str = "arm64"
) -> list[str]:
    """Install `requirements` for the Lambda platform; move into `package` only the entries it does not hold.

    Args:
        requirements: The requirements file.
        package: The package's root.
        constraints: The pins everything installed is held to.
        pip: The pip command.
        architecture: The function's architecture (arm64 or x86_64).

    Returns:
        The top-level entries added to the package, sorted.

    Raises:
        DependencyError: pip could not install them (its own message says why).
    """
    with tempfile.TemporaryDirectory(prefix="package-deps-") as scratch:
        target = Path(scratch) / "site"
        command = [
            *pip,
            "install",
            "--quiet",
            "--no-compile",
            "--target",
            str(target),
            *lambda_platform(architecture),
        ]
        done = subprocess.run(
            [*command, "-c", str(constraints), "-r", str(requirements)],
            capture_output=True,
            text=True,
            check=False,
            env={name: value for name, value in os.environ.items() if name != "PYTHONPATH"},
        )
        if done.returncode != 0:
            raise DependencyError(
                f"pip could not install {requirements} for the Lambda platform:\n{done.stderr}"
            )
        # bin/: console scripts, which the function never runs
        added = sorted(
            entry.name
            for entry in target.iterdir()
            if entry.name != "bin" and not (package / entry.name).exists()
        )
        for name in added:
            shutil.move(str(target / name), str(package / name))
    return added


def prepare(
    business: str,
    package: Path,
    deploy_params: str = "",
    source: Path = REPO / "src",
    pip: Sequence[str] = (sys.executable, "-m", "pip"),
    architecture: str = "arm64",
) -> dict[str, Any]:
    """Install what the business's package needs beyond the framework and say what it is.

    Args:
        business: The business.
        package: The built package's root (sam build's output).
        deploy_params: `DEPLOY_PARAMS` of make.
        source: The source tree.
        pip: The pip command.
        architecture: The function's architecture (arm64 or x86_64).

    Returns:
        The build record: business, auth_mode, jwt (PyJWT shipped), parts (part -> entries), budget_mb.

    Raises:
        DependencyError: The business's pins conflict with the framework's, or cannot be installed.
    """
    framework_pins = pins(source / "requirements.txt")
    mode = auth_mode(deploy_parameters(deploy_params))
    requirements = source / "businesses" / business / "requirements.txt"
    if requirements.is_file():
        found = conflicts(requirements, framework_pins)
        if found:
            raise DependencyError("\n".join(found))
    parts: dict[str, list[str]] = {"business": [BUSINESS_CODE], "jwt": []}
    with tempfile.TemporaryDirectory(prefix="package-pins-") as scratch:
        held = [source / "requirements.txt", *([JWT_REQUIREMENTS] if mode == "jwt" else [])]
        constraints = constraints_file(held, Path(scratch) / "constraints.txt")
        if mode == "jwt":
            parts["jwt"] = install(JWT_REQUIREMENTS, package, constraints, pip, architecture)
        if requirements.is_file() and requirement_lines(requirements):
            parts["business"] += install(requirements, package, constraints, pip, architecture)
    return {
        "business": business,
        "auth_mode": mode,
        "jwt": mode == "jwt",
        "parts": parts,
        "budget_mb": budget_mb(business, source),
    }


def deploy_refusal(record: Mapping[str, Any], deploy_params: str) -> str | None:
    """Why a build cannot be deployed with these parameters (None when it can).

    Args:
        record: The build record `prepare` wrote.
        deploy_params: `DEPLOY_PARAMS` of make deploy.

    Returns:
        The reason, naming the fix, or None.
    """
    mode = auth_mode(deploy_parameters(deploy_params))
    if mode == "jwt" and not record.get("jwt"):
        return (
            "the stack's AuthMode is jwt but the package was built without PyJWT: run 'make build "
            f"BUSINESS={record.get('business')}' with the same DEPLOY_PARAMS (or AuthMode=jwt in samconfig.toml)"
        )
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="BUSINESS PACKAGE_DIR RECORD, or RECORD with --check-deploy")
    parser.add_argument(
        "--deploy-params", default=os.environ.get("DEPLOY_PARAMS", ""), help="default: $DEPLOY_PARAMS"
    )
    parser.add_argument("--check-deploy", action="store_true", help="refuse a deploy the build cannot serve")
    parser.add_argument(
        "--architecture", choices=sorted(WHEEL_PLATFORMS), default="arm64", help="default: arm64"
    )
    parser.add_argument(
        "--overrides",
        action="store_true",
        help="print samconfig.toml's overrides with DEPLOY_PARAMS, shell-quoted",
    )
    args = parser.parse_args(argv)
    if args.overrides:
        print(shlex.join(f"{name}={value}" for name, value in deploy_parameters(args.deploy_params).items()))
        return 0
    if args.check_deploy and len(args.paths) == 1:
        record = Path(args.paths[0])
        if not record.is_file():
            print(f"package_deps: {record} is missing: run make build first", file=sys.stderr)
            return 1
        reason = deploy_refusal(json.loads(record.read_text(encoding="utf-8")), args.deploy_params)
        if reason:
            print(f"package_deps: {reason}", file=sys.stderr)
            return 1
        return 0
    if len(args.paths) != 3 or args.check_deploy:
        parser.error("give BUSINESS PACKAGE_DIR RECORD, RECORD --check-deploy, or --overrides")
    business, package, out = args.paths[0], Path(args.paths[1]), Path(args.paths[2])
    try:
        record = prepare(business, package, args.deploy_params, architecture=args.architecture)
    except DependencyError as exc:
        for line in str(exc).splitlines():
            print(f"package_deps: {line}", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    added = ", ".join(record["parts"]["business"][1:]) or "nothing"
    print(
        f"package_deps: AuthMode {record['auth_mode']}: PyJWT {'shipped' if record['jwt'] else 'not shipped'}"
    )
    print(f"package_deps: businesses/{business}/requirements.txt added {added}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
