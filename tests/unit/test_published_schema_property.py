"""What the published inputSchema says is what is accepted: arguments drawn from each demo tool's *published*
schema (hypothesis-jsonschema) are accepted, `null` for an optional argument included (it means "not given");
any other value the schema excludes, an unknown argument or a missing required one gets 40000."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

import businesses.demo.exports
from businesses.demo import BUSINESS
from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools.schema import optional_without_null

TOOLS = [spec.name for spec in BUSINESS.tools]
FAST = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=4,
)


def published_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments the published schema admits: every required property, any subset of the others, each value drawn
    from its property's schema by hypothesis-jsonschema (whose whole-object strategy needs an older Hypothesis)."""
    properties, required = schema.get("properties") or {}, set(schema.get("required") or ())
    values = {name: from_schema(prop) for name, prop in properties.items()}
    optional = sorted(set(properties) - required)

    @st.composite
    def draw(draw_one: st.DrawFn) -> dict[str, Any]:
        present = sorted(required) + draw_one(
            st.lists(st.sampled_from(optional), unique=True) if optional else st.just([])
        )
        return {name: draw_one(values[name]) for name in present}

    return draw()


@pytest.fixture(scope="module")
def client() -> Iterator[McpTestClient]:
    # No quota (a refused call must be refused for its arguments) and no waiting on the export's renderer.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(businesses.demo.exports, "SECONDS_PER_LEG", 0)
        quotas_off = {"tool_quotas": {spec.name: None for spec in BUSINESS.tools if spec.quota}}
        # An MCP Apps host, so the app-only card action (refresh_route) is listed and callable too.
        apps = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}
        with McpTestClient(BUSINESS, "2026-07-28", settings=quotas_off, capabilities=apps) as opened:
            yield opened


@pytest.fixture(scope="module")
def schemas(client: McpTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool["inputSchema"] for tool in client.list_tools()}


def test_optional_arguments_publish_plain_types(schemas: dict[str, dict[str, Any]]) -> None:
    district = schemas["search_products"]["properties"]["category"]  # `Category | None = None`
    assert district["type"] == "string" and "anyOf" not in district and "default" not in district
    assert optional_without_null(schemas["search_products"]) == {
        "category",
        "max_price_yuan",
        "sort",
        "limit",
    }


def each_tool_drawn(test: Any) -> Any:
    """Run `test(client, schemas, tool, data)` for every demo tool, with Hypothesis drawing from `data`."""
    return pytest.mark.parametrize("tool", TOOLS)(FAST(given(data=st.data())(test)))


@each_tool_drawn
def test_arguments_the_published_schema_admits_are_accepted(
    client: McpTestClient, schemas: dict[str, dict[str, Any]], tool: str, data: st.DataObject
) -> None:
    schema = schemas[tool]
    arguments = data.draw(published_arguments(schema), label="arguments")
    optional = sorted(optional_without_null(schema))
    for name in data.draw(st.lists(st.sampled_from(optional), unique=True), label="null") if optional else []:
        arguments[name] = None  # what a strict function-calling mode sends for an argument left empty

    result = client.call_tool(tool, arguments)

    assert result.code != 40000, (arguments, result.message)


@each_tool_drawn
def test_values_outside_the_published_schema_get_40000(
    client: McpTestClient, schemas: dict[str, dict[str, Any]], tool: str, data: st.DataObject
) -> None:
    schema = schemas[tool]
    arguments = data.draw(published_arguments(schema), label="valid arguments")
    properties, required = schema["properties"], schema.get("required", [])
    nullable_as_absent = optional_without_null(schema)
    ways = [
        "unknown argument",
        *(["missing argument"] if required else []),
        *(["bad value"] if properties else []),
    ]
    way = data.draw(st.sampled_from(ways), label="way")
    if way == "unknown argument":
        arguments[data.draw(st.text(min_size=1, max_size=8).filter(lambda n: n not in properties))] = 1
    elif way == "missing argument":
        del arguments[data.draw(st.sampled_from(required))]
    else:
        name = data.draw(st.sampled_from(sorted(properties)), label="argument")
        validator = Draft202012Validator(properties[name])
        arguments[name] = data.draw(
            JSON_VALUES.filter(
                lambda value: (
                    not validator.is_valid(value) and not (value is None and name in nullable_as_absent)
                )
            ),
            label="bad value",
        )

    result = client.call_tool(tool, arguments)

    assert result.code == 40000, (way, arguments, result.structured_content)
