"""A business's own table down while its tool runs: a retryable 50300 with the table's Retry-After, not an
internal 50000 (docs/errors.md)."""

from __future__ import annotations

from tests.support.handlers import build_handler

from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import Business, ToolResult, tool
from mcp_lambda.tools.errors import StoreUnavailable


class LedgerUnavailable(StoreUnavailable):
    default_message = "ledger unavailable: ThrottlingException"


@tool(description="Use to read the ledger.")
def read_ledger() -> ToolResult:
    raise LedgerUnavailable(retry_after_seconds=2)


def test_a_business_table_down_is_a_retryable_50300_with_its_retry_after() -> None:
    client = McpTestClient.over_handler(build_handler(Business(name="ledgerbiz", tools=[read_ledger])))
    result = client.call_tool("read_ledger")
    structured = result.structured_content
    assert result.is_error and structured["code"] == 50300, structured
    assert structured["retryable"] is True and structured["retry_after_ms"] == 2000
    assert structured["suggested_action"] == "wait_and_retry"
    assert "cannot reach a store it depends on" in structured["message"]
    assert "ThrottlingException" not in structured["message"]  # the reason is the log's, not the client's
