"""A business's stack: template.yaml names no business; each business's stack.yaml is merged into it, and a
fragment that redefines anything of the framework's is refused with one line per clash."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.cloudformation import CloudFormationLoader as LongFormLoader
from tests.support.cloudformation import load_template

from mcp_lambda_tools.deploy.stack_compose import (
    DEFAULT_BUDGET_MB,
    CloudFormationLoader,
    ComposeError,
    budget_mb,
    business_template,
    compose,
    dump,
    load,
    main,
    with_fragments,
)

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
FRAGMENT = """
Parameters:
  ClinicInsuranceUrl: {Type: String, Default: ""}
Conditions:
  ClinicHasInsurance: !Not [!Equals [!Ref ClinicInsuranceUrl, ""]]
Resources:
  ClinicBookingsTable:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      KeySchema: [{AttributeName: slot_id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: slot_id, AttributeType: S}]
Outputs:
  ClinicBookingsTableName:
    Value: !Ref ClinicBookingsTable
Function:
  Environment:
    CLINIC_BOOKINGS_TABLE: !Ref ClinicBookingsTable
    CLINIC_INSURANCE_URL: !Ref ClinicInsuranceUrl
  Policies:
    - Sid: ClinicBookingsTable
      Effect: Allow
      Action: [dynamodb:GetItem, dynamodb:PutItem]
      Resource: !GetAtt ClinicBookingsTable.Arn
Package:
  BudgetMb: 3
