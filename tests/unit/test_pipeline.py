"""The GitHub workflows call only make targets that exist, pin every action to a commit, keep `id-token: write`
to the jobs that deploy; and the deploy matrix (dev/mcp_lambda_tools/deploy/businesses_matrix.py) finds the businesses that
`make new-business` writes, as the local discovery (`known_businesses`) finds them."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcp_lambda_dev.businesses import known_businesses
from mcp_lambda_tools.deploy.businesses_matrix import businesses
from mcp_lambda_tools.deploy.businesses_matrix import main as matrix_main

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+\s*$")


def load(path: Path) -> dict[str, Any]:
    """A workflow file as data (PyYAML reads the key `on` as True: it is put back as "on")."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:
        data["on"] = data.pop(True)
    return data


def run_scripts(workflow: dict[str, Any]) -> list[str]:
    """The `run:` scripts of every step of every job."""
    return [
        step["run"]
        for job in workflow.get("jobs", {}).values()
        for step in job.get("steps", [])
        if "run" in step
    ]


def make_targets(script: str) -> set[str]:
    """The targets of every `make` command in a shell script (options and VAR=value words left out)."""
    targets: set[str] = set()
    for line in script.replace("\\\n", " ").splitlines():
        words = list(shlex.shlex(line, posix=True, punctuation_chars=True))
        starts = [0, *(index + 1 for index, word in enumerate(words) if word in _SEPARATORS)]
        for start in starts:
            if start < len(words) and words[start] == "make":
                for word in words[start + 1 :]:
                    if word in _SEPARATORS:
                        break
                    if not word.startswith("-") and "=" not in word:
                        targets.add(word)
    return targets


def defined_targets(root: Path = ROOT) -> set[str]:
    """Every target of the Makefile and mk/*.mk, from make's own database (`make -pq`; nothing is run)."""
    database = subprocess.run(
        ["make", "-pRrq", "-C", str(root)], capture_output=True, text=True, timeout=60, check=False
    ).stdout
    names = set()
    for line in database.splitlines():
        match = re.match(r"^([A-Za-z0-9][\w.-]*):(?!=)", line)
        if match:
            names.add(match[1])
    return names


def test_the_target_parser_sees_make_after_separators_and_skips_variables() -> None:
    script = 'make venv-run validate\necho "$X" && make deploy BUSINESS="$B" -s STACK=x; make smoke\n'
    assert make_targets(script) == {"venv-run", "validate", "deploy", "smoke"}


def test_a_missing_target_is_not_in_makes_database() -> None:
    targets = defined_targets()
    assert {"test", "lint", "build", "deploy", "smoke", "workflows-lint"} <= targets
    assert "nosuch-target" not in targets


def test_every_make_target_the_workflows_call_exists() -> None:
    called = {
        (path.name, target)
        for path in WORKFLOWS
        for script in run_scripts(load(path))
        for target in make_targets(script)
    }
    assert {target for _, target in called} >= {"test", "lint", "build", "deploy", "smoke"}
    missing = sorted(pair for pair in called if pair[1] not in defined_targets())
    assert not missing, f"the workflows call make targets that do not exist: {missing}"


def test_every_action_is_pinned_to_a_commit_with_its_version() -> None:
    unpinned = [
        f"{path.name}: {line.strip()}"
        for path in WORKFLOWS
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.match(r"^\s*(?:-\s+)?uses:", line)
        and "uses: ./.github/workflows/" not in line
        and not _PINNED.match(line)
    ]
    assert WORKFLOWS and not unpinned, unpinned


def test_permissions_are_read_only_but_for_the_jobs_that_deploy() -> None:
    for path in WORKFLOWS:
        workflow = load(path)
        assert workflow["permissions"] == {"contents": "read"}, path.name
        assert "pull_request_target" not in workflow["on"], path.name
        for name, job in workflow["jobs"].items():
            token = job.get("permissions", {}).get("id-token")
            deploys = "environment" in job or job.get("uses", "").endswith("/deploy-business.yml")
            assert token == ("write" if deploys else None), f"{path.name}: {name}"


