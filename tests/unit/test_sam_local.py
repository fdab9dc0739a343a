"""make sam-local's parts that need no Docker: the env-vars file, the stand-in image's name, the refusal to guess a
daemon, and the template `sam local start-api` reads (the same deployed API in every auth mode)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from scripts import sam_local, sam_local_docker
from tests.support.cloudformation import load_template, walk

ROOT = Path(__file__).resolve().parents[2]
SAM_PYTHON = ROOT / ".venv-sam" / "bin" / "python"


def test_env_vars_keep_env_json_and_move_each_endpoint_to_its_services_port() -> None:
    documented = json.loads((ROOT / "env.json").read_text())["McpFunction"]

    variables = sam_local.local_env_vars(ROOT / "env.json", {8000: 41001, 5000: 41002})["McpFunction"]

    assert variables["AWS_ENDPOINT_URL_DYNAMODB"] == "http://host.docker.internal:41001"
    assert variables["AWS_ENDPOINT_URL_SECRETS_MANAGER"] == "http://host.docker.internal:41002"
    unchanged = {name for name in documented if not name.startswith("AWS_ENDPOINT_URL_")}
    assert {name: variables[name] for name in unchanged} == {name: documented[name] for name in unchanged}


def test_the_stand_in_is_rebuilt_when_its_recipe_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    tag = sam_local_docker.standin_tag("x86_64")
    assert tag == sam_local_docker.standin_tag("x86_64")
    assert tag != sam_local_docker.standin_tag("arm64")

    monkeypatch.setattr(sam_local_docker, "AWSLAMBDARIC", "awslambdaric==0.0.1")

    assert sam_local_docker.standin_tag("x86_64") != tag


@pytest.mark.parametrize(
    ("machine", "arch"), [("x86_64", "x86_64"), ("AMD64", "x86_64"), ("aarch64", "arm64")]
)
def test_the_host_architecture_is_named_as_lambda_names_it(
    monkeypatch: pytest.MonkeyPatch, machine: str, arch: str
) -> None:
    monkeypatch.setattr(sam_local_docker.platform, "machine", lambda: machine)

    assert sam_local_docker.host_arch() == arch


def test_without_a_daemon_off_debian_as_root_it_says_what_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sam_local_docker, "daemon_answers", lambda: False)
    monkeypatch.setattr(sam_local_docker, "debian_root", lambda: False)

    with pytest.raises(sam_local_docker.DockerUnavailable, match=r"no Docker daemon answers.*Docker Desktop"):
        sam_local_docker.ensure_daemon(tmp_path / "dockerd.log")

    assert not (tmp_path / "dockerd.log").exists(), "no daemon may be started off Debian-as-root"


def _operations(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for path_item in body["paths"].values():
        branches = path_item["Fn::If"][1:] if "Fn::If" in path_item else [path_item]
        found += [operation for branch in branches for operation in branch.values()]
    return found


def test_no_intrinsic_sits_inside_security_or_security_schemes() -> None:
    # sam local start-api's OpenAPI parser resolves an Fn::If there to None and crashes (issue 39).
    body = load_template(ROOT / "template.yaml")["Resources"]["McpApi"]["Properties"]["DefinitionBody"]
    components = body["components"]["Fn::If"][1:]

    security = [operation["security"] for operation in _operations(body)]
    schemes = [branch["securitySchemes"] for branch in components if branch]

    assert len(security) == 14 and len(schemes) == 1
    intrinsics = [node for node in walk([security, schemes]) if isinstance(node, dict) and "Fn::If" in node]
    assert intrinsics == []


@pytest.mark.skipif(
    not SAM_PYTHON.exists(), reason="needs .venv-sam (SAM's translator): make validate installs it"
)
def test_each_auth_mode_deploys_its_security_and_nothing_else() -> None:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {
        "AWS_DEFAULT_REGION": "us-east-1"
    }
    done = subprocess.run(
        [str(SAM_PYTHON), str(ROOT / "scripts" / "template_modes.py"), str(ROOT / "template.yaml")],
        capture_output=True,
        text=True,
        check=True,
        env=environment,
        cwd=ROOT,
    )
    bodies = json.loads(done.stdout)

    guarded = {"no issuer (none)": False, "AuthMode=none": False, "AuthMode=jwt": False}
    guarded |= {"AuthMode=apigateway": True, "issuer, AuthMode empty (apigateway)": True}
    assert set(bodies) == set(guarded)
    for mode, with_authorizer in guarded.items():
        body = bodies[mode]
        for path in ("/mcp", "/mcp/{proxy+}"):
            for method in ("post", "get", "delete"):
                operation = body["paths"][path][method]
                assert operation["security"] == ([{"McpJwt": []}] if with_authorizer else []), (mode, path)
                assert operation["x-amazon-apigateway-integration"]["type"] == "aws_proxy"
        assert ("securitySchemes" in body["components"]) is with_authorizer, mode
        if not with_authorizer:
            assert body["components"] == {}, mode


def test_template_modes_finds_a_changed_route(tmp_path: Path) -> None:
    if not SAM_PYTHON.exists():
        pytest.skip("needs .venv-sam (SAM's translator): make validate installs it")
    original = (ROOT / "template.yaml").read_text()
    changed = tmp_path / "template.yaml"
    changed.write_text(
        original.replace(
            "- post: {security: [], responses: {}}", "- post: {security: [{McpJwt: []}], responses: {}}", 1
        )
    )
    shutil.copy(ROOT / "template.yaml", tmp_path / "original.yaml")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {
        "AWS_DEFAULT_REGION": "us-east-1"
    }

    done = subprocess.run(
        [
            str(SAM_PYTHON),
            str(ROOT / "scripts" / "template_modes.py"),
            str(tmp_path / "original.yaml"),
            str(changed),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=environment,
    )

    assert done.returncode == 1
    assert "no issuer (none): 1 differences" in done.stdout
    assert 'paths./mcp.post.security: [] -> [{"McpJwt": []}]' in done.stdout
    assert "AuthMode=apigateway: identical" in done.stdout


def test_where_docker_cannot_run_it_skips_and_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_daemon(log_path: Path) -> sam_local_docker.DockerDaemon:
        raise sam_local_docker.DockerUnavailable("no Docker daemon answers `docker info`")

    monkeypatch.setattr(sam_local, "build_python_missing", lambda: None)
    monkeypatch.setattr(sam_local_docker, "ensure_daemon", no_daemon)

    status = sam_local.main(["--build-dir", str(tmp_path / "build"), "--log-dir", str(tmp_path / "logs")])

    assert status == sam_local.SKIPPED
    assert "sam-local: SKIPPED: no Docker daemon answers `docker info`" in capsys.readouterr().out
    assert not (tmp_path / "build").exists(), "nothing is built when Docker cannot run"


def test_without_python_3_13_it_skips_before_touching_docker(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sam_local.shutil, "which", lambda name: None)
    monkeypatch.setattr(sam_local_docker, "ensure_daemon", lambda log_path: pytest.fail("Docker was touched"))

    status = sam_local.main(["--build-dir", str(tmp_path / "build"), "--log-dir", str(tmp_path / "logs")])

    assert status == sam_local.SKIPPED
    assert "make build needs Python 3.13" in capsys.readouterr().out