"""


def _long_form(template: dict[str, Any]) -> dict[str, Any]:
    """The template with its intrinsics in long form, as the template tests read template.yaml."""
    loaded: dict[str, Any] = yaml.load(dump(template), Loader=LongFormLoader)
    return loaded


def _function(template: dict[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = template["Resources"]["McpFunction"]["Properties"]
    return properties


@pytest.fixture
def framework() -> dict[str, Any]:
    return load(ROOT / "template.yaml")


@pytest.fixture
def clinic() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.load(FRAGMENT, Loader=CloudFormationLoader)
    return loaded


def test_the_framework_template_names_no_business() -> None:
    text = (ROOT / "template.yaml").read_text()
    for business in [*with_fragments(SRC), "demo"]:
        assert not re.search(business, text, re.IGNORECASE), f"template.yaml names {business}"


def test_a_dump_reads_back_as_the_template_it_was(framework: dict[str, Any]) -> None:
    assert _long_form(framework) == load_template(ROOT / "template.yaml")
    assert "!Sub" in dump(framework) and "!GetAtt" in dump(framework)


def test_the_fragment_adds_its_sections_variables_and_statements(
    framework: dict[str, Any], clinic: dict[str, Any]
) -> None:
    composed = _long_form(compose(framework, clinic))
    before = _long_form(framework)

    assert composed["Parameters"] == {
        **before["Parameters"],
        "ClinicInsuranceUrl": {"Type": "String", "Default": ""},
    }
    assert set(composed["Conditions"]) - set(before["Conditions"]) == {"ClinicHasInsurance"}
    assert set(composed["Resources"]) - set(before["Resources"]) == {"ClinicBookingsTable"}
    assert composed["Outputs"]["ClinicBookingsTableName"] == {"Value": {"Ref": "ClinicBookingsTable"}}
    variables = _function(composed)["Environment"]["Variables"]
    assert variables == {
        **_function(before)["Environment"]["Variables"],
        "CLINIC_BOOKINGS_TABLE": {"Ref": "ClinicBookingsTable"},
        "CLINIC_INSURANCE_URL": {"Ref": "ClinicInsuranceUrl"},
    }
    [policy] = _function(composed)["Policies"]
    assert policy["Statement"][:-1] == _function(before)["Policies"][0]["Statement"]
    assert policy["Statement"][-1]["Resource"] == {"Fn::GetAtt": ["ClinicBookingsTable", "Arn"]}
    assert "Package" not in composed and "Function" not in composed
    assert _long_form(framework) == before  # the framework's template is not changed


@pytest.mark.parametrize(
    ("section", "name", "message"),
    [
        ("Parameters", "AuthMode", "Parameters.AuthMode redefines the framework's AuthMode"),
        ("Parameters", "SessionsTable", "Parameters.SessionsTable redefines the framework's SessionsTable"),
        ("Resources", "TasksTable", "Resources.TasksTable redefines the framework's TasksTable"),
        ("Resources", "LogLevel", "Resources.LogLevel redefines the framework's LogLevel"),
        ("Conditions", "UseKmsKey", "Conditions.UseKmsKey redefines the framework's UseKmsKey"),
        ("Outputs", "McpUrl", "Outputs.McpUrl redefines the framework's McpUrl"),
    ],
)
def test_a_fragment_that_redefines_a_framework_name_is_refused(
    framework: dict[str, Any], clinic: dict[str, Any], section: str, name: str, message: str
) -> None:
    clinic[section][name] = {"Type": "String"} if section == "Parameters" else {"Value": "x"}
    with pytest.raises(ComposeError) as refused:
        compose(framework, clinic, "src/businesses/clinic/stack.yaml")
    assert str(refused.value) == (
        f"src/businesses/clinic/stack.yaml: {message}: give it a name of the business's own"
    )


@pytest.mark.parametrize("variable", ["SESSIONS_TABLE", "AUTH_MODE", "REQUEST_DEADLINE_MS", "BUSINESS"])
def test_a_fragment_that_redefines_a_framework_variable_or_setting_is_refused(
    framework: dict[str, Any], clinic: dict[str, Any], variable: str
) -> None:
    clinic["Function"]["Environment"][variable] = "x"
    with pytest.raises(
        ComposeError, match=f"Function.Environment.{variable} redefines the framework's variable"
    ):
        compose(framework, clinic)


def test_every_problem_of_a_fragment_is_one_line(framework: dict[str, Any], clinic: dict[str, Any]) -> None:
    clinic["Mappings"] = {}
    clinic["Function"]["Timeout"] = 3
    clinic["Function"]["Environment"]["AWS_REGION"] = "x"
    clinic["Function"]["Policies"].append({"Sid": "BusinessSecret", "Effect": "Allow"})
    clinic["Package"]["BudgetMb"] = "big"
    with pytest.raises(ComposeError) as refused:
        compose(framework, clinic, "stack.yaml")
    assert str(refused.value).splitlines() == [
        "stack.yaml: unknown section 'Mappings' (a fragment has Parameters, Conditions, Resources, Outputs, "
        "Function, Package)",
        "stack.yaml: unknown key 'Function.Timeout' (Function has Environment, Policies)",
        "stack.yaml: Function.Environment.AWS_REGION is reserved by Lambda",
        "stack.yaml: Function.Policies statement Sid 'BusinessSecret' redefines the framework's statement "
        "BusinessSecret",
        "stack.yaml: Package.BudgetMb must be a number of megabytes",
    ]


def test_every_business_in_the_repository_composes() -> None:
    assert "demo" in with_fragments(SRC)
    for business in with_fragments(SRC):
        composed = _long_form(business_template(business, SRC))
        assert set(load_template(ROOT / "template.yaml")["Resources"]) <= set(composed["Resources"])


def test_the_demos_inventory_url_is_its_own_parameter_and_variable() -> None:
    composed = _long_form(business_template("demo", SRC))
    assert composed["Parameters"]["DemoInventoryUrl"]["Default"] == ""
    assert _function(composed)["Environment"]["Variables"]["DEMO_INVENTORY_URL"] == {
        "Ref": "DemoInventoryUrl"
    }


def test_a_business_without_a_fragment_gets_the_framework_template(tmp_path: Path) -> None:
    (tmp_path / "businesses" / "plain").mkdir(parents=True)
    assert business_template("plain", tmp_path) == load(ROOT / "template.yaml")
    assert budget_mb("plain", tmp_path) == DEFAULT_BUDGET_MB


def test_the_business_budget_is_its_fragments(tmp_path: Path) -> None:
    (tmp_path / "businesses" / "clinic").mkdir(parents=True)
    (tmp_path / "businesses" / "clinic" / "stack.yaml").write_text(FRAGMENT)
    assert budget_mb("clinic", tmp_path) == 3.0


def test_make_lint_composes_every_business_and_names_a_refused_fragment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "src"
    for name, fragment in {
        "clinic": FRAGMENT,
        "broken": "Resources:\n  McpApi: {Type: AWS::SNS::Topic}\n",
    }.items():
        (source / "businesses" / name).mkdir(parents=True)
        (source / "businesses" / name / "stack.yaml").write_text(fragment)

    assert main(["--all", str(tmp_path / "out"), "--source", str(source)]) == 1
    assert sorted(path.name for path in (tmp_path / "out").iterdir()) == ["clinic.template.yaml"]
    assert capsys.readouterr().err.splitlines() == [
        "stack_compose: src/businesses/broken/stack.yaml: Resources.McpApi redefines the framework's McpApi: "
        "give it a name of the business's own"
    ]
