"""subscribe_product's quota: each caller may create 20 alerts an hour (every container counting together); the 21st
call is refused with 42900, the quota and the time until the window resets, and creates nothing."""

from __future__ import annotations

from businesses.demo import BUSINESS
from mcp_lambda.testing import Identity, McpTestClient

PRICE_DROP = {"product_id": "p-1004", "alert": "price_drop", "target_price_yuan": 50}


def test_the_21st_subscription_in_an_hour_is_refused_with_the_quota(as_someone: McpTestClient) -> None:
    made = [as_someone.call_tool("subscribe_product", PRICE_DROP) for _ in range(20)]
    over = as_someone.call_tool("subscribe_product", PRICE_DROP)

    assert [result.is_error for result in made] == [False] * 20
    assert (over.code, over.retryable, over.structured_content["quota"]) == (42900, True, "20/hour")
    assert 0 < over.structured_content["retry_after_ms"] <= 3_600_000
    assert len(as_someone.call_tool("list_subscriptions").entities) == 20  # the refused call created nothing


def test_another_caller_is_not_held_back_and_an_operator_can_change_the_quota(someone: Identity) -> None:
    with McpTestClient(
        BUSINESS, caller=someone, settings={"tool_quotas": {"subscribe_product": "1/day"}}
    ) as one:
        assert not one.call_tool("subscribe_product", PRICE_DROP).is_error
        over = one.call_tool("subscribe_product", PRICE_DROP)
        assert (over.code, over.structured_content["quota"]) == (42900, "1/day")
        other = Identity("someone-else", scopes=someone.scopes)
        with one.as_caller(other) as another:
            assert not another.call_tool("subscribe_product", PRICE_DROP).is_error
