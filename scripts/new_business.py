"""`make new-business NAME=shop`: scaffold a business that starts, lints and passes its manifest check.

Writes src/businesses/<name>/ (an explicit tool list, one entities tool, one execution_result tool, and one tool
that calls a downstream HTTP service through `ctx.http` with a key from `ctx.secret`), manifest/<name>.yaml and
tests/unit/test_business_<name>.py (every branch of the tools through the handler, the downstream one against a
local fake service). Refuses to overwrite anything.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

INIT = '''"""The {name} business. List every tool explicitly: a tool missing here is not served."""

from mcp_lambda.tools import Business

from .items import find_items, save_item
from .stock import check_stock

BUSINESS = Business(
    name="{name}",
    title="{title}",
    version="0.1.0",
    instructions="Find items (find_items), check their stock (check_stock) and save one for later (save_item).",
    tools=[find_items, save_item, check_stock],
)
'''

STOCK = '''"""{title} stock: a tool that calls a downstream HTTP service. Point it at your own API."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import ToolAnnotations, ToolContext, ToolResult, business_error, execution_result, tool

# The service's address and key live in the business secret (Secrets Manager in AWS, .env.local locally), so each
# stage points at its own service without a code change: {name}_stock_url=https://... and {name}_stock_key=...
URL_SECRET = "{name}_stock_url"
KEY_SECRET = "{name}_stock_key"


@tool(
    description=(
        "Use when the user asks whether an item found by find_items is in stock, and how many are left. "
        "Not for saving or ordering an item."
    ),
    title="Check stock",
    annotations=ToolAnnotations(read_only=True, open_world=True),
    safe_fields=("item_id",),
    rate_limit="10/second",  # per caller and container: a guard for the stock service behind the API's throttling
)
def check_stock(
    item_id: Annotated[str, Field(pattern=r"^i-\\d{{3}}$", description="An item_id from find_items.")],
    ctx: ToolContext,
) -> ToolResult:
    # ctx.http brings the timeouts (capped by the request deadline), retries for this idempotent GET, a circuit
    # breaker for the host and the log line. Left uncaught, an unreachable or failing service becomes error result
    # 50300 and one too slow 50400, both retryable.
    answer = ctx.http.get(
        f"{{ctx.secret(URL_SECRET).rstrip('/')}}/stock/{{item_id}}",
        headers={{"authorization": f"Bearer {{ctx.secret(KEY_SECRET)}}"}},
        interface="stock.get",
    )
    if answer.status == 404:
        return business_error(40401, f"the stock service does not know item {{item_id}}")
    if not answer.ok:
        return business_error(
            50001,
            f"the stock service refused the request (HTTP {{answer.status}})",
            retryable=False,
            suggested_action="escalate_to_human",
        )
    quantity = int(answer.json().get("quantity", 0))
    return execution_result(
        {{"item_id": item_id, "in_stock": quantity > 0, "quantity": quantity}},
        text=f"{{item_id}}: {{quantity}} in stock.",
    )
'''

ITEMS = '''"""{title} tools. Replace the sample catalogue with calls to your own systems."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated

from pydantic import Field

from mcp_lambda.tools import (
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    entities,
    execution_result,
    tool,
)


@dataclass(frozen=True)
class Item:
    item_id: str
    name: str
    price_yuan: int


CATALOGUE = (
    Item(item_id="i-001", name="Sample item one", price_yuan=10),
    Item(item_id="i-002", name="Sample item two", price_yuan=25),
)


@tool(
    description=(
        "Use when the user wants to find items by keyword. Shows a list card the model may narrow. "
        "Not for saving an item (use save_item)."
    ),
    title="Find items",
    annotations=ToolAnnotations(read_only=True, open_world=False),
    safe_fields=("keyword",),
)
def find_items(
    keyword: Annotated[
        str, Field(min_length=1, max_length=40, description="Words to look for in item names.")
    ],
    ctx: ToolContext,
) -> ToolResult:
    found = [asdict(item) for item in CATALOGUE if keyword.lower() in item.name.lower()]
    item_list = {{
        "entity_type": "item_list",
        "list_id": f"items-{{keyword.lower()}}",
        "keyword": keyword,
        "items": found,
    }}
    return entities([item_list], text=f"Found {{len(found)}} items for '{{keyword}}'.")


@tool(
    description="Use when the user asks to save one item found by find_items. Not for searching.",
    title="Save an item",
    annotations=ToolAnnotations(read_only=False, idempotent=True),
    safe_fields=("item_id",),
)
def save_item(
    item_id: Annotated[
        str, Field(pattern=r"^i-\\d{{3}}$", description="An item_id from find_items, e.g. i-001.")
    ],
) -> ToolResult:
    if not any(item.item_id == item_id for item in CATALOGUE):
        return business_error(40401, f"No item {{item_id}}: search with find_items first.")
    return execution_result({{"success": True, "message": f"Saved {{item_id}}."}}, text=f"Saved {{item_id}}.")
'''

TESTS = '''"""The {name} business through the Lambda handler, as a client calls it (written by make new-business).

Every branch of the tools runs here (check_stock against a local fake stock service); keep it that way as the
tools grow.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.fake_service import FakeService, fake_service
from tests.support.lambda_client import LambdaClient, ModernClient, build_handler
from tests.support.secrets import StaticSecrets

from mcp_lambda.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
KEY = "test-stock-key"


