"""The composition root (`mcp_lambda.composition`): a business loaded by name, one typed Runtime per container,
and business discovery on the developer's machine (`mcp_lambda_dev.businesses`)."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest
from fastapi import FastAPI
from tests.support.business import TEST_BUSINESS

from businesses.demo import BUSINESS as DEMO
from mcp_lambda.calls.task_invoke import task_event
from mcp_lambda.composition import BusinessNotFound, Runtime, build_runtime, load_business
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import MemoryIdempotencyStore
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business
from mcp_lambda.tools.business import BusinessDefinitionError
from mcp_lambda_dev import businesses as discovery


def test_a_business_is_loaded_by_its_package_name() -> None:
    assert load_business("demo") is DEMO


def test_an_unknown_business_is_not_found_and_says_what_a_business_is() -> None:
    with pytest.raises(BusinessNotFound) as caught:
        load_business("nobiz")
    assert caught.value.name == "nobiz"
    assert isinstance(caught.value, BusinessDefinitionError)
    assert str(caught.value) == "business 'nobiz' not found (a business is a package src/businesses/<name>/)"


def test_a_package_without_business_is_a_business_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "businesses.hollow", types.ModuleType("businesses.hollow"))
    with pytest.raises(
        BusinessDefinitionError, match=r"businesses.hollow must define BUSINESS = Business\(...\)"
    ) as caught:
        load_business("hollow")
    assert not isinstance(caught.value, BusinessNotFound)


def test_discovery_lists_the_shipped_then_the_dev_businesses() -> None:
    known = discovery.known_businesses()
    assert "demo" in known and "conformance" in known
    assert known.index("demo") < known.index("conformance")


def test_discovery_lists_every_business_beside_the_demo(more_businesses: tuple[str, ...]) -> None:
    known = discovery.known_businesses()
    assert {"demo", "conformance", *more_businesses} <= set(known)
    assert [discovery.load_business(name).name for name in more_businesses] == list(more_businesses)


@pytest.mark.parametrize("beside", [False, True], ids=["demo-alone", "with-more-businesses"])
def test_the_dev_loader_names_the_known_businesses_when_one_is_missing(
    beside: bool, request: pytest.FixtureRequest
) -> None:
    more = request.getfixturevalue("more_businesses") if beside else ()
    with pytest.raises(BusinessNotFound) as caught:
        discovery.load_business("nobiz")
    known = discovery.known_businesses()
    assert set(more) <= set(known)
    assert str(caught.value) == (
        f"business 'nobiz' not found; known: {', '.join(known)} (a business is a package src/businesses/<name>/)"
    )
    assert discovery.load_business("demo") is DEMO


def test_the_runtime_holds_what_the_container_built() -> None:
    sessions, idempotency = MemorySessionStore(), MemoryIdempotencyStore()
    runtime = build_runtime(Settings(business=TEST_BUSINESS.name), TEST_BUSINESS, sessions, idempotency)
    assert isinstance(runtime, Runtime) and isinstance(runtime.app, FastAPI)
    assert runtime.sessions is sessions and runtime.idempotency is idempotency
    assert runtime.manifest_path.stem == TEST_BUSINESS.name
    assert runtime.logger.service == TEST_BUSINESS.name
    assert runtime.app.state._state == {}  # nothing hides in the app's untyped state
    with pytest.raises(dataclasses.FrozenInstanceError):
        runtime.sessions = MemorySessionStore()  # type: ignore[misc]


def test_the_runtime_loads_the_business_its_settings_name() -> None:
    runtime = build_runtime(Settings(business="demo"), sessions=MemorySessionStore())
    assert runtime.app.title == "mcp-demo" and runtime.logger.service == "demo"


def test_a_task_event_goes_to_the_runtime_and_an_http_event_to_the_app() -> None:
    runtime = build_runtime(Settings(business=TEST_BUSINESS.name), TEST_BUSINESS, MemorySessionStore())
    handler = lambda_handler(runtime)
    # The test business runs no tool as a task: the worker answers that it ran nothing.
    assert handler(task_event("t-1", 1), None) == {
        "taskId": "t-1",
        "run": 1,
        "ran": False,
        "status": "unknown",
    }
    listed = McpTestClient.over_handler(handler, era=MODERN, capabilities={}).rpc("tools/list")
    assert listed.status == 200 and [t["name"] for t in listed.result["tools"]][:1] == ["echo"]


def test_a_business_keeps_its_lookup_tables_out_of_repr_and_equality() -> None:
    twin = dataclasses.replace(TEST_BUSINESS)
    assert twin == TEST_BUSINESS and twin is not TEST_BUSINESS
    assert "_by_name" not in repr(TEST_BUSINESS) and "_by_uri" not in repr(TEST_BUSINESS)
    assert twin.tool("echo") is TEST_BUSINESS.tool("echo") is not None
    assert twin.tool("nope") is None and twin.prompt("nope") is None
    assert [f.name for f in dataclasses.fields(Business) if not f.init] == [
        "_tools_by_name",
        "_prompts_by_name",
        "_resources_by_uri",
    ]
