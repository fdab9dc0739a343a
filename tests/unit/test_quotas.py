"""`@tool(limits=CallLimits(quota=...))`: per caller, per tool, in fixed windows aligned to the epoch, counted in the protection store;
over it is error result 42900 with `retry_after_ms` and the quota, through the real handler (the public test kit)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from types import SimpleNamespace
from typing import Any

import pytest

import mcp_lambda.calls.quotas as quotas_module
from mcp_lambda.calls.quotas import Quotas, build_quotas, caller_hash, declared_quotas
from mcp_lambda.composition import build_runtime
from mcp_lambda.observability import write_count_metric
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.stores.quotas import MemoryQuotaStore, QuotaStoreUnavailable
from mcp_lambda.stores.quotas import memory as quota_memory_module
from mcp_lambda.testing import Identity, McpTestClient
from mcp_lambda.tools import (
    Business,
    CallLimits,
    ExactlyOnce,
    TaskConfig,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    execution_result,
    tool,
)
from mcp_lambda.tools.errors import ToolSignatureError
from mcp_lambda.tools.options import Quota

HOUR = 3600
ALICE, BOB = Identity("alice"), Identity("bob")


@tool(description="Use to quote a price. At most three a day per caller.", limits=CallLimits(quota="3/day"))
def quote(ctx: ToolContext) -> ToolResult:
    return execution_result({"price": 3})


@tool(description="Use to ping. No quota.", annotations=ToolAnnotations(read_only=True))
def ping(ctx: ToolContext) -> ToolResult:
    return execution_result({"ok": True})


@tool(
    description="Use to order. Two an hour per caller.",
    limits=CallLimits(quota="2/hour"),
    exactly_once=ExactlyOnce(),
)
def order(ctx: ToolContext) -> ToolResult:
    return execution_result({"ordered": True})


@tool(
    description="Use to build a report, as a task. One an hour.",
    limits=CallLimits(quota="1/hour"),
    task=TaskConfig(),
)
def report(ctx: ToolContext) -> ToolResult:
    return execution_result({"report": "done"})


@tool(
    description="Use to poll. Bursts of one a second, ten an hour.",
    limits=CallLimits(rate="1/second", quota="10/hour"),
)
def poll(ctx: ToolContext) -> ToolResult:
    return execution_result({"polled": True})


BUSINESS = Business(name="quoted", tools=[quote, ping, order, report, poll])


class Clock:
    """Epoch seconds that a test moves; put in place of the quota module's `time`."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moved = Clock(100 * 86_400 + 10.0)  # ten seconds into a day (and an hour)
    monkeypatch.setattr(quotas_module, "time", SimpleNamespace(time=moved.time))
    monkeypatch.setattr(quota_memory_module, "time", SimpleNamespace(time=moved.time))
    return moved


def _client(caller: Identity | None = ALICE, **settings: Any) -> McpTestClient:
    return McpTestClient(BUSINESS, caller=caller, settings=settings or None)


# --- through the handler ---------------------------------------------------------------------------------------


