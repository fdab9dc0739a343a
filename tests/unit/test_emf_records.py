"""The one EMF writer: a counted event's record is what Powertools serializes for the same metric, and a record's
template survives names that would break a naive one (a quote, a percent sign)."""

from __future__ import annotations

import json

import pytest
from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from mcp_lambda.observability import EmfRecord, write_count_metric


def test_a_count_record_is_what_powertools_serializes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "McpTest")
    write_count_metric("QuotaRejections", "testbiz", {"tool": "search_routes", "quota": "20/hour"})
    ours = json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    metrics = EphemeralMetrics(namespace="McpTest", service="testbiz")
    metrics.add_metric(name="QuotaRejections", unit=MetricUnit.Count, value=1)
    metrics.add_metadata(key="tool", value="search_routes")
    metrics.add_metadata(key="quota", value="20/hour")
    theirs = metrics.serialize_metric_set()
    ours["_aws"]["Timestamp"] = theirs["_aws"]["Timestamp"]
    assert ours == theirs
    assert list(ours)[:2] == ["tool", "quota"]  # the properties come first, as they always have


def test_names_and_values_with_quotes_or_percent_signs_stay_valid_json() -> None:
    record = EmfRecord('ns "%s"', ('dim"%d',), (("metric%", "Count"), ("ms", "Milliseconds")))
    line = record.render(('va"l%s',), (1, 0.25), {"note": "100%", "ms": "a property named like a metric"})
    data = json.loads(line)
    assert data['dim"%d'] == 'va"l%s' and data["metric%"] == [1.0] and data["ms"] == [0.25]
    assert data["note"] == "100%"
    assert data["_aws"]["CloudWatchMetrics"][0]["Namespace"] == 'ns "%s"'
