"""What template.yaml gives the operators of a deployed business: alarms bound to the optional AlarmTopicArn, one
per failure that needs a person, a dashboard built from the metrics the function really writes, the protection
table, the blast-radius cap and the optional customer-managed key reaching everything that stores data."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from tests.support.cloudformation import ROOT, load_template
from tests.support.log_capture import captured_lines
from tests.support.principal_binding import demo_handler

from mcp_lambda.observability import DEFAULT_METRICS_NAMESPACE, ToolCallEmf
from mcp_lambda.settings import Settings, milliseconds
from mcp_lambda.testing import MODERN, McpTestClient

NO_VALUE = {"Ref": "AWS::NoValue"}
TO_THE_TOPIC = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], NO_VALUE]}
THE_KEY = {"Fn::If": ["UseKmsKey", {"Ref": "KmsKeyArn"}, NO_VALUE]}
# The framework's own metrics (the protection code emits them with exactly this one dimension).
CUSTOM_METRICS = {"CircuitOpened", "QuotaRejections"}
SERVICE = [{"Name": "service", "Value": {"Ref": "BusinessName"}}]
# Where each encrypting resource type names its key.
KEY_PROPERTY = {
    "AWS::DynamoDB::Table": ("SSESpecification", "KMSMasterKeyId"),
    "AWS::Logs::LogGroup": ("KmsKeyId",),
    "AWS::SQS::Queue": ("KmsMasterKeyId",),
    "AWS::SecretsManager::Secret": ("KmsKeyId",),
    "AWS::Serverless::Function": ("KmsKeyArn",),
}
# An HTTP request's time: API Gateway gives up at 30 s; the function answers by its own deadline, less the margin.
API_GATEWAY_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    """template.yaml with `MetricsNamespace` at its default, as a stack deployed without overriding it sees it."""
    return _at_default_namespace(load_template())


def _at_default_namespace(template: dict[str, Any]) -> dict[str, Any]:
    default = template["Parameters"]["MetricsNamespace"]["Default"]

    def resolve(node: Any) -> Any:
        if node == {"Ref": "MetricsNamespace"}:
            return default
        if isinstance(node, dict):
            return {
                key: value.replace("${MetricsNamespace}", default)
                if key == "Fn::Sub" and isinstance(value, str)
                else resolve(value)
                for key, value in node.items()
            }
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(template)  # type: ignore[no-any-return]


def test_one_parameter_names_the_metrics_namespace_for_the_function_the_alarms_and_the_dashboard() -> None:
    raw = load_template()
    parameter = raw["Parameters"]["MetricsNamespace"]
    assert parameter["Default"] == DEFAULT_METRICS_NAMESPACE
    assert re.fullmatch(parameter["AllowedPattern"], "McpTools/staging")
    assert not re.fullmatch(parameter["AllowedPattern"], "/McpTools")
    env = of_type(raw, "AWS::Serverless::Function")["McpFunction"]["Properties"]["Environment"]["Variables"]
    assert env["POWERTOOLS_METRICS_NAMESPACE"] == {"Ref": "MetricsNamespace"}
    custom = [
        metric
        for alarm in alarms(raw).values()
        for metric in metrics_of(alarm)
        if not (isinstance(metric["Namespace"], str) and metric["Namespace"].startswith("AWS/"))
    ]
    assert custom and all(metric["Namespace"] == {"Ref": "MetricsNamespace"} for metric in custom)
    body = raw["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    assert DEFAULT_METRICS_NAMESPACE not in body and body.count("${MetricsNamespace}") >= 8


def of_type(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in of_type(template, "AWS::CloudWatch::Alarm").items()}


def metrics_of(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """Each metric an alarm reads (its own, or those of its metric math), as {Namespace, MetricName, Dimensions}."""
    if "MetricName" in alarm:
        return [{key: alarm[key] for key in ("Namespace", "MetricName", "Dimensions")}]
    return [query["MetricStat"]["Metric"] for query in alarm["Metrics"] if "MetricStat" in query]


def heading_anchors(markdown: str) -> set[str]:
    titles = re.findall(r"^#{1,6} (.+?)\s*$", re.sub(r"```.*?```", "", markdown, flags=re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", title.lower().replace("`", "")).replace(" ", "-") for title in titles}


def test_every_alarm_notifies_the_topic_only_when_one_is_given(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["AlarmTopicArn"]
    assert parameter["Default"] == ""
    assert template["Conditions"]["HasAlarmTopic"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}]
    }
    found = alarms(template)
    assert len(found) >= 11
    for name, alarm in found.items():
        assert alarm["AlarmActions"] == TO_THE_TOPIC, name
        assert alarm["OKActions"] == TO_THE_TOPIC, name
        # Quiet hours are not an incident: a metric with no data (no traffic) never alarms.
        assert alarm["TreatMissingData"] == "notBreaching", name
        assert alarm["AlarmName"]["Fn::Sub"].startswith("${AWS::StackName}-"), name


def test_every_alarm_links_its_section_of_the_operations_page(template: dict[str, Any]) -> None:
    anchors = heading_anchors((ROOT / "docs" / "operations.md").read_text(encoding="utf-8"))
    for name, alarm in alarms(template).items():
        [anchor] = re.findall(r"docs/operations\.md#([\w-]+)", alarm["AlarmDescription"])
        assert anchor in anchors, (name, anchor)


def test_the_alarms_watch_what_the_issue_names(template: dict[str, Any]) -> None:
    watched = {
        (metric["Namespace"], metric["MetricName"])
        for alarm in alarms(template).values()
        for metric in metrics_of(alarm)
    }
    assert {
        ("AWS/Lambda", "Errors"),
        ("AWS/Lambda", "Throttles"),
        ("AWS/Lambda", "Duration"),
        ("AWS/ApiGateway", "5xx"),
        ("AWS/ApiGateway", "Count"),
        ("AWS/SQS", "ApproximateNumberOfMessagesVisible"),
        (DEFAULT_METRICS_NAMESPACE, "CircuitOpened"),
        (DEFAULT_METRICS_NAMESPACE, "QuotaRejections"),
    } <= watched


def test_every_table_has_a_throttle_alarm(template: dict[str, Any]) -> None:
    tables = set(of_type(template, "AWS::DynamoDB::Table"))
    throttled: dict[str, set[str]] = {}
    for alarm in alarms(template).values():
        for metric in metrics_of(alarm):
            if metric["Namespace"] == "AWS/DynamoDB":
                [dimension] = metric["Dimensions"]
                assert dimension["Name"] == "TableName"
                throttled.setdefault(dimension["Value"]["Ref"], set()).add(metric["MetricName"])
    assert tables == {"SessionsTable", "IdempotencyTable", "TasksTable", "ProtectionTable"}
    assert set(throttled) == tables
    for table, names in throttled.items():
        assert names == {"ReadThrottleEvents", "WriteThrottleEvents"}, table


def test_the_framework_metrics_are_circuit_opened_and_quota_rejections_by_service(
    template: dict[str, Any],
) -> None:
    env = of_type(template, "AWS::Serverless::Function")["McpFunction"]["Properties"]["Environment"][
        "Variables"
    ]
    custom = [
        metric
        for alarm in alarms(template).values()
        for metric in metrics_of(alarm)
        if not metric["Namespace"].startswith("AWS/")
    ]
    assert {metric["MetricName"] for metric in custom} == CUSTOM_METRICS and len(custom) == 2
    for metric in custom:
        # The namespace the function writes to, and the service dimension Powertools gives every metric.
        assert metric["Namespace"] == env["POWERTOOLS_METRICS_NAMESPACE"] == DEFAULT_METRICS_NAMESPACE
        assert metric["Dimensions"] == SERVICE
        assert env["POWERTOOLS_SERVICE_NAME"] == SERVICE[0]["Value"]
    quota = alarms(template)["QuotaRejectionsAlarm"]
    assert quota["Threshold"] == {"Ref": "QuotaRejectionsAlarmThreshold"}
    assert alarms(template)["CircuitOpenedAlarm"]["Threshold"] == 1


def test_the_duration_alarm_reads_http_invocations_near_their_deadline(template: dict[str, Any]) -> None:
    function = template["Resources"]["McpFunction"]["Properties"]
    alarm = alarms(template)["FunctionDurationAlarm"]
    parameter = template["Parameters"]["DurationAlarmThresholdMs"]
    deadline = milliseconds(Settings.model_fields["request_deadline"].default)
    margin = milliseconds(Settings.model_fields["deadline_margin"].default)

    # The alias the HTTP API calls; task workers run on a version (their long runs are not HTTP latency).
    assert {"Name": "Resource", "Value": {"Fn::Sub": "${McpFunction}:" + function["AutoPublishAlias"]}} in (
        alarm["Dimensions"]
    )
    assert alarm["ExtendedStatistic"] == "p99" and alarm["Threshold"] == {"Ref": "DurationAlarmThresholdMs"}
    assert deadline < API_GATEWAY_TIMEOUT_MS
    assert parameter["Default"] == round(0.8 * (deadline - margin))
    assert parameter["MaxValue"] <= API_GATEWAY_TIMEOUT_MS


def test_the_5xx_alarm_is_a_rate_of_the_apis_requests(template: dict[str, Any]) -> None:
    alarm = alarms(template)["Api5xxRateAlarm"]
    [rate] = [query for query in alarm["Metrics"] if query.get("ReturnData")]
    by_id = {
        query["Id"]: query["MetricStat"]["Metric"] for query in alarm["Metrics"] if "MetricStat" in query
    }
    assert {by_id[name]["MetricName"] for name in ("errors", "requests")} == {"5xx", "Count"}
    assert all(
        metric["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": "McpApi"}}] for metric in by_id.values()
    )
    assert "100 * FILL(errors, 0) / requests" in rate["Expression"]
    assert alarm["Threshold"] == {"Ref": "Api5xxRateAlarmPercent"}


def test_the_kms_key_reaches_every_table_log_group_queue_secret_and_the_function(
    template: dict[str, Any],
) -> None:
    assert template["Parameters"]["KmsKeyArn"]["Default"] == ""
    assert template["Conditions"]["UseKmsKey"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "KmsKeyArn"}, ""]}]}
    resources = [(name, r) for name, r in template["Resources"].items() if r["Type"] in KEY_PROPERTY]
    assert {r["Type"] for _, r in resources} == set(KEY_PROPERTY)
    for name, resource in resources:
        value: Any = resource["Properties"]
        for key in KEY_PROPERTY[resource["Type"]]:
            value = value[key]
        assert value == THE_KEY, name
    for name in of_type(template, "AWS::DynamoDB::Table"):
        sse = template["Resources"][name]["Properties"]["SSESpecification"]
        assert sse["SSEEnabled"] is True and sse["SSEType"] == {"Fn::If": ["UseKmsKey", "KMS", NO_VALUE]}
    queue = template["Resources"]["TaskFailuresQueue"]["Properties"]
    assert queue["SqsManagedSseEnabled"] == {"Fn::If": ["UseKmsKey", NO_VALUE, True]}, (
        "SQS-managed SSE otherwise"
    )


def test_the_function_may_use_the_key_only_when_given_and_only_that_key(template: dict[str, Any]) -> None:
    statements = template["Resources"]["McpFunction"]["Properties"]["Policies"][0]["Statement"]
    [(condition, granted, otherwise)] = [s["Fn::If"] for s in statements if "Fn::If" in s]
    assert condition == "UseKmsKey" and otherwise == NO_VALUE
    assert granted["Resource"] == {"Ref": "KmsKeyArn"} and granted["Effect"] == "Allow"
    # Decrypt: the environment, the secret, the table items; Encrypt/GenerateDataKey: writes to the tables and
    # the failures queue; DescribeKey: DynamoDB's check of the key. Nothing administrative, no wildcard.
    assert set(granted["Action"]) == {"kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"}
    other_kms = [s for s in statements if "Fn::If" not in s and "kms:" in json.dumps(s["Action"])]
    assert not other_kms


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("", True),
        ("arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab", True),
        ("arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/mrk-1234abcd", True),
        ("arn:aws:kms:eu-west-1:123456789012:alias/mcp", False),  # a policy on an alias grants nothing
        ("1234abcd-12ab-34cd-56ef-1234567890ab", False),
    ],
)
def test_the_key_parameter_takes_a_key_arn_or_nothing(
    template: dict[str, Any], value: str, accepted: bool
) -> None:
    assert (
        re.fullmatch(template["Parameters"]["KmsKeyArn"]["AllowedPattern"], value) is not None
    ) is accepted


def test_the_protection_table_is_keyed_id_with_ttl_on_expiration(template: dict[str, Any]) -> None:
    table = template["Resources"]["ProtectionTable"]["Properties"]
    function = template["Resources"]["McpFunction"]["Properties"]
    env = function["Environment"]["Variables"]

    assert table["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert table["AttributeDefinitions"] == [{"AttributeName": "id", "AttributeType": "S"}]
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expiration", "Enabled": True}
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert env["PROTECTION_STORE"] == "dynamodb"
    assert env["PROTECTION_TABLE"] == {"Ref": "ProtectionTable"}
    [statement] = [
        s
        for s in function["Policies"][0]["Statement"]
        if s.get("Resource") == {"Fn::GetAtt": ["ProtectionTable", "Arn"]}
    ]
    assert statement["Sid"] == "ProtectionTable"
    assert set(statement["Action"]) == {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
    assert template["Outputs"]["ProtectionTableName"]["Value"] == {"Ref": "ProtectionTable"}


def test_reserved_concurrency_is_off_by_default_and_never_zero(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["ReservedConcurrency"]
    function = template["Resources"]["McpFunction"]["Properties"]
    # 0 reserved would throttle every call: 0 means unreserved, so a fresh account (limit 10) can deploy.
    assert parameter["Default"] == 0 and parameter["MinValue"] == 0
    assert template["Conditions"]["HasReservedConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "ReservedConcurrency"}, "0"]}]
    }
    assert function["ReservedConcurrentExecutions"] == {
        "Fn::If": ["HasReservedConcurrency", {"Ref": "ReservedConcurrency"}, NO_VALUE]
    }


def test_every_suppressed_finding_gives_its_reason(template: dict[str, Any]) -> None:
    text = (ROOT / "template.yaml").read_text()
    skips = [
        skip
        for r in template["Resources"].values()
        for skip in r.get("Metadata", {}).get("checkov", {}).get("skip", [])
    ]
    assert skips and all(re.fullmatch(r"CKV_AWS_\d+", s["id"]) and len(s["comment"]) > 20 for s in skips)
    ignored = [
        check
        for r in template["Resources"].values()
        for check in r.get("Metadata", {}).get("cfn-lint", {}).get("config", {}).get("ignore_checks", [])
    ]
    for check in ignored:  # cfn-lint's metadata has no comment field: the line above says why
        assert re.search(rf"# {check}: \S.{{20,}}\n\s+ignore_checks: \[{check}\]", text), check


def _dashboard(template: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    body = template["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    numbers = {name for name, p in template["Parameters"].items() if p["Type"] == "Number"}
    resolved = re.sub(r"\$\{([\w:.]+)\}", lambda m: "1" if m[1] in numbers else "x", body)
    return body, json.loads(resolved)


def test_the_dashboard_is_json_whose_substitutions_all_resolve(template: dict[str, Any]) -> None:
    body, dashboard = _dashboard(template)
    names = set(template["Parameters"]) | set(template["Resources"])
    for variable in re.findall(r"\$\{([^}]+)\}", body):
        assert variable.startswith("AWS::") or variable.split(".")[0] in names, variable
    assert all({"x", "y", "width", "height"} <= set(widget) for widget in dashboard["widgets"])
    [alarm_widget] = [w for w in dashboard["widgets"] if w["type"] == "alarm"]
    listed = re.findall(
        r"\$\{(\w+)\.Arn\}", body[body.index('"alarms"') : body.index("]", body.index('"alarms"'))]
    )
    assert sorted(listed) == sorted(alarms(template)) and len(alarm_widget["properties"]["alarms"]) == len(
        listed
    )


def test_the_dashboard_searches_every_tool_metric_so_new_tools_appear(template: dict[str, Any]) -> None:
    body, dashboard = _dashboard(template)
    expressions = [
        (metric[0]["expression"], widget["properties"]["title"])
        for widget in dashboard["widgets"]
        if widget["type"] == "metric"
        for metric in widget["properties"]["metrics"]
        if isinstance(metric[0], dict)
    ]
    emf = json.loads(ToolCallEmf(DEFAULT_METRICS_NAMESPACE, "demo").blob("t", "success", 1.0))
    [directive] = emf["_aws"]["CloudWatchMetrics"]
    schema = "{" + ",".join([directive["Namespace"], *sorted(directive["Dimensions"][0])]) + "}"
    searched: dict[str, set[str]] = {}
    for expression, _ in expressions:
        found = re.fullmatch(
            r"SEARCH\('(\{[^}]+\}) MetricName=\"(\w+)\" service=\"x\"', '(\w+)', 300\)", expression
        )
        assert found, expression
        assert found[1] == schema
        searched.setdefault(found[2], set()).add(found[3])
    assert set(searched) == {name for name, _ in ToolCallEmf.METRICS}
    assert searched["ToolLatency"] == {"p50", "p99"}
    assert "${BusinessName}" in body


def test_the_error_code_widget_reads_fields_the_finishing_lines_carry(template: dict[str, Any]) -> None:
    _, dashboard = _dashboard(template)
    [query] = [w["properties"]["query"] for w in dashboard["widgets"] if w["type"] == "log"]
    assert query.startswith("SOURCE 'x' |"), "the function's log group, FunctionLogGroup"
    events = json.loads(re.search(r"filter event in (\[[^]]*\])", query)[1])  # type: ignore[index]
    by = [field.strip() for field in re.search(r" by ([\w, ]+?) \|", query)[1].split(",")]  # type: ignore[index]
    assert " and code != 0 " in query

    client = McpTestClient.over_handler(demo_handler(Settings(business="demo")), era=MODERN, capabilities={})
    with captured_lines("demo") as lines:
        client.rpc("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}})
        client.rpc("tools/call", {"name": "search_products", "arguments": {"keyword": "cup", "limit": "two"}})
    finishing = [line for line in lines if line.get("event") in events]
    [ok, failed] = finishing
    assert set(events) == {"mcp_tool_call_finished", "mcp_tool_call_failed"}
    assert ok["code"] == 0 and failed["code"] != 0, "code != 0 keeps the errors alone"
    assert [field for field in by if field not in failed] == []


def test_every_table_is_an_output_and_in_the_deploy_page(template: dict[str, Any]) -> None:
    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for table in of_type(template, "AWS::DynamoDB::Table"):
        assert f"`{table}`" in deploy, table
        assert f"{table}Name" in template["Outputs"], table


def test_the_deploy_page_counts_the_alarms_and_their_metrics_as_the_template_has_them(
    template: dict[str, Any],
) -> None:
    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    [alarm_count] = re.findall(r"^\| (\d+) alarms \|", deploy, re.M)
    [metric_count] = re.findall(r"\$0\.10 per metric an alarm reads per month, (\d+) here", deploy)
    assert int(alarm_count) == len(alarms(template))
    assert int(metric_count) == sum(len(metrics_of(alarm)) for alarm in alarms(template).values())


def test_the_operations_page_shows_the_error_code_query_the_dashboard_runs(template: dict[str, Any]) -> None:
    _, dashboard = _dashboard(template)
    [query] = [w["properties"]["query"] for w in dashboard["widgets"] if w["type"] == "log"]
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    shown = [" ".join(block.split()) for block in re.findall(r"```text\n(.*?)```", operations, flags=re.S)]
    assert query.removeprefix("SOURCE 'x' | ") in shown


def test_the_deploy_page_gives_each_new_parameter_its_template_default(template: dict[str, Any]) -> None:
    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", deploy, re.M))
    names = ["AlarmTopicArn", "ReservedConcurrency", "KmsKeyArn", "FunctionErrorsAlarmThreshold"]
    names += ["DurationAlarmThresholdMs", "Api5xxRateAlarmPercent", "QuotaRejectionsAlarmThreshold"]
    for name in names:
        default = template["Parameters"][name]["Default"]
        assert rows[name].split(" ")[0] == (str(default) if default != "" else "empty"), name
