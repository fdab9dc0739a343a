"""One error root: every exception class the framework (and its dev tools) defines derives from McpLambdaError, in
the family the table below names; one `except McpLambdaError` catches what settings, manifests, businesses and
`ctx.http` raise; and a business cannot answer with the framework's reserved result codes."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
import socket
from pathlib import Path

import pytest

import mcp_lambda
import mcp_lambda_dev
from mcp_lambda.downstream import EgressPolicy, HttpClient
from mcp_lambda.errors import McpLambdaError, RequestRefused, StartupError, StoreUnavailable, ToolFailure
from mcp_lambda.manifest import load_manifest
from mcp_lambda.settings import Settings
from mcp_lambda.tools import Business, business_error
from mcp_lambda.tools.errors import DownstreamError
from mcp_lambda.tools.results import FRAMEWORK_CODES, ResultCode, system_error

# module.Class -> (family, builtin bases kept for callers that catch them). A new exception class must be added
# here, in its family, or the walk below fails.
EXPECTED: dict[str, tuple[type[BaseException], tuple[type[BaseException], ...]]] = {
    "mcp_lambda.errors.McpLambdaError": (McpLambdaError, ()),
    "mcp_lambda.errors.StartupError": (StartupError, ()),
    "mcp_lambda.errors.StoreUnavailable": (StoreUnavailable, ()),
    "mcp_lambda.errors.ToolFailure": (ToolFailure, ()),
    "mcp_lambda.errors.RequestRefused": (RequestRefused, ()),
    # Startup
    "mcp_lambda.settings.model.SettingsError": (StartupError, (ValueError,)),
    "mcp_lambda.manifest.errors.ManifestError": (StartupError, (ValueError,)),
    "mcp_lambda.tools.business.BusinessDefinitionError": (StartupError, (ValueError,)),
    "mcp_lambda_dev.services.ServiceError": (StartupError, (RuntimeError,)),
    "mcp_lambda_dev.contract.diff.ContractUnavailable": (StartupError, (RuntimeError,)),
    "mcp_lambda.apps.views.CardViewError": (StartupError, (ValueError,)),
    "mcp_lambda.skills.catalog.SkillError": (StartupError, ()),
    "mcp_lambda.skills.source.FrontmatterError": (StartupError, ()),
    "mcp_lambda.composition.BusinessNotFound": (StartupError, (ValueError,)),
    "mcp_lambda.tools.schema.ToolSignatureError": (StartupError, (TypeError,)),
    "mcp_lambda.downstream.egress.EgressDeclarationError": (StartupError, (ValueError,)),
    # Stores
    "mcp_lambda.stores.sessions.base.SessionStoreUnavailable": (StoreUnavailable, ()),
    "mcp_lambda.stores.tasks.base.TaskStoreUnavailable": (StoreUnavailable, ()),
    "mcp_lambda.stores.quotas.base.QuotaStoreUnavailable": (StoreUnavailable, ()),
    # Downstream
    "mcp_lambda.downstream.errors.DownstreamError": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.downstream.errors.DownstreamUnavailable": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.downstream.errors.CircuitOpen": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.downstream.errors.DownstreamTimeout": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.downstream.errors.ResponseTooLarge": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.platform_api.PlatformApiError": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.platform_api.PlatformApiUnavailable": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.platform_api.PlatformApiTimeout": (DownstreamError, (RuntimeError,)),
    "mcp_lambda.calls.task_invoke.TaskStartFailed": (DownstreamError, (RuntimeError,)),
    # Tool failures
    "mcp_lambda.downstream.errors.EgressRefused": (ToolFailure, ()),
    "mcp_lambda.deadlines.DeadlineExceeded": (ToolFailure, ()),
    "mcp_lambda.deadlines.RequestCancelled": (ToolFailure, ()),
    "mcp_lambda.secrets.SecretUnavailable": (ToolFailure, (LookupError,)),
    "mcp_lambda.tools.resources.ResourceNotFound": (ToolFailure, (LookupError,)),
    "mcp_lambda.calls.rate_limits.RateLimited": (ToolFailure, ()),
    "mcp_lambda.calls.quotas.QuotaExceeded": (ToolFailure, ()),
    "mcp_lambda.calls.error_table.ToolCrashed": (ToolFailure, ()),
    # Refused requests
    "mcp_lambda.protocol.jsonrpc.RpcError": (RequestRefused, ()),
    "mcp_lambda.auth.errors.AuthFailure": (RequestRefused, ()),
    "mcp_lambda_dev.simulator.report.BadRequest": (RequestRefused, (ValueError,)),
    "mcp_lambda_dev.simulate.CannotSimulate": (RequestRefused, ()),
    "mcp_lambda.testing.errors.ProtocolError": (RequestRefused, ()),
    # The test kit used wrongly (an unknown era, a bad setting): the root only.
    "mcp_lambda.testing.errors.KitError": (McpLambdaError, ()),
    "mcp_lambda.testing.replay.Mismatch": (McpLambdaError, (AssertionError,)),
    # Internal signals, caught inside the framework: the root only.
    "mcp_lambda.aws.budget.AwsCallTimedOut": (McpLambdaError, ()),
    "mcp_lambda.stores.table.ConditionFailed": (McpLambdaError, ()),
    "mcp_lambda.calls.claims.NotStored": (McpLambdaError, ()),
    "mcp_lambda.stores.sessions.base.SessionIdTaken": (McpLambdaError, (ValueError,)),
    "mcp_lambda.stores.tasks.base.TaskIdTaken": (McpLambdaError, (ValueError,)),
    "mcp_lambda.stores.tasks.base.TaskTooLarge": (McpLambdaError, (ValueError,)),
}
FAMILIES = (StartupError, StoreUnavailable, DownstreamError, ToolFailure, RequestRefused)
# Importing it builds the app (and freezes the collector): its source is read instead, and must define no class.
NOT_IMPORTED = {"mcp_lambda.handler"}


def _defined_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in (mcp_lambda, mcp_lambda_dev):
        names = [package.__name__]
        names += [m.name for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")]
        for name in names:
            if name in NOT_IMPORTED:
                source = Path(importlib.util.find_spec(name).origin).read_text()  # type: ignore[union-attr, arg-type]
                assert not [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)], name
                continue
            module = importlib.import_module(name)
            for value in vars(module).values():
                if (
                    inspect.isclass(value)
                    and issubclass(value, BaseException)
                    and value.__module__ == module.__name__
                ):
                    found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


DEFINED = _defined_exceptions()


def test_the_table_lists_every_exception_class_the_packages_define() -> None:
    assert sorted(DEFINED) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_exception_derives_from_the_root_in_its_family(name: str) -> None:
    cls = DEFINED[name]
    family, builtins = EXPECTED[name]
    assert issubclass(cls, McpLambdaError)
    assert issubclass(cls, family)
    # One family each (the root's own families are their own).
    others = [f for f in FAMILIES if f is not family and issubclass(cls, f)]
    assert not others, others
    for builtin in builtins:
        assert issubclass(cls, builtin), f"{name} no longer is a {builtin.__name__}: callers catch it as one"


def test_store_unavailability_keeps_each_store_s_default_message_and_retry_after() -> None:
    from mcp_lambda.stores.sessions import SessionStoreUnavailable
    from mcp_lambda.stores.tasks import TaskStoreUnavailable

    assert str(SessionStoreUnavailable()) == "session store unavailable"
    assert str(TaskStoreUnavailable()) == "task store unavailable"
    assert str(StoreUnavailable()) == "store unavailable"
    waited = TaskStoreUnavailable("task store unavailable: ThrottlingException", retry_after_seconds=3)
    assert (str(waited), waited.retry_after_seconds) == ("task store unavailable: ThrottlingException", 3)
    assert SessionStoreUnavailable().retry_after_seconds == 1


def test_the_business_facing_api_exports_the_root_and_the_families() -> None:
    import mcp_lambda.tools.errors as toolkit

    for cls in (McpLambdaError, *FAMILIES):
        assert getattr(toolkit, cls.__name__) is cls
        assert cls.__name__ in toolkit.__all__
    assert "system_error" not in toolkit.__all__ and not hasattr(toolkit, "system_error")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    "fail",
    [
        pytest.param(lambda tmp: Settings.from_env({"SESSION_STORE": "dynamodb"}), id="settings"),
        pytest.param(lambda tmp: Settings.from_env({"MAX_BODY_BYTES": "12"}), id="a bad setting"),
        pytest.param(lambda tmp: load_manifest(tmp / "missing.yaml"), id="a missing manifest"),
        pytest.param(
            lambda tmp: load_manifest(_write(tmp / "m.yaml", "tools: {t: {output: {kind: nope}}}\n")),
            id="an invalid manifest",
        ),
        pytest.param(lambda tmp: Business(name="x", tools=["not a tool"]), id="a business"),  # type: ignore[list-item]
        pytest.param(
            lambda tmp: HttpClient(max_attempts=1, timeout_seconds=1, egress=EgressPolicy(["127.0.0.1"])).get(
                f"http://127.0.0.1:{_closed_port()}/"
            ),
            id="ctx.http",
        ),
    ],
)
def test_one_except_catches_what_settings_manifests_businesses_and_http_raise(fail, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(McpLambdaError) as caught:
        fail(tmp_path)
    assert type(caught.value).__module__.startswith("mcp_lambda.")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("code", sorted(FRAMEWORK_CODES))
def test_business_error_refuses_each_framework_code(code: int) -> None:
    with pytest.raises(ValueError, match=f"code {code} is reserved for the framework"):
        business_error(code, "m")


def test_system_error_takes_only_framework_codes_and_answers_the_same_shape() -> None:
    with pytest.raises(ValueError, match="not a framework code"):
        system_error(40001, "m")
    with pytest.raises(TypeError):
        system_error("50000", "m")  # type: ignore[arg-type]
    framework = system_error(ResultCode.DOWNSTREAM_UNAVAILABLE, "down", retry_after_ms=250).to_wire()
    business = business_error(ResultCode.DOWNSTREAM_UNAVAILABLE + 1, "down", retry_after_ms=250).to_wire()
    assert framework["structuredContent"] == {
        **business["structuredContent"],
        "code": ResultCode.DOWNSTREAM_UNAVAILABLE,
    }
    assert framework == {
        "content": [{"type": "text", "text": "down"}],
        "structuredContent": {
            "code": 50300,
            "message": "down",
            "retryable": True,
            "suggested_action": "wait_and_retry",
            "retry_after_ms": 250,
            "retry_strategy": {"kind": "exponential_backoff", "base_ms": 250, "max_ms": 30000, "attempts": 5},
        },
        "isError": True,
    }
    assert system_error(ResultCode.KEY_REUSED, "m").structured_content["retryable"] is False
    assert (
        system_error(ResultCode.INTERNAL_ERROR, "m").structured_content["suggested_action"]
        == "wait_and_retry"
    )


def test_an_error_map_row_with_a_framework_code_is_refused_at_start() -> None:
    class OrderLocked(Exception):
        pass

    with pytest.raises(StartupError, match="50000, a code reserved for the framework"):
        Business(name="x", tools=[], error_map={OrderLocked: (ResultCode.INTERNAL_ERROR, "locked")})
    assert Business(name="x", tools=[], error_map={OrderLocked: (40920, "locked")}).error_map


def test_the_errors_page_names_every_class_and_every_reserved_code() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "errors.md").read_text(encoding="utf-8")
    unnamed = [name for name in EXPECTED if f"`{name.rpartition('.')[2]}`" not in page]
    assert not unnamed
    [listed] = re.findall(r"`((?:\d{5} )+\d{5})` \(`FRAMEWORK_CODES`\)", page)
    assert sorted(int(code) for code in listed.split()) == sorted(FRAMEWORK_CODES)