@pytest.fixture
def stock() -> Iterator[FakeService]:
    with fake_service() as service:
        service.routes["/stock/i-001"] = lambda request: (200, {{"quantity": 7}})
        service.routes["/stock/i-002"] = lambda request: (200, {{"quantity": 0}})
        service.routes["/stock/i-999"] = lambda request: (404, {{"message": "unknown item"}})
        service.routes["/stock/i-403"] = lambda request: (403, {{"message": "not for you"}})
        yield service


@pytest.fixture
def client(stock: FakeService) -> ModernClient:
    secrets = StaticSecrets({{"{name}_stock_url": stock.url, "{name}_stock_key": KEY}})
    settings = Settings(business="{name}", manifest_dir=str(ROOT / "manifest"))
    return ModernClient(LambdaClient(build_handler(None, settings, secrets=secrets)))


def test_find_items_lists_the_items_whose_name_matches(client: ModernClient) -> None:
    result = client.call_tool("find_items", {{"keyword": "ONE"}}).result
    [item_list] = result["structuredContent"]["entities"]
    assert [item["item_id"] for item in item_list["items"]] == ["i-001"]
    assert result["content"][0]["text"] == "Found 1 items for 'ONE'."


def test_find_items_without_a_match_gives_an_empty_list(client: ModernClient) -> None:
    result = client.call_tool("find_items", {{"keyword": "nothing like it"}}).result
    assert result["structuredContent"]["entities"][0]["items"] == []


def test_save_item_saves_a_known_item(client: ModernClient) -> None:
    result = client.call_tool("save_item", {{"item_id": "i-002"}}).result
    assert result["structuredContent"] == {{"success": True, "message": "Saved i-002."}}


def test_save_item_with_an_unknown_id_is_a_business_error(client: ModernClient) -> None:
    result = client.call_tool("save_item", {{"item_id": "i-999"}}).result
    assert result["isError"] is True and result["structuredContent"]["code"] == 40401


def test_arguments_outside_the_schema_are_refused_before_the_tool_runs(client: ModernClient) -> None:
    for name, arguments in (("find_items", {{"keyword": ""}}), ("save_item", {{"item_id": "1"}})):
        result = client.call_tool(name, arguments).result
        assert result["isError"] is True and result["structuredContent"]["code"] == 40000


def test_check_stock_asks_the_stock_service_with_the_key(client: ModernClient, stock: FakeService) -> None:
    reply = client.call_tool("check_stock", {{"item_id": "i-001"}})
    assert reply.result["structuredContent"] == {{"item_id": "i-001", "in_stock": True, "quantity": 7}}
    assert stock.seen[0].path == "/stock/i-001"
    assert stock.seen[0].headers["authorization"] == f"Bearer {{KEY}}"
    assert KEY.encode() not in reply.raw


def test_an_item_the_service_does_not_know_is_40401(client: ModernClient) -> None:
    structured = client.call_tool("check_stock", {{"item_id": "i-999"}}).result["structuredContent"]
    assert structured["code"] == 40401 and structured["suggested_action"] == "ask_user"


def test_a_refusing_stock_service_is_escalated(client: ModernClient) -> None:
    structured = client.call_tool("check_stock", {{"item_id": "i-403"}}).result["structuredContent"]
    assert structured["code"] == 50001 and structured["suggested_action"] == "escalate_to_human"


def test_a_failing_stock_service_is_a_retryable_50300(client: ModernClient, stock: FakeService) -> None:
    stock.statuses = [503, 503, 503]  # every attempt of the (idempotent, so retried) GET
    structured = client.call_tool("check_stock", {{"item_id": "i-002"}}).result["structuredContent"]
    assert structured["code"] == 50300 and structured["retryable"] is True
'''

MANIFEST = """# The platform contract of the {name} business (docs/manifest.md).
tools:
  find_items:
    output: {{kind: entities, entity_types: [item_list]}}
  save_item:
    output: {{kind: execution_result}}
  check_stock:
    output: {{kind: execution_result}}

entities:
  item_list:
    schema:
      list_id: {{type: string, is_entity_id: true}}
      entity_type: {{type: string, llm_visible: false}}
      keyword: {{type: string}}
      items:
        type: array
        llm_modifiable: true
        items:
          type: object
          properties:
            item_id: {{type: string}}
            name: {{type: string}}
            price_yuan: {{type: int}}
    tool_card_binding:
      find_items: item_list_card
"""


def scaffold(name: str, root: Path) -> list[Path]:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise SystemExit(f"new-business: NAME must be lower-case letters, digits and underscores: {name!r}")
    package, manifest = root / "src" / "businesses" / name, root / "manifest" / f"{name}.yaml"
    tests = root / "tests" / "unit" / f"test_business_{name}.py"
    for path in (package, manifest, tests):
        if path.exists():
            raise SystemExit(f"new-business: {path.relative_to(root)} already exists; nothing written")
    title = name.replace("_", " ").capitalize()
    files = {
        package / "__init__.py": INIT.format(name=name, title=title),
        package / "items.py": ITEMS.format(title=title),
        package / "stock.py": STOCK.format(name=name, title=title),
        manifest: MANIFEST.format(name=name),
        root / "tests" / "unit" / f"test_business_{name}.py": TESTS.format(name=name),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("name")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this one)")
    args = parser.parse_args()
    for path in scaffold(args.name, args.root):
        print(f"created {path.relative_to(args.root)}")
    print(
        f"next: make run BUSINESS={args.name}; its tests: .venv/bin/python -m pytest "
        f"tests/unit/test_business_{args.name}.py (make test runs them too)"
    )


if __name__ == "__main__":
    sys.exit(main())
