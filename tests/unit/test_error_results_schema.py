"""Every demo tool's error results validate against the tool's published outputSchema (a JSON Schema validator,
as the TypeScript SDK 1.x client does with Ajv even when `isError` is true), and so do its successes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator, ValidationError

from businesses.demo import BUSINESS
from mcp_lambda.testing import Identity, McpTestClient
from mcp_lambda.tools.error_schema import TOOL_ERROR_SCHEMA

CALLER = Identity("schema-checker", scopes=("subscriptions:read", "subscriptions:write"))
# Real error results of each tool that publishes an outputSchema: the framework's refusal of bad arguments
# (40000) and each business error it can answer.
ERROR_CALLS: list[tuple[str, dict[str, Any], int]] = [
    ("search_routes", {"origin": "guomao", "surprise": 1}, 40000),
    ("search_routes", {"origin": "guomao"}, 40001),
    ("search_routes", {"origin": "sanlitun", "destination": "sanlitun"}, 40002),
    ("search_routes_for_reference", {"origin": "guomao"}, 40000),
    ("search_products", {"keyword": ""}, 40000),
    ("list_subscriptions", {"surprise": 1}, 40000),
    ("check_stock", {"product_id": "nope"}, 40000),
    ("check_stock", {"product_id": "p-1001"}, 50101),  # no inventory configured
]
SUCCESS_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_routes", {"origin": "guomao", "destination": "capital_airport_t3"}),
    ("search_products", {"keyword": "cup"}),
    ("list_subscriptions", {}),
]
VALIDATORS = (Draft7Validator, Draft202012Validator)  # Ajv's default draft, and the one MCP names


@pytest.fixture(scope="module")
def client() -> Iterator[McpTestClient]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("DEMO_INVENTORY_URL", raising=False)  # check_stock's 50101: no inventory configured
        with McpTestClient(BUSINESS, "2026-07-28", caller=CALLER) as opened:
            yield opened


@pytest.fixture(scope="module")
def schemas(client: McpTestClient) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool["outputSchema"] for tool in client.list_tools() if "outputSchema" in tool}


def test_five_demo_tools_publish_an_output_schema_that_is_a_valid_schema(schemas: dict[str, Any]) -> None:
    assert set(schemas) == {
        "search_routes",
        "search_routes_for_reference",
        "search_products",
        "list_subscriptions",
        "check_stock",
    }
    for schema in schemas.values():
        assert schema["type"] == "object" and schema["$defs"]["tool_error"] == TOOL_ERROR_SCHEMA
        for validator in VALIDATORS:
            validator.check_schema(schema)


@pytest.mark.parametrize(
    ("tool", "arguments", "code"), ERROR_CALLS, ids=[f"{t}-{c}" for t, _, c in ERROR_CALLS]
)
def test_each_error_result_validates_against_the_published_output_schema(
    client: McpTestClient, schemas: dict[str, Any], tool: str, arguments: dict[str, Any], code: int
) -> None:
    result = client.call_tool(tool, arguments)

    assert result.is_error and result.code == code and result.suggested_action
    for validator in VALIDATORS:
        validator(schemas[tool]).validate(result.structured_content)
        # The success shape alone refuses it: admitting the error object is what keeps the error.
        with pytest.raises(ValidationError):
            validator(schemas[tool]["anyOf"][0]).validate(result.structured_content)


@pytest.mark.parametrize(("tool", "arguments"), SUCCESS_CALLS, ids=[t for t, _ in SUCCESS_CALLS])
def test_successes_still_validate_and_a_malformed_error_does_not(
    client: McpTestClient, schemas: dict[str, Any], tool: str, arguments: dict[str, Any]
) -> None:
    result = client.call_tool(tool, arguments)

    assert not result.is_error
    for validator in VALIDATORS:
        validator(schemas[tool]).validate(result.structured_content)
        with pytest.raises(ValidationError):
            validator(schemas[tool]).validate({"code": "40001", "message": "not an integer code"})
