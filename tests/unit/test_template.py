"""template.yaml states what we promise about the deployed stack: routes, runtime, table, least privilege."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from scripts.services import SESSIONS_PARTITION_KEY, SESSIONS_TTL_ATTRIBUTE

from mcp_lambda.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SESSION_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
SECRET_REF = {"Fn::If": ["CreateSecret", {"Ref": "BusinessSecret"}, {"Ref": "ExistingSecretArn"}]}


class CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that reads the short intrinsic tags (!Ref, !GetAtt, !Sub ...) as their long JSON forms."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


CloudFormationLoader.add_multi_constructor("!", _intrinsic)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=CloudFormationLoader)


@pytest.fixture(scope="module")
def function(template: dict[str, Any]) -> dict[str, Any]:
    functions = [r for r in template["Resources"].values() if r["Type"] == "AWS::Serverless::Function"]
    assert len(functions) == 1, "one function per stack"
    return functions[0]["Properties"]


def _walk(node: Any) -> Any:
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from _walk(child)


def test_template_is_a_sam_template(template: dict[str, Any]) -> None:
    assert template["Transform"] == "AWS::Serverless-2016-10-31"


def test_the_lambda_package_holds_no_dev_only_code(function: dict[str, Any]) -> None:
    package = ROOT / function["CodeUri"]
    files = [path.relative_to(package) for path in package.rglob("*.py") if "__pycache__" not in path.parts]
    dev_only = [
        path
        for path in files
        if path.name == "projection.py"
        or "local" in path.parts
        or path.parts[:2] == ("businesses", "conformance")
    ]

    assert files and not dev_only, f"dev-only code under CodeUri: {dev_only}"
    assert not (package / "mcp_lambda_dev").exists()
    importing_dev = re.compile(r"^\s*(from|import) mcp_lambda_dev\b", re.MULTILINE)
    assert not [path for path in files if importing_dev.search((package / path).read_text())]
    # ...and it still exists beside the package, for make run, the simulator and the tests.
    assert (ROOT / "dev" / "businesses" / "conformance" / "__init__.py").is_file()


def test_the_simulator_page_is_never_deployed(template: dict[str, Any], function: dict[str, Any]) -> None:
    package = ROOT / function["CodeUri"]
    shipped = [
        path.relative_to(package)
        for path in package.rglob("*")
        if path.suffix in {".html", ".js", ".css"} or "simulator" in path.parts
    ]
    paths = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]["paths"]

    assert not shipped, f"simulator files under CodeUri: {shipped}"
    assert "_sim" not in (ROOT / "template.yaml").read_text()
    assert set(paths) == {"/mcp"}, "no route for the page or its /_sim/ routes"
    # ...and it exists beside the package, for make run.
    assert (ROOT / "dev" / "mcp_lambda_dev" / "simulator" / "static" / "index.html").is_file()


def test_function_runs_the_handler_on_python_3_13_arm64(function: dict[str, Any]) -> None:
    assert function["Runtime"] == "python3.13"
    assert function["Architectures"] == ["arm64"]
    assert function["CodeUri"] == "src/"
    assert function["Handler"] == "mcp_lambda.handler.handler"
    assert "def handler(" in (ROOT / "src" / "mcp_lambda" / "handler.py").read_text()
    assert function["Timeout"] < 30, "HTTP API integrations time out at 30 s"


def test_mcp_routes_are_post_get_delete_on_the_http_api(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    routes = {(e["Properties"]["Method"], e["Properties"]["Path"]) for e in function["Events"].values()}
    api_ids = {json.dumps(e["Properties"]["ApiId"]) for e in function["Events"].values()}
    body = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]

    assert routes == {("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")}
    assert {e["Type"] for e in function["Events"].values()} == {"HttpApi"}
    assert api_ids == {json.dumps({"Ref": "McpApi"})}
    assert template["Resources"]["McpApi"]["Type"] == "AWS::Serverless::HttpApi"
    assert set(body["paths"]) == {"/mcp"}
    assert set(body["paths"]["/mcp"]) == {"post", "get", "delete"}


def test_jwt_authorizer_guards_every_route_only_when_an_issuer_is_given(template: dict[str, Any]) -> None:
    body = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]
    schemes = body["components"]["securitySchemes"]["Fn::If"]
    authorizer = schemes[1]["McpJwt"]["x-amazon-apigateway-authorizer"]

    assert template["Conditions"]["UseJwt"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    for method in body["paths"]["/mcp"].values():
        assert method["security"] == {"Fn::If": ["UseJwt", [{"McpJwt": []}], []]}
    assert schemes[0] == "UseJwt" and schemes[2] == {"Ref": "AWS::NoValue"}
    assert authorizer["type"] == "jwt"
    assert authorizer["identitySource"] == "$request.header.Authorization"
    assert authorizer["jwtConfiguration"] == {
        "issuer": {"Ref": "JwtIssuer"},
        "audience": {"Ref": "JwtAudience"},
    }


def test_api_throttles_every_route_and_logs_access(template: dict[str, Any]) -> None:
    api = template["Resources"]["McpApi"]["Properties"]

    assert set(api["DefaultRouteSettings"]) == {"ThrottlingBurstLimit", "ThrottlingRateLimit"}
    assert api["AccessLogSettings"]["DestinationArn"] == {"Fn::GetAtt": ["AccessLogGroup", "Arn"]}
    assert template["Resources"]["AccessLogGroup"]["Properties"]["RetentionInDays"]


def test_sessions_table_matches_the_store_and_is_protected(template: dict[str, Any]) -> None:
    table = template["Resources"]["SessionsTable"]["Properties"]

    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["KeySchema"] == [{"AttributeName": SESSIONS_PARTITION_KEY, "KeyType": "HASH"}]
    assert table["AttributeDefinitions"] == [{"AttributeName": SESSIONS_PARTITION_KEY, "AttributeType": "S"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": SESSIONS_TTL_ATTRIBUTE, "Enabled": True}
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["SSESpecification"] == {"SSEEnabled": True}


def test_policies_grant_only_the_session_calls_and_the_one_secret(function: dict[str, Any]) -> None:
    assert len(function["Policies"]) == 1, "no SAM policy templates or managed policies beyond the inline one"
    statements = function["Policies"][0]["Statement"]
    by_resource = {json.dumps(s["Resource"], sort_keys=True): s for s in statements}
    table = by_resource[json.dumps({"Fn::GetAtt": ["SessionsTable", "Arn"]}, sort_keys=True)]
    secret = by_resource[json.dumps(SECRET_REF, sort_keys=True)]

    assert len(statements) == 2
    assert all(s["Effect"] == "Allow" for s in statements)
    assert set(table["Action"]) == SESSION_ACTIONS
    assert secret["Action"] == "secretsmanager:GetSecretValue"
    assert not any("*" in json.dumps(s) for s in statements)


def test_environment_names_the_business_table_and_secret(function: dict[str, Any]) -> None:
    env = function["Environment"]["Variables"]

    assert env["BUSINESS"] == env["POWERTOOLS_SERVICE_NAME"] == {"Ref": "BusinessName"}
    assert env["SESSION_STORE"] == "dynamodb"
    assert env["SESSIONS_TABLE"] == {"Ref": "SessionsTable"}
    assert env["SECRET_ID"] == SECRET_REF
    assert env["MANIFEST_DIR"] == "/var/task/manifest"
    assert env["AWS_ENDPOINT_URL_DYNAMODB"] == env["AWS_ENDPOINT_URL_SECRETSMANAGER"] == ""


def test_environment_is_a_valid_runtime_configuration(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    parameters = template["Parameters"]

    def resolve(value: Any) -> str:
        if isinstance(value, str):
            return value
        if "Ref" in value and value["Ref"] in parameters:
            return str(parameters[value["Ref"]].get("Default", "demo"))
        if "Fn::If" in value:
            return resolve(value["Fn::If"][1])
        return "resource-id"

    env = {name: resolve(value) for name, value in function["Environment"]["Variables"].items()}

    settings = Settings.from_env(env)

    assert settings.session_store == "dynamodb"
    assert settings.business == "demo"


def test_no_secret_value_is_in_the_template(template: dict[str, Any]) -> None:
    secret = template["Resources"]["BusinessSecret"]["Properties"]
    keys = {key for node in _walk(template) if isinstance(node, dict) for key in node}

    assert "SecretString" not in secret and "GenerateSecretString" not in secret
    assert not keys & {"SecretString", "SecretBinary", "NoEcho"}
    assert "{{resolve:" not in (ROOT / "template.yaml").read_text()


def test_outputs_give_the_mcp_url_and_a_client_config(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    branches = outputs["ClientConfig"]["Value"]["Fn::If"][1:]

    assert outputs["McpUrl"]["Value"]["Fn::Sub"].endswith("/mcp")
    for branch in branches:
        config = json.loads(re.sub(r"\$\{[^}]+\}", "x", branch["Fn::Sub"]))
        (server,) = config["mcpServers"].values()
        assert server["url"].endswith("/mcp")


def test_env_json_only_overrides_variables_the_template_declares(function: dict[str, Any]) -> None:
    env_json = json.loads((ROOT / "env.json").read_text())

    # sam local silently ignores a variable the template does not declare.
    assert set(env_json) == {"McpFunction"}
    assert set(env_json["McpFunction"]) <= set(function["Environment"]["Variables"])


def test_lambda_requirements_cover_the_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = (ROOT / "src" / "requirements.txt").read_text().splitlines()
    bundled = {
        re.split(r"[\[=<>~ ]", line, maxsplit=1)[0].lower() for line in lines if line and line[0] != "#"
    }
    declared = {re.split(r"[\[=<>~ ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]}

    assert declared <= bundled


def test_cors_preflight_is_answered_only_for_the_allowed_origins(template: dict[str, Any]) -> None:
    api = template["Resources"]["McpApi"]["Properties"]
    condition, cors, otherwise = api["CorsConfiguration"]["Fn::If"]
    assert condition == "HasBrowserOrigins"
    assert template["Conditions"]["HasBrowserOrigins"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "AllowedOrigins"}, ""]}]
    }
    assert cors["AllowOrigins"] == {"Fn::Split": [",", {"Ref": "AllowedOrigins"}]}
    assert set(cors["AllowMethods"]) == {"POST", "GET", "DELETE"}
    assert "mcp-session-id" in cors["ExposeHeaders"]
    assert otherwise == {"Ref": "AWS::NoValue"}
