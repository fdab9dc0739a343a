"""template.yaml states what we promise about the deployed stack: routes, runtime, table, least privilege."""

from __future__ import annotations

import json
import re
import tomllib
from datetime import timedelta
from pathlib import Path
from typing import Any, get_args

import pytest
from tests.support.cloudformation import load_template, walk
from tests.support.cors import expected_preflight, expected_response_headers

from mcp_lambda.auth import METADATA_PATHS
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks.base import START_GRACE_SECONDS
from mcp_lambda_dev.services import (
    IDEMPOTENCY_PARTITION_KEY,
    IDEMPOTENCY_TTL_ATTRIBUTE,
    SESSIONS_PARTITION_KEY,
    SESSIONS_TTL_ATTRIBUTE,
    TASKS_PARTITION_KEY,
    TASKS_TTL_ATTRIBUTE,
)

ROOT = Path(__file__).resolve().parents[2]
SESSION_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}
# What Powertools' DynamoDB layer calls: a conditional PutItem to claim, UpdateItem to complete, DeleteItem
# when the call failed, GetItem only when a refused claim does not return the existing item.
IDEMPOTENCY_ACTIONS = SESSION_ACTIONS
METADATA_ROUTES = {
    ("GET", "/.well-known/oauth-protected-resource"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
}
# The task store reads consistently and writes whole items (conditionally): nothing else.
TASK_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem"}
SECRET_REF = {"Fn::If": ["CreateSecret", {"Ref": "BusinessSecret"}, {"Ref": "ExistingSecretArn"}]}
# The circuit breaker reads a circuit, writes it whole when it changes, and counts quota windows atomically.
PROTECTION_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
# Every table: the AWS-managed key, or the customer-managed KmsKeyArn when it is given.
TABLE_SSE = {
    "SSEEnabled": True,
    "SSEType": {"Fn::If": ["UseKmsKey", "KMS", {"Ref": "AWS::NoValue"}]},
    "KMSMasterKeyId": {"Fn::If": ["UseKmsKey", {"Ref": "KmsKeyArn"}, {"Ref": "AWS::NoValue"}]},
}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template()


@pytest.fixture(scope="module")
def function(template: dict[str, Any]) -> dict[str, Any]:
    functions = [r for r in template["Resources"].values() if r["Type"] == "AWS::Serverless::Function"]
    assert len(functions) == 1, "one function per stack"
    return functions[0]["Properties"]


def test_template_is_a_sam_template(template: dict[str, Any]) -> None:
    assert template["Transform"] == "AWS::Serverless-2016-10-31"


def _in_a_business(path: Path) -> bool:
    """A business's own file (businesses/<name>/...): its module names and assets are its own affair."""
    return path.parts[0] == "businesses" and len(path.parts) > 2


def dev_only_files(package: Path) -> list[Path]:
    """The framework's dev-only modules (the local server, the projection) and the conformance fixture business,
    under the Lambda package; a business's own `local/` or `projection.py` ships."""
    files = [path.relative_to(package) for path in package.rglob("*.py") if "__pycache__" not in path.parts]
    return [
        path
        for path in files
        if path.parts[:2] == ("businesses", "conformance")
        or (not _in_a_business(path) and (path.name == "projection.py" or "local" in path.parts))
    ]


# The MCP Apps generic card view ships with the framework (docs/cards.md): web files that are not the simulator's.
CARD_VIEW = Path("mcp_lambda/apps/generic")


def simulator_files(package: Path) -> list[Path]:
    """The simulator's page and its assets under the Lambda package; a business's own HTML or JS ships, and so does
    the framework's generic card view."""
    return [
        path.relative_to(package)
        for path in package.rglob("*")
        if not _in_a_business(path.relative_to(package))
        and CARD_VIEW not in path.relative_to(package).parents
        and (path.suffix in {".html", ".js", ".css"} or "simulator" in path.relative_to(package).parts)
    ]


def test_the_package_checks_ignore_a_business_own_modules_and_assets(tmp_path: Path) -> None:
    files = [
        "businesses/reading/local/cache.py",
        "businesses/reading/projection.py",
        "businesses/reading/simulator/__init__.py",
        "businesses/reading/ui/list.html",
        "mcp_lambda/app.py",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert dev_only_files(tmp_path) == [] and simulator_files(tmp_path) == []
    (tmp_path / "mcp_lambda" / "local").mkdir()
    (tmp_path / "mcp_lambda" / "local" / "server.py").write_text("")
    (tmp_path / "mcp_lambda" / "page.html").write_text("")
    assert dev_only_files(tmp_path) == [Path("mcp_lambda/local/server.py")]
    assert simulator_files(tmp_path) == [Path("mcp_lambda/page.html")]


def test_the_lambda_package_holds_no_dev_only_code(function: dict[str, Any]) -> None:
    package = ROOT / function["CodeUri"]
    files = [path.relative_to(package) for path in package.rglob("*.py") if "__pycache__" not in path.parts]
    dev_only = dev_only_files(package)

    assert files and not dev_only, f"dev-only code under CodeUri: {dev_only}"
    assert not (package / "mcp_lambda_dev").exists()
    importing_dev = re.compile(r"^\s*(from|import) mcp_lambda_dev\b", re.MULTILINE)
    assert not [path for path in files if importing_dev.search((package / path).read_text())]
    # ...and it still exists beside the package, for make run, the simulator and the tests.
    assert (ROOT / "dev" / "businesses" / "conformance" / "__init__.py").is_file()


def test_the_simulator_page_is_never_deployed(template: dict[str, Any], function: dict[str, Any]) -> None:
    shipped = simulator_files(ROOT / function["CodeUri"])
    paths = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]["paths"]

    assert not shipped, f"simulator files under CodeUri: {shipped}"
    assert "_sim" not in (ROOT / "template.yaml").read_text()
    routed = {"/mcp", "/mcp/{proxy+}", *METADATA_PATHS}
    assert set(paths) == routed, "no route for the page or its /_sim/ routes"
    # ...and it exists beside the package, for make run.
    assert (ROOT / "dev" / "mcp_lambda_dev" / "simulator" / "static" / "index.html").is_file()


def test_function_runs_the_handler_on_python_3_13_arm64(function: dict[str, Any]) -> None:
    assert function["Runtime"] == "python3.13"
    assert function["Architectures"] == ["arm64"]
    assert function["CodeUri"] == "src/"
    assert function["Handler"] == "mcp_lambda.handler.handler"
    assert "def handler(" in (ROOT / "src" / "mcp_lambda" / "handler.py").read_text()


def test_the_timeout_is_the_task_workers_and_the_app_knows_it(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    # HTTP requests are cut off by API Gateway at 30 s whatever the function's timeout; task workers get it all.
    parameter = template["Parameters"]["TaskWorkerTimeoutSeconds"]
    assert function["Timeout"] == {"Ref": "TaskWorkerTimeoutSeconds"}
    assert function["Environment"]["Variables"]["TASK_WORKER_TIMEOUT_SECONDS"] == {
        "Ref": "TaskWorkerTimeoutSeconds"
    }
    assert parameter["MaxValue"] == 900 and parameter["MinValue"] >= 30, "Lambda's limit is 15 minutes"
    ttl = template["Parameters"]["TaskTtlMs"]
    assert ttl["MinValue"] > parameter["MaxValue"] * 1000, "a task must outlive its worker"


def test_mcp_routes_are_post_get_delete_on_the_http_api(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    routes = {(e["Properties"]["Method"], e["Properties"]["Path"]) for e in function["Events"].values()}
    api_ids = {json.dumps(e["Properties"]["ApiId"]) for e in function["Events"].values()}
    body = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]

    # /mcp/{proxy+} carries the trailing-slash form /mcp/ (a route cannot end in "/"); the app serves it.
    paths = ("/mcp", "/mcp/{proxy+}")
    mcp_routes = {(method, path) for method in ("POST", "GET", "DELETE") for path in paths}
    assert routes == {*mcp_routes, *METADATA_ROUTES}
    assert {e["Type"] for e in function["Events"].values()} == {"HttpApi"}
    assert api_ids == {json.dumps({"Ref": "McpApi"})}
    assert template["Resources"]["McpApi"]["Type"] == "AWS::Serverless::HttpApi"
    assert set(body["paths"]) == {*paths, *(path for _, path in METADATA_ROUTES)}
    for path in paths:
        for path_item in body["paths"][path]["Fn::If"][1:]:  # one definition with the authorizer, one without
            assert set(path_item) == {"post", "get", "delete"}


def test_the_metadata_routes_are_never_behind_the_authorizer(template: dict[str, Any]) -> None:
    # RFC 9728 metadata is how a client learns where to sign in: it must answer without a token.
    paths = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]["paths"]
    for _, path in METADATA_ROUTES:
        assert paths[path] == {"get": {"security": [], "responses": {}}}
    assert {path for _, path in METADATA_ROUTES} == set(METADATA_PATHS)


def test_jwt_authorizer_guards_every_route_only_when_an_issuer_is_given(template: dict[str, Any]) -> None:
    body = template["Resources"]["McpApi"]["Properties"]["DefinitionBody"]
    components = body["components"]["Fn::If"]
    authorizer = components[1]["securitySchemes"]["McpJwt"]["x-amazon-apigateway-authorizer"]

    conditions = template["Conditions"]
    assert conditions["HasIssuer"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    assert conditions["UseJwt"] == {
        "Fn::And": [
            {"Fn::Condition": "HasIssuer"},
            {
                "Fn::Or": [
                    {"Fn::Not": [{"Fn::Condition": "AuthModeGiven"}]},
                    {"Fn::Equals": [{"Ref": "AuthMode"}, "apigateway"]},
                ]
            },
        ]
    }
    # Each guarded path is chosen whole (sam local start-api cannot read an Fn::If inside security or
    # securitySchemes): with the authorizer on every method, or on none.
    for path in ("/mcp", "/mcp/{proxy+}"):
        condition, guarded, open_ = body["paths"][path]["Fn::If"]
        assert condition == "UseJwt"
        assert [method["security"] for method in guarded.values()] == [[{"McpJwt": []}]] * 3
        assert [method["security"] for method in open_.values()] == [[]] * 3
    # Without the authorizer, components is the empty object CloudFormation made of it before.
    assert components[0] == "UseJwt" and components[2] == {}
    assert authorizer["type"] == "jwt"
    assert authorizer["identitySource"] == "$request.header.Authorization"
    assert authorizer["jwtConfiguration"] == {
        "issuer": {"Ref": "JwtIssuer"},
        "audience": {"Ref": "JwtAudience"},
    }


def test_the_auth_mode_defaults_to_todays_behaviour_and_reaches_the_function(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    env = function["Environment"]["Variables"]
    # AuthMode "" keeps a stack deployed before AuthMode existed as it was: the authorizer iff JwtIssuer is set.
    assert env["AUTH_MODE"] == {
        "Fn::If": ["AuthModeGiven", {"Ref": "AuthMode"}, {"Fn::If": ["HasIssuer", "apigateway", "none"]}]
    }
    assert env["AUTH_ISSUER"] == {"Ref": "JwtIssuer"}
    assert env["AUTH_AUDIENCE"] == {"Fn::Join": [",", {"Ref": "JwtAudience"}]}
    assert env["PUBLIC_URL"] == {"Ref": "PublicUrl"}
    assert env["AUTH_SCOPE_PREFIX"] == {"Ref": "AuthScopePrefix"}
    # ...and a stack that asks for a protecting mode without an issuer is refused at deploy, not at cold start.
    (rule,) = template["Rules"].values()
    assert rule["RuleCondition"] == {
        "Fn::Or": [
            {"Fn::Equals": [{"Ref": "AuthMode"}, "jwt"]},
            {"Fn::Equals": [{"Ref": "AuthMode"}, "apigateway"]},
        ]
    }
    assert rule["Assertions"][0]["Assert"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    for mode in ("none", "jwt", "apigateway"):
        settings = Settings.from_env({"AUTH_MODE": mode, "AUTH_ISSUER": "https://idp.example"})
        assert settings.auth_mode == mode


def test_the_principal_binding_is_a_parameter_with_the_settings_values_and_default(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    parameter = template["Parameters"]["PrincipalBinding"]
    setting = Settings.model_fields["principal_binding"]
    assert set(parameter["AllowedValues"]) == set(get_args(setting.annotation))
    assert parameter["Default"] == setting.default == "user"
    assert function["Environment"]["Variables"]["PRINCIPAL_BINDING"] == {"Ref": "PrincipalBinding"}


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
    assert table["SSESpecification"] == TABLE_SSE


def test_idempotency_table_matches_powertools_items_and_is_protected(template: dict[str, Any]) -> None:
    table = template["Resources"]["IdempotencyTable"]["Properties"]

    # Powertools' own defaults: the store passes them to DynamoDBPersistenceLayer by name.
    assert (IDEMPOTENCY_PARTITION_KEY, IDEMPOTENCY_TTL_ATTRIBUTE) == ("id", "expiration")
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["KeySchema"] == [{"AttributeName": IDEMPOTENCY_PARTITION_KEY, "KeyType": "HASH"}]
    assert table["AttributeDefinitions"] == [
        {"AttributeName": IDEMPOTENCY_PARTITION_KEY, "AttributeType": "S"}
    ]
    assert table["TimeToLiveSpecification"] == {"AttributeName": IDEMPOTENCY_TTL_ATTRIBUTE, "Enabled": True}
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["SSESpecification"] == TABLE_SSE


def test_policies_grant_only_the_table_calls_the_self_invoke_and_the_one_secret(
    function: dict[str, Any],
) -> None:
    assert len(function["Policies"]) == 1, "no SAM policy templates or managed policies beyond the inline one"
    conditional = [s for s in function["Policies"][0]["Statement"] if "Fn::If" in s]
    statements = [s for s in function["Policies"][0]["Statement"] if "Fn::If" not in s]
    by_resource = {json.dumps(s["Resource"], sort_keys=True): s for s in statements}
    table = by_resource[json.dumps({"Fn::GetAtt": ["SessionsTable", "Arn"]}, sort_keys=True)]
    idempotency = by_resource[json.dumps({"Fn::GetAtt": ["IdempotencyTable", "Arn"]}, sort_keys=True)]
    tasks = by_resource[json.dumps({"Fn::GetAtt": ["TasksTable", "Arn"]}, sort_keys=True)]
    protection = by_resource[json.dumps({"Fn::GetAtt": ["ProtectionTable", "Arn"]}, sort_keys=True)]
    (invoke,) = [s for s in statements if s["Action"] == "lambda:InvokeFunction"]
    secret = by_resource[json.dumps(SECRET_REF, sort_keys=True)]

    assert len(statements) == 6
    # ...and the customer-managed key's use, only when KmsKeyArn is given (test_template_operations.py).
    assert [s["Fn::If"][0] for s in conditional] == ["UseKmsKey"]
    assert all(s["Effect"] == "Allow" for s in statements)
    assert set(table["Action"]) == SESSION_ACTIONS
    assert set(idempotency["Action"]) == IDEMPOTENCY_ACTIONS
    assert set(tasks["Action"]) == TASK_ACTIONS
    assert set(protection["Action"]) == PROTECTION_ACTIONS
    assert secret["Action"] == "secretsmanager:GetSecretValue"
    assert not any("*" in json.dumps(s) for s in statements if s is not invoke)
    # The function may invoke exactly itself: the name it is given, not an ARN that would refer to itself; and
    # any version of itself (a worker runs the version that created its task: `name:<version>`), nothing else.
    name = function["FunctionName"]["Fn::Sub"]
    arns = [resource["Fn::Sub"] for resource in invoke["Resource"]]
    assert len(arns) == 2 and arns[0].endswith(":function:" + name) and arns[1] == arns[0] + ":*"


def test_the_function_never_refers_to_itself(template: dict[str, Any], function: dict[str, Any]) -> None:
    # A Ref/GetAtt of McpFunction inside its own properties is a circular dependency CloudFormation refuses.
    (logical_id,) = [k for k, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"]
    references = [
        node
        for node in walk(function)
        if isinstance(node, dict)
        and (node.get("Ref") == logical_id or (node.get("Fn::GetAtt") or [None])[0] == logical_id)
    ]
    assert not references
    assert function["FunctionName"] == {"Fn::Sub": "${AWS::StackName}-mcp"}


def test_task_workers_are_never_retried_and_their_failures_are_kept(function: dict[str, Any]) -> None:
    config = function["EventInvokeConfig"]

    assert config["MaximumRetryAttempts"] == 0, "a tool may not be idempotent: a failed worker is not rerun"
    # Not started within the store's grace: dropped (and the task reads failed once its deadline passes).
    assert config["MaximumEventAgeInSeconds"] == START_GRACE_SECONDS
    assert config["DestinationConfig"]["OnFailure"] == {
        "Type": "SQS",
        "Destination": {"Fn::GetAtt": ["TaskFailuresQueue", "Arn"]},
    }


def test_tasks_table_matches_the_store_and_is_protected(template: dict[str, Any]) -> None:
    table = template["Resources"]["TasksTable"]["Properties"]
    queue = template["Resources"]["TaskFailuresQueue"]["Properties"]

    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["KeySchema"] == [{"AttributeName": TASKS_PARTITION_KEY, "KeyType": "HASH"}]
    assert table["AttributeDefinitions"] == [{"AttributeName": TASKS_PARTITION_KEY, "AttributeType": "S"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": TASKS_TTL_ATTRIBUTE, "Enabled": True}
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["SSESpecification"] == TABLE_SSE
    assert queue["SqsManagedSseEnabled"] == {"Fn::If": ["UseKmsKey", {"Ref": "AWS::NoValue"}, True]}


def test_environment_names_the_business_table_and_secret(function: dict[str, Any]) -> None:
    env = function["Environment"]["Variables"]

    assert env["BUSINESS"] == env["POWERTOOLS_SERVICE_NAME"] == {"Ref": "BusinessName"}
    assert env["SESSION_STORE"] == "dynamodb"
    assert env["SESSIONS_TABLE"] == {"Ref": "SessionsTable"}
    assert env["IDEMPOTENCY_STORE"] == "dynamodb"
    assert env["IDEMPOTENCY_TABLE"] == {"Ref": "IdempotencyTable"}
    assert env["IDEMPOTENCY_TTL_SECONDS"] == {"Ref": "IdempotencyTtlSeconds"}
    assert env["TASKS_STORE"] == "dynamodb"
    assert env["TASKS_TABLE"] == {"Ref": "TasksTable"}
    assert env["TASK_TTL_MS"] == {"Ref": "TaskTtlMs"}
    assert env["SECRET_ID"] == SECRET_REF
    assert env["MANIFEST_DIR"] == "/var/task/manifest"
    assert env["AWS_ENDPOINT_URL_DYNAMODB"] == env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] == ""


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
    assert settings.tasks_store == "dynamodb"
    assert settings.business == "demo"
    assert settings.idempotency_store == "dynamodb" and settings.idempotency_ttl == timedelta(seconds=600)


def test_no_secret_value_is_in_the_template(template: dict[str, Any]) -> None:
    secret = template["Resources"]["BusinessSecret"]["Properties"]
    keys = {key for node in walk(template) if isinstance(node, dict) for key in node}

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


def _requirement_names(path: Path) -> set[str]:
    lines = path.read_text().splitlines()
    return {re.split(r"[\[=<>~ ]", line, maxsplit=1)[0].lower() for line in lines if line and line[0] != "#"}


def test_lambda_requirements_cover_the_runtime_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bundled = _requirement_names(ROOT / "src" / "requirements.txt")
    jwt_only = _requirement_names(
        ROOT / "mk" / "requirements-jwt.txt"
    )  # make build adds them for AuthMode=jwt
    declared = {re.split(r"[\[=<>~ ]", dep, maxsplit=1)[0].lower() for dep in project["dependencies"]}

    # PyYAML reads manifests at build time only (make build compiles them to JSON): it never ships.
    assert declared <= bundled | jwt_only | {"pyyaml"}
    assert "pyyaml" not in bundled and not bundled & jwt_only
    assert {"pyjwt", "cryptography"} <= jwt_only
    build = (ROOT / "mk" / "deploy.mk").read_text()
    assert "scripts/manifest_compile.py $(BUILD_DIR)/McpFunction/manifest" in build
    assert "scripts/package_deps.py" in build and "package_size.py" in build
    assert "mk/requirements-jwt.txt" in (ROOT / "scripts" / "package_deps.py").read_text()


def test_snapstart_is_one_parameter_off_by_default_on_the_published_version_behind_the_alias(
    template: dict[str, Any], function: dict[str, Any]
) -> None:
    parameter = template["Parameters"]["SnapStart"]
    assert parameter["Default"] == "false" and parameter["AllowedValues"] == ["true", "false"]
    assert template["Conditions"]["UseSnapStart"] == {"Fn::Equals": [{"Ref": "SnapStart"}, "true"]}
    # SnapStart applies to published versions only: every deploy publishes one and moves the alias to it, and
    # SAM integrates the HTTP API's routes with the alias (never $LATEST).
    assert function["AutoPublishAlias"] == "live"
    assert function["SnapStart"] == {
        "Fn::If": ["UseSnapStart", {"ApplyOn": "PublishedVersions"}, {"Ref": "AWS::NoValue"}]
    }
    assert function["Runtime"] in {"python3.12", "python3.13"}  # SnapStart's Python runtimes start at 3.12
    handler = (ROOT / "src" / "mcp_lambda" / "handler.py").read_text()
    assert "snapshot.register(" in handler


def test_cors_preflight_is_answered_only_for_the_allowed_origins(template: dict[str, Any]) -> None:
    api = template["Resources"]["McpApi"]["Properties"]
    condition, cors, otherwise = api["CorsConfiguration"]["Fn::If"]
    assert condition == "HasBrowserOrigins"
    assert template["Conditions"]["HasBrowserOrigins"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "AllowedOrigins"}, ""]}]
    }
    assert cors["AllowOrigins"] == {"Fn::Split": [",", {"Ref": "AllowedOrigins"}]}
    assert otherwise == {"Ref": "AWS::NoValue"}
    # What API Gateway sends for this configuration is the one expectation make run is held to as well.
    origin = "https://chat.example.com"
    preflight = {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": ",".join(cors["AllowMethods"]),
        "access-control-allow-headers": ",".join(cors["AllowHeaders"]),
        "access-control-max-age": str(cors["MaxAge"]),
    }
    response = {
        "access-control-allow-origin": origin,
        "access-control-expose-headers": ",".join(cors["ExposeHeaders"]),
    }
    assert preflight == expected_preflight(origin)
    assert response == expected_response_headers(origin)
