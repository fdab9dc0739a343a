"""A business whose results hold what the model must not read: a field only one scope may see, hidden values
(a number, a short code), and tools that write them into their text. The probes of tests/unit/test_field_probes.py
and tests/integration/test_field_probes_http.py run it in-process and behind `make run`'s server.

`tests/support/field_probe` goes on the path (its `manifest/` is MANIFEST_DIR); `businesses` spans every such
directory.
"""

from mcp_lambda.tools import Business, TaskConfig, ToolAnnotations, ToolResult, entities, tool

ACCOUNT = {
    "account_id": "acct-1",
    "entity_type": "account",
    "name": "Blue Shop",
    "risk_score": 0.8731,
    "internal_code": "QX7K",
    "balance_yuan": 12345,
}
READ_ONLY = ToolAnnotations(read_only=True)


@tool(description="Use to show the account. Not for anything else.", annotations=READ_ONLY)
def show_account() -> ToolResult:
    return entities([ACCOUNT], text="One account.")


@tool(description="Use to show the account with its risk. Not for anything else.", annotations=READ_ONLY)
def show_risk() -> ToolResult:
    return entities([ACCOUNT], text="Its risk is 87.31%.")  # the hidden 0.8731, as a percentage


@tool(description="Use to show the account with its code. Not for anything else.", annotations=READ_ONLY)
def show_code() -> ToolResult:
    return entities([ACCOUNT], text="Internal code qx7k.")  # the hidden "QX7K", in another case


@tool(description="Use to show the account with its balance. Not for anything else.", annotations=READ_ONLY)
def show_balance() -> ToolResult:
    return entities([ACCOUNT], text="Balance: 12,345 yuan.")  # needs accounts:balance to be the model's


@tool(description="Use to show the account, as a task. Not for anything else.", task=TaskConfig())
def show_account_later() -> ToolResult:
    return entities([ACCOUNT], text="One account.")


BUSINESS = Business(
    name="fieldprobe",
    tools=[show_account, show_risk, show_code, show_balance, show_account_later],
    secrets=[],
)
