"""The smoke check names the secret keys a business declares that its deployed secret lacks: the stack's
BusinessName parameter and SecretArn output (CloudFormation) and the secret itself (Secrets Manager), on moto."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

import businesses
from mcp_lambda_dev.services import LocalService
from mcp_lambda_tools.deploy.smoke import Smoke
from mcp_lambda_tools.deploy.smoke_client import CheckFailed, Endpoint, Skipped

CLINIC = """
    from mcp_lambda.tools import Business, ToolAnnotations, ToolResult, execution_result, tool


    @tool(description="Use to say hello. Not for anything else.", annotations=ToolAnnotations(read_only=True))
    def hello() -> ToolResult:
        return execution_result({"hello": "clinic"})


    BUSINESS = Business(name="{name}", tools=[hello], secrets={secrets})
"""


def _business(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, secrets: str) -> str:
    package = tmp_path / "businesses" / name
    package.mkdir(parents=True)
    source = textwrap.dedent(CLINIC).replace("{name}", name).replace("{secrets}", secrets)
    (package / "__init__.py").write_text(source)
    monkeypatch.setattr(businesses, "__path__", [*businesses.__path__, str(package.parent)])
    return name


@pytest.fixture
def clinic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield _business(tmp_path, monkeypatch, "smoke_clinic", "['clinic_api_key', 'clinic_partner_key']")
    sys.modules.pop("businesses.smoke_clinic", None)


@pytest.fixture
def aws(moto_server: LocalService) -> dict[str, Any]:
    return {
        service: boto3.client(service, endpoint_url=moto_server.endpoint_url, region_name="us-east-1")
        for service in ("cloudformation", "secretsmanager")
    }


def _stack(aws: dict[str, Any], business: str, secret_arn: str) -> str:
    """A stack with the deployed template's BusinessName parameter and SecretArn output."""
    name = f"mcp-{uuid.uuid4().hex[:8]}"
    template = {
        "Parameters": {"BusinessName": {"Type": "String"}, "Secret": {"Type": "String"}},
        "Resources": {"Alarms": {"Type": "AWS::SNS::Topic"}},
        "Outputs": {"SecretArn": {"Value": {"Ref": "Secret"}}},
    }
    aws["cloudformation"].create_stack(
        StackName=name,
        TemplateBody=json.dumps(template),
        Parameters=[
            {"ParameterKey": "BusinessName", "ParameterValue": business},
            {"ParameterKey": "Secret", "ParameterValue": secret_arn},
        ],
    )
    return name


def _check(aws: dict[str, Any], stack: str | None) -> str:
    options = argparse.Namespace(stack=stack)
    return Smoke(Endpoint("http://127.0.0.1:9/mcp"), options, clients=aws).secret_keys()


def test_the_keys_missing_from_the_deployed_secret_are_named(aws: dict[str, Any], clinic: str) -> None:
    arn = aws["secretsmanager"].create_secret(
        Name=f"mcp/{uuid.uuid4().hex[:8]}", SecretString=json.dumps({"clinic_api_key": "k-1", "other": "x"})
    )["ARN"]
    stack = _stack(aws, clinic, arn)

    with pytest.raises(CheckFailed) as failed:
        _check(aws, stack)
    assert str(failed.value) == (
        f"missing from the deployed secret {arn}: clinic_partner_key (docs/deploy.md#set-the-secrets-value)"
    )
    assert "k-1" not in str(failed.value)

    aws["secretsmanager"].put_secret_value(
        SecretId=arn, SecretString=json.dumps({"clinic_api_key": "k-1", "clinic_partner_key": "p-2"})
    )
    assert _check(aws, stack) == f"clinic_api_key, clinic_partner_key: present in {arn}"


def test_a_secret_created_empty_lacks_every_declared_key(aws: dict[str, Any], clinic: str) -> None:
    arn = aws["secretsmanager"].create_secret(Name=f"mcp/{uuid.uuid4().hex[:8]}")["ARN"]
    with pytest.raises(CheckFailed, match="clinic_api_key, clinic_partner_key"):
        _check(aws, _stack(aws, clinic, arn))


def test_without_a_stack_or_declared_keys_the_check_is_skipped(
    aws: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(Skipped, match="needs STACK="):
        _check(aws, None)
    undeclared = _business(tmp_path, monkeypatch, "smoke_plain", "None")
    reads_none = _business(tmp_path, monkeypatch, "smoke_none", "[]")
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:x"
    try:
        with pytest.raises(Skipped, match="business smoke_plain declares no secret keys"):
            _check(aws, _stack(aws, undeclared, arn))
        assert _check(aws, _stack(aws, reads_none, arn)) == "business smoke_none reads no secret of its own"
    finally:
        sys.modules.pop("businesses.smoke_plain", None)
        sys.modules.pop("businesses.smoke_none", None)
