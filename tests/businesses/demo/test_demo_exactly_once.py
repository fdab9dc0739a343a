"""subscribe_product creates a subscription per execution: a retry with the same tool_call_id is answered with
the first call's result and creates nothing; the same key with other arguments is refused."""

from __future__ import annotations

from mcp_lambda.testing import McpTestClient

RESTOCK = {"product_id": "p-1004", "alert": "restock"}


def test_a_retry_with_the_same_tool_call_id_replays_the_first_subscription(as_someone: McpTestClient) -> None:
    first = as_someone.call_tool("subscribe_product", RESTOCK, tool_call_id="call-1")
    retry = as_someone.call_tool("subscribe_product", RESTOCK, tool_call_id="call-1")
    mine = as_someone.call_tool("list_subscriptions")

    assert not first.is_error and first.structured_content["subscription_id"].startswith("sub_")
    assert retry.structured_content == first.structured_content and retry.text == first.text
    assert [item["subscription_id"] for item in mine.entities] == [
        first.structured_content["subscription_id"]
    ]


def test_another_tool_call_id_is_another_subscription(as_someone: McpTestClient) -> None:
    first = as_someone.call_tool("subscribe_product", RESTOCK, tool_call_id="call-1")
    second = as_someone.call_tool("subscribe_product", RESTOCK, tool_call_id="call-2")

    assert first.structured_content["subscription_id"] != second.structured_content["subscription_id"]
    assert len(as_someone.call_tool("list_subscriptions").entities) == 2


def test_the_same_tool_call_id_with_other_arguments_is_refused_and_creates_nothing(
    as_someone: McpTestClient,
) -> None:
    as_someone.call_tool("subscribe_product", RESTOCK, tool_call_id="call-1")
    reused = as_someone.call_tool(
        "subscribe_product",
        {"product_id": "p-2003", "alert": "restock"},
        tool_call_id="call-1",
    )

    assert reused.is_error and reused.code == 40900
    assert (reused.retryable, reused.suggested_action) == (False, "fix_arguments")
    assert "tool_call_id was already used with other arguments" in (reused.message or "")
    assert len(as_someone.call_tool("list_subscriptions").entities) == 1
