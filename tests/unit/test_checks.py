"""`make lint` runs the field's checkers (checkov, cfn-lint's serverless rules) on every template, pinned, in their
own virtualenv; and where that virtualenv is installed, the templates pass them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from mcp_lambda_tools.deploy.stack_compose import main as compose_main

ROOT = Path(__file__).resolve().parents[2]
CHECKS_MK = (ROOT / "mk" / "checks.mk").read_text()
VENV = ROOT / ".venv-checks"


def test_the_checkers_are_pinned_in_their_own_ignored_virtualenv_and_part_of_lint() -> None:
    pins = dict(re.findall(r"^(\w+_VERSION) \?= (\S+)$", CHECKS_MK, re.M))
    assert re.fullmatch(r"\d+\.\d+\.\d+", pins["CHECKOV_VERSION"])
    assert re.fullmatch(r"\d+\.\d+\.\d+", pins["CFN_LINT_SERVERLESS_VERSION"])
    # The cfn-lint make validate pins: both read a template alike.
    assert pins["CHECKS_CFN_LINT_VERSION"] == "$(CFN_LINT_VERSION)"
    assert "'checkov==$(CHECKOV_VERSION)'" in CHECKS_MK
    assert "'cfn-lint-serverless==$(CFN_LINT_SERVERLESS_VERSION)'" in CHECKS_MK
    assert re.search(r"^lint: checks$", CHECKS_MK, re.M)
    # Every business's composed stack and the deploy/*.yaml templates are checked as soon as they exist.
    assert (
        "CHECK_TEMPLATES = template.yaml $(wildcard $(STACKS_DIR)/*.template.yaml) $(wildcard deploy/*.yaml)"
        in CHECKS_MK
    )
    assert re.search(r"^checks: \$\(CHECKS_VENV\)/\.installed stacks ", CHECKS_MK, re.M)
    # Offline once installed: no guideline download, no update check.
    assert "--skip-download" in CHECKS_MK and "CKV_SKIP_PACKAGE_UPDATE_CHECK=true" in CHECKS_MK
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", ".venv-checks/bin/checkov"], cwd=ROOT, check=False
    ).returncode
    assert ignored == 0, ".venv-checks must be ignored by git"


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Every business's stack, composed as make stacks composes it."""
    out = tmp_path_factory.mktemp("stacks")
    assert compose_main(["--all", str(out)]) == 0
    return sorted(out.glob("*.template.yaml"))


def templates(stacks: list[Path]) -> list[Path]:
    return [ROOT / "template.yaml", *stacks, *sorted((ROOT / "deploy").glob("*.yaml"))]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"BC_SKIP_MAPPING": "TRUE", "CKV_SKIP_PACKAGE_UPDATE_CHECK": "true"}
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=110, check=False
    )


def test_checkov_finds_nothing_failing_in_the_templates(stacks: list[Path]) -> None:
    if not (VENV / ".installed").exists():
        pytest.skip("checkov not installed (make checks, part of make lint, installs it)")
    files = [arg for path in templates(stacks) for arg in ("-f", str(path))]
    done = _run(
        str(VENV / "bin" / "checkov"),
        "--quiet",
        "--compact",
        "--skip-download",
        "--framework",
        "cloudformation",
        *files,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Failed checks: 0,", done.stdout), done.stdout


def test_the_serverless_rules_find_nothing_in_the_templates(stacks: list[Path]) -> None:
    if not (VENV / ".installed").exists():
        pytest.skip("cfn-lint-serverless not installed (make checks, part of make lint, installs it)")
    files = [str(path) for path in templates(stacks)]
    done = _run(str(VENV / "bin" / "cfn-lint"), "--append-rules", "cfn_lint_serverless.rules", "--", *files)
    assert done.returncode == 0, done.stdout + done.stderr