def test_production_waits_for_the_staging_smoke_of_the_same_business() -> None:
    jobs = load(ROOT / ".github" / "workflows" / "deploy-business.yml")["jobs"]
    staging, production = jobs["staging"], jobs["production"]
    assert production["needs"] == "staging" and staging["needs"] == "build"
    assert production["environment"] == "production"
    assert make_targets(run_scripts({"jobs": {"s": staging}})[-1]) == {
        "smoke"
    }  # smoke is staging's last step
    assert staging["concurrency"]["group"] != production["concurrency"]["group"]
    assert all("inputs.business" in job["concurrency"]["group"] for job in (staging, production))


def test_the_matrix_is_the_repositorys_deployable_businesses() -> None:
    found = businesses()
    assert "demo" in found and "conformance" not in found  # dev/businesses/ fixtures never deploy
    assert found == [name for name in known_businesses() if (ROOT / "src" / "businesses" / name).is_dir()]


def test_the_matrix_finds_what_new_business_writes_as_the_discovery_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcp_lambda_tools.scaffold.new_business import scaffold

    (tmp_path / "src" / "businesses").mkdir(parents=True)
    (tmp_path / "src" / "businesses" / "__init__.py").write_bytes(
        (ROOT / "src" / "businesses" / "__init__.py").read_bytes()
    )
    (tmp_path / "src" / "mcp_lambda").symlink_to(ROOT / "src" / "mcp_lambda")
    for name in ("shop", "trains"):
        scaffold(name, tmp_path)
    (tmp_path / "src" / "businesses" / "notes").mkdir()  # a folder that is no package is no business

    # The discovery of the repository, over the temporary tree alone: every other folder with a businesses/
    # package (this repository's src/ and dev/, an editable install's path) is taken off sys.path first.
    discover = (
        "import importlib.util, json, os, sys\n"
        f"only = {str(tmp_path / 'src')!r}\n"
        "sys.path[:] = [p for p in sys.path if p == only or not os.path.isdir(os.path.join(p, 'businesses'))]\n"
        f"spec = importlib.util.spec_from_file_location('discovery', {str(ROOT / 'dev/mcp_lambda_dev/businesses.py')!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "print(json.dumps(module.known_businesses()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", discover],
        env={**os.environ, "PYTHONPATH": str(tmp_path / "src")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    discovered = json.loads(done.stdout)

    assert sorted(discovered) == ["shop", "trains"]
    assert businesses(tmp_path) == discovered
    assert matrix_main(["--root", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == discovered


def test_the_matrix_of_one_business_names_it_or_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    assert matrix_main(["--only", "demo"]) == 0
    assert json.loads(capsys.readouterr().out) == ["demo"]
    assert matrix_main(["--only", "nosuch"]) == 2
    assert "no business 'nosuch'" in capsys.readouterr().err


def _without_env(command: str) -> str:
    """`command` without a leading `env NAME=value ...` (make's exported variables, given by hand)."""
    return re.sub(r"^env (?:\w+=\S+ )+", "", command)


def test_every_pre_commit_hook_runs_a_command_of_make_lint_or_a_make_target() -> None:
    hooks = [hook for repo in load(ROOT / ".pre-commit-config.yaml")["repos"] for hook in repo["hooks"]]
    dry_run = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "lint", "manifest-lint-all"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    ).stdout.splitlines()
    strays = [
        hook["id"]
        for hook in hooks
        if not any(line.startswith(_without_env(hook["entry"])) for line in dry_run)
        and not (hook["entry"].startswith("make ") and make_targets(hook["entry"]) <= defined_targets())
    ]
    assert {"ruff", "ruff-format", "mypy", "manifest-lint", "workflows-lint"} <= {
        hook["id"] for hook in hooks
    }
    assert not strays, f"these hooks run what make lint does not: {strays}"


class _CloudFormationLoader(yaml.SafeLoader):
    """Reads a CloudFormation template: each `!Tag value` becomes `{"Tag": value}`."""


def _tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        return {suffix: loader.construct_scalar(node)}
    if isinstance(node, yaml.SequenceNode):
        return {suffix: loader.construct_sequence(node, deep=True)}
    return {suffix: loader.construct_mapping(node, deep=True)}


_CloudFormationLoader.add_multi_constructor("!", _tagged)
OIDC = yaml.load((ROOT / "deploy" / "github-oidc.yaml").read_text(encoding="utf-8"), _CloudFormationLoader)
DEPLOY_JOBS = load(ROOT / ".github" / "workflows" / "deploy-business.yml")["jobs"]


def test_the_roles_cover_the_stacks_the_workflow_and_make_deploy_name() -> None:
    prefix = OIDC["Parameters"]["StackPrefix"]["Default"]
    make_stack = re.search(r"^STACK \?= (\S+)$", (ROOT / "mk" / "deploy.mk").read_text(), re.M)
    assert make_stack and make_stack[1] == f"{prefix}$(BUSINESS)"
    for job in ("staging", "production"):
        assert DEPLOY_JOBS[job]["env"]["STACK"].startswith(prefix), job


def test_the_deploy_role_trusts_exactly_the_workflows_environments() -> None:
    parameters = OIDC["Parameters"]
    trusted = {parameters[f"{name}Environment"]["Default"] for name in ("Staging", "Production")}
    assert trusted == {DEPLOY_JOBS[job]["environment"] for job in ("staging", "production")}
    trust = OIDC["Resources"]["DeployRole"]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    equals = trust[0]["Condition"]["StringEquals"]
    assert len(trust) == 1 and equals["token.actions.githubusercontent.com:aud"] == "sts.amazonaws.com"
    subjects = equals["token.actions.githubusercontent.com:sub"]
    assert all("repo:${GitHubOrg}/${RepositoryName}:" in json.dumps(subject) for subject in subjects)


def test_every_variable_and_secret_the_workflows_read_is_documented() -> None:
    page = (ROOT / "docs" / "pipeline.md").read_text(encoding="utf-8")
    text = "\n".join(path.read_text(encoding="utf-8") for path in WORKFLOWS)
    names = set(re.findall(r"\$\{\{\s*(?:vars|secrets)\.(\w+)", text)) - {"GITHUB_TOKEN"}
    assert {"AWS_DEPLOY_ROLE_ARN", "AWS_REGION"} <= names
    assert [name for name in sorted(names) if f"`{name}`" not in page] == []


def test_a_failed_production_smoke_rolls_the_alias_back_and_staging_does_not() -> None:
    steps = DEPLOY_JOBS["production"]["steps"]
    ids = [step.get("id") for step in steps]
    smoke, rollback = steps[ids.index("smoke")], steps[-1]
    assert make_targets(smoke["run"]) == {"smoke"} and ids.index("smoke") == len(steps) - 2
    assert rollback["if"] == "failure() && steps.smoke.conclusion == 'failure'"
    assert make_targets(rollback["run"]) == {"rollback"} and 'STACK="$STACK"' in rollback["run"]
    assert "steps.deploy.outputs.started" in rollback["env"]["DEPLOY_STARTED"]
    assert not any(
        "rollback" in make_targets(step.get("run", "")) for step in DEPLOY_JOBS["staging"]["steps"]
    )


def test_the_deploy_role_may_make_the_calls_of_the_rollback() -> None:
    statements = OIDC["Resources"]["DeployRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    granted = {
        action: json.dumps(statement["Resource"])
        for statement in statements
        for action in statement["Action"]
        if isinstance(statement["Action"], list)
    }
    for action in ("lambda:GetAlias", "lambda:ListVersionsByFunction", "lambda:UpdateAlias"):
        assert action in granted and ":function:${StackPrefix}*" in granted[action], action
    assert "cloudformation:DescribeStackResource" in granted