def test_the_calls_of_the_quota_pass_and_the_next_gets_42900_with_the_quota_and_retry_after(
    clock: Clock, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    with _client() as alice, caplog.at_level(logging.INFO):
        answers = [alice.call_tool("quote") for _ in range(4)]

    assert [a.is_error for a in answers] == [False, False, False, True]
    refused = answers[3].structured_content
    assert refused["code"] == 42900 and refused["quota"] == "3/day"
    assert refused["retryable"] is True and refused["suggested_action"] == "wait_and_retry"
    assert refused["retry_after_ms"] == (86_400 - 10) * 1000  # until the day's window ends
    assert "3/day" in refused["message"]
    failed = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert [(r.outcome, r.error_type, r.quota) for r in failed] == [  # type: ignore[attr-defined]
        ("quota_exceeded", "QuotaExceeded", "3/day")
    ]
    metrics = [json.loads(line) for line in capsys.readouterr().out.splitlines() if "QuotaRejections" in line]
    [metric] = metrics
    assert metric["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]
    assert (metric["service"], metric["tool"], metric["QuotaRejections"]) == ("quoted", "quote", [1.0])


def test_each_caller_has_a_count_of_its_own_and_anonymous_callers_share_one(clock: Clock) -> None:
    with _client() as alice:
        for _ in range(3):
            alice.call_tool("quote")
        assert alice.call_tool("quote").code == 42900
        with alice.as_caller(BOB) as bob:
            assert not bob.call_tool("quote").is_error
        with alice.as_caller(None) as first, alice.as_caller(None) as second:
            for _ in range(3):
                assert not first.call_tool("quote").is_error
            assert second.call_tool("quote").code == 42900  # one count for every anonymous caller
        assert not alice.call_tool("ping").is_error  # a tool without a quota


def test_the_count_starts_again_when_the_window_resets(clock: Clock) -> None:
    with _client() as alice:
        for _ in range(3):
            alice.call_tool("quote")
        clock.now += 86_400 - 10 - 1  # one second before the day ends: still refused
        assert alice.call_tool("quote").structured_content["retry_after_ms"] == 1000
        clock.now += 1
        assert [alice.call_tool("quote").is_error for _ in range(4)] == [False, False, False, True]


def test_the_burst_guard_is_checked_first_and_its_refusals_do_not_count(clock: Clock) -> None:
    with _client(tool_quotas={"poll": "2/hour"}) as alice:
        assert not alice.call_tool("poll").is_error
        refused = alice.call_tool("poll").structured_content  # within the second: the burst guard answers
        assert refused["code"] == 42900 and "quota" not in refused
        time.sleep(1.05)
        assert not alice.call_tool("poll").is_error  # the guard's refusal was not counted: 2 of 2
        time.sleep(1.05)
        assert alice.call_tool("poll").structured_content["quota"] == "2/hour"


def test_a_replayed_exactly_once_call_does_not_count(clock: Clock) -> None:
    with _client() as alice:
        for _ in range(3):  # the first call and two replays of it
            assert alice.call_tool("order", tool_call_id="call-1").structured_content == {"ordered": True}
        assert not alice.call_tool("order", tool_call_id="call-2").is_error
        over = alice.call_tool("order", tool_call_id="call-3")
        assert (over.code, over.structured_content["quota"]) == (42900, "2/hour")
        clock.now += HOUR
        # Refused calls store nothing: the key runs once its window has reset.
        assert not alice.call_tool("order", tool_call_id="call-3").is_error


def test_a_task_counts_once_when_it_is_created_and_its_worker_run_does_not_count(clock: Clock) -> None:
    with _client() as alice:
        task = alice.call_tool_as_task("report")
        done = task.wait()
        assert done.status == "completed" and done.result is not None, done
        assert done.result.structured_content == {"report": "done"}  # the worker's run was not refused
        assert alice.call_tool("report").code == 42900  # the creation counted; the worker's run did not
        refused = alice.request(
            "tools/call", {"name": "report", "arguments": {}}, capabilities=alice._with_tasks()
        )[0]["result"]
        assert refused["structuredContent"]["code"] == 42900 and refused["isError"] is True


def test_tool_quotas_sets_changes_and_switches_off_a_quota(clock: Clock) -> None:
    overrides = {"ping": "1/hour", "quote": "1/day", "poll": None}
    with _client(tool_quotas=overrides) as alice:
        assert [alice.call_tool("ping").is_error for _ in range(2)] == [False, True]
        second = [alice.call_tool("quote") for _ in range(2)][1]
        assert (second.code, second.structured_content["quota"]) == (42900, "1/day")
        assert not alice.call_tool("poll").is_error  # its quota is off (only the burst guard is left)


def test_tool_quotas_from_the_environment_reaches_the_server(clock: Clock) -> None:
    settings = Settings.from_env({"BUSINESS": "quoted", "TOOL_QUOTAS": '{"ping": "1/hour"}'})
    with McpTestClient(BUSINESS, caller=ALICE, settings=settings) as alice:
        assert [alice.call_tool("ping").is_error for _ in range(2)] == [False, True]


def test_a_business_without_quotas_has_none_and_the_store_is_built_on_the_first_counted_call() -> None:
    assert build_quotas([ping], None, "plain", MemoryQuotaStore) is None
    built: list[MemoryQuotaStore] = []

    def store() -> MemoryQuotaStore:
        built.append(MemoryQuotaStore())
        return built[-1]

    quotas = build_quotas(BUSINESS.tools, None, "quoted", store)
    assert quotas is not None and built == []
    quotas.check("ping", "alice")  # no quota: nothing to count
    assert built == []
    quotas.check("quote", "alice")
    assert len(built) == 1


# --- start-up validation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{not json", "TOOL_QUOTAS: .*not JSON"),
        ('["quote"]', "TOOL_QUOTAS: .*JSON object"),
        ('{"quote": 5}', "TOOL_QUOTAS"),
    ],
)
def test_tool_quotas_that_is_not_an_object_of_rates_is_refused(value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env({"TOOL_QUOTAS": value})


def test_tool_quotas_naming_a_tool_the_business_lacks_stops_the_start() -> None:
    settings = Settings(business="quoted", tool_quotas={"qoute": "5/hour"})
    with pytest.raises(SettingsError, match=r"TOOL_QUOTAS names 'qoute', not a tool of business 'quoted'"):
        build_runtime(settings, BUSINESS)


@pytest.mark.parametrize("rate", ["often", "5/fortnight", "0/hour", "1/second;5/minute"])
def test_tool_quotas_with_a_bad_rate_stops_the_start(rate: str) -> None:
    settings = Settings(business="quoted", tool_quotas={"quote": rate})
    with pytest.raises(SettingsError, match=rf"TOOL_QUOTAS: 'quote' is '{rate}', not a rate"):
        build_runtime(settings, BUSINESS)


@pytest.mark.parametrize("rate", ["often", "5/fortnight", "-1/second", "0/hour", "1/second;5/minute", 5])
def test_a_quota_that_is_not_one_rate_fails_at_import(rate: Any) -> None:
    with pytest.raises(
        ToolSignatureError, match=r"tool 'bad': limits.quota .* is not a rate such as '100/hour'"
    ):

        @tool(description="Use to test a bad quota.", limits=CallLimits(quota=rate))
        def bad(ctx: ToolContext) -> ToolResult:
            return execution_result({})


# --- the parts -------------------------------------------------------------------------------------------------


def test_a_quota_s_windows_are_aligned_to_the_epoch() -> None:
    quota = Quota.parse("100 per 2 hours")
    assert (quota.limit, quota.window_seconds) == (100, 7200)
    assert quota.window(7200 * 5 + 1.5) == (36_000, 43_200)
    assert Quota.parse("20/hour").window(3599.9) == (0, 3600)


def test_the_memory_store_counts_to_the_limit_and_forgets_expired_counters() -> None:
    now = [1000.0]
    store = MemoryQuotaStore(clock=lambda: now[0])
    assert [store.hit("k", 2, 1100) for _ in range(3)] == [True, True, False]
    now[0] = 1100.0  # expired: the same key counts from zero
    assert store.hit("k", 2, 1200) is True
    now[0] = 1300.0
    store.hit("other", 1, 1400)
    assert "k" not in store._counts  # pruned


def test_the_caller_is_kept_as_a_stable_hash_never_as_the_principal() -> None:
    principal = "https://issuer.example|alice"
    hashed = caller_hash(principal)
    assert hashed == caller_hash(principal) and len(hashed) == 32
    assert "alice" not in hashed and hashed != caller_hash("https://issuer.example|bob")
    assert caller_hash(None) == "anonymous"


class _DownStore:
    def hit(self, key: str, limit: int, expires_at: int) -> bool:
        raise QuotaStoreUnavailable("quota store unavailable: ThrottlingException")


def test_an_unavailable_store_lets_the_call_through_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    quotas = Quotas({"quote": Quota.parse("1/hour")}, "quoted", _DownStore)
    with caplog.at_level(logging.WARNING, logger="mcp_lambda"):
        quotas.check("quote", "alice")
        quotas.check("quote", "alice")  # still let through: never refused because the store is down
    lines = [r for r in caplog.records if getattr(r, "event", None) == "quota_store_unavailable"]
    assert len(lines) == 2 and lines[0].tool_name == "quote"  # type: ignore[attr-defined]
    assert "alice" not in caplog.text


def test_declared_quotas_apply_the_overrides() -> None:
    assert set(declared_quotas(BUSINESS.tools, None, "quoted")) == {"quote", "order", "report", "poll"}
    chosen = declared_quotas(BUSINESS.tools, {"quote": None, "ping": "5/minute"}, "quoted")
    assert "quote" not in chosen and chosen["ping"] == Quota("5/minute", 5, 60)


def test_the_rejection_metric_is_switched_off_as_powertools_metrics_are(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    write_count_metric("QuotaRejections", "quoted", {"tool": "quote"})
    [line] = capsys.readouterr().out.splitlines()
    record = json.loads(line)
    assert record["_aws"]["CloudWatchMetrics"][0]["Metrics"] == [{"Name": "QuotaRejections", "Unit": "Count"}]
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    write_count_metric("QuotaRejections", "quoted", {"tool": "quote"})
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "rate",
    [
        "20/hour",
        "1000 per day",
        "50 per 2 hours",
        "3 PER Minute",
        "1/seconds",
        " 2/ 3 minutes ",
        "1/month",
        "7/year",
    ],
)
def test_a_quota_reads_the_limits_notation_as_limits_does(rate: str) -> None:
    from limits import parse

    item = parse(rate)
    assert (Quota.parse(rate).limit, Quota.parse(rate).window_seconds) == (item.amount, item.get_expiry())


def test_declaring_a_quota_imports_no_rate_library() -> None:
    source = (
        "import sys\n"
        "from mcp_lambda.tools import Business, CallLimits, ToolContext, execution_result, tool\n"
        "@tool(description='Use to test.', limits=CallLimits(quota='5/hour'))\n"
        "def capped(ctx: ToolContext):\n"
        "    return execution_result({})\n"
        "Business(name='capped', tools=[capped])\n"
        "assert 'limits' not in sys.modules, 'limits was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
