"""dev/mcp_lambda_tools/deploy/rollback_alias.py against moto server's Lambda, IAM and CloudFormation: a function with published
versions and an alias, moved back one version, to a chosen one, or not at all (nothing earlier, an unknown
function); and `--stack`, resolved through a moto stack holding `McpFunction`; and `make rollback` itself."""

from __future__ import annotations

import datetime
import io
import json
import os
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest

from mcp_lambda_dev.services import LocalService
from mcp_lambda_tools.deploy import rollback_alias

ROOT = Path(__file__).resolve().parents[2]
TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}


def handler_zip(body: str) -> bytes:
    """A deployment package holding one trivial handler; `body` makes each version's code differ."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handler.py", f"def handler(event, context):\n    return {body!r}\n")
    return buffer.getvalue()


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, moto_server: LocalService) -> str:
    """Every boto3 client of this process (and of the subprocesses it starts) talks to moto server."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server.endpoint_url)
    return moto_server.endpoint_url


@pytest.fixture
def role_arn(aws: str) -> str:
    name = f"rollback-{uuid.uuid4().hex[:8]}"
    return str(
        boto3.client("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"][
            "Arn"
        ]
    )


def published_function(role_arn: str, versions: int, alias_on: int) -> str:
    """A function with `versions` published versions and the alias `live` on version `alias_on`."""
    client = boto3.client("lambda")
    name = f"mcp-rollback-{uuid.uuid4().hex[:8]}-mcp"
    client.create_function(
        FunctionName=name,
        Runtime="python3.13",
        Role=role_arn,
        Handler="handler.handler",
        Code={"ZipFile": handler_zip("v1")},
    )
    client.publish_version(FunctionName=name)
    for number in range(2, versions + 1):
        client.update_function_code(FunctionName=name, ZipFile=handler_zip(f"v{number}"))
        client.publish_version(FunctionName=name)
    client.create_alias(FunctionName=name, Name="live", FunctionVersion=str(alias_on))
    return name


def alias_version(name: str) -> str:
    return str(boto3.client("lambda").get_alias(FunctionName=name, Name="live")["FunctionVersion"])


def test_a_rollback_moves_live_from_the_newest_version_to_the_one_before(
    role_arn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = published_function(role_arn, versions=3, alias_on=3)

    assert rollback_alias.main(["--function", name]) == 0

    assert alias_version(name) == "2"
    assert capsys.readouterr().out.strip() == f"ROLLED BACK  {name}:live from version 3 to version 2"
    assert rollback_alias.main(["--function", name]) == 0  # and once more: the one before that
    assert alias_version(name) == "1"


def test_to_names_the_version_and_an_unpublished_one_is_refused(
    role_arn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = published_function(role_arn, versions=3, alias_on=3)

    assert rollback_alias.main(["--function", name, "--to", "1"]) == 0
    assert alias_version(name) == "1"
    assert "from version 3 to version 1" in capsys.readouterr().out

    assert rollback_alias.main(["--function", name, "--to", "7"]) == 2
    assert "version 7 is not published (published: 1, 2, 3)" in capsys.readouterr().err
    assert alias_version(name) == "1"


def test_the_first_version_has_nothing_to_roll_back_to(
    role_arn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = published_function(role_arn, versions=3, alias_on=1)

    assert rollback_alias.main(["--function", name]) == 2

    assert (
        "no published version below 1: the first deploy has nothing to roll back to"
        in capsys.readouterr().err
    )
    assert alias_version(name) == "1"


def test_a_version_older_than_the_failed_deploy_is_left_alone(
    role_arn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    name = published_function(role_arn, versions=2, alias_on=2)
    later = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=5)).isoformat()
    earlier = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=5)).isoformat()

    assert rollback_alias.main(["--function", name, "--published-after", later]) == 2
    assert "this deploy published no version" in capsys.readouterr().err
    assert alias_version(name) == "2"

    assert rollback_alias.main(["--function", name, "--published-after", earlier]) == 0
    assert alias_version(name) == "1"


def test_an_unknown_function_exits_1_with_the_error_and_no_traceback(aws: str) -> None:
    done = subprocess.run(
        [sys.executable, "dev/mcp_lambda_tools/deploy/rollback_alias.py", "--function", "mcp-nosuch-mcp"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("rollback: get_alias mcp-nosuch-mcp:live: ")
    assert "ResourceNotFoundException" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert os.environ["AWS_SECRET_ACCESS_KEY"] not in done.stderr


def _stack_holding(function: str, role_arn: str) -> str:
    """A moto stack whose resource `McpFunction` is a function named `function`."""
    stack = f"mcp-rollback-{uuid.uuid4().hex[:8]}"
    template: dict[str, Any] = {
        "Resources": {
            rollback_alias.FUNCTION_LOGICAL_ID: {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "FunctionName": function,
                    "Runtime": "python3.13",
                    "Handler": "handler.handler",
                    "Role": role_arn,
                    "Code": {"ZipFile": "def handler(event, context):\n    return 'v1'\n"},
                },
            }
        }
    }
    boto3.client("cloudformation").create_stack(StackName=stack, TemplateBody=json.dumps(template))
    return stack


def test_make_rollback_with_a_stack_moves_the_alias_of_its_mcp_function(role_arn: str) -> None:
    function = f"mcp-rollback-{uuid.uuid4().hex[:8]}-mcp"
    stack = _stack_holding(function, role_arn)
    client = boto3.client("lambda")
    for number in (1, 2):
        client.update_function_code(FunctionName=function, ZipFile=handler_zip(f"v{number}"))
        client.publish_version(FunctionName=function)
    client.create_alias(FunctionName=function, Name="live", FunctionVersion="2")

    done = subprocess.run(
        ["make", "--no-print-directory", "rollback", f"STACK={stack}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"ROLLED BACK  {function}:live from version 2 to version 1")
    assert alias_version(function) == "1"


def test_an_unknown_stack_exits_1_naming_the_lookup(aws: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert rollback_alias.main(["--stack", "mcp-nosuch"]) == 1

    assert capsys.readouterr().err.startswith("rollback: describe_stack_resource mcp-nosuch McpFunction: ")
