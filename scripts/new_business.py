"""`make new-business NAME=shop`: scaffold a business that starts, lints and passes its manifest check.

Writes src/businesses/<name>/ (an explicit tool list, one entities tool, one execution_result tool, and one tool
that calls a downstream HTTP service through `ctx.http` with a key from `ctx.secret`), manifest/<name>.yaml, and
tests/unit/test_business_<name>.py (that tool against a local fake service, through the handler). Refuses to
overwrite anything.
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

from mcp_lambda.tools import ToolContext, ToolResult, business_error, execution_result, tool

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
    read_only=True,
    open_world=True,
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

STOCK_TEST = '''"""The {name} business's check_stock against a local fake stock service, through the Lambda handler."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.fake_service import FakeService, fake_service
from tests.support.lambda_client import LambdaClient, ModernClient, build_handler
from tests.support.secrets import StaticSecrets

from businesses.{name} import BUSINESS
from mcp_lambda.settings import Settings

KEY = "test-stock-key"
MANIFESTS = Path(__file__).resolve().parents[2] / "manifest"


@pytest.fixture
def stock() -> Iterator[FakeService]:
    with fake_service() as service:
        service.routes["/stock/i-001"] = lambda request: (200, {{"quantity": 7}})
        service.routes["/stock/i-002"] = lambda request: (200, {{"quantity": 0}})
        service.routes["/stock/i-999"] = lambda request: (404, {{"message": "unknown item"}})
        yield service


@pytest.fixture
def client(stock: FakeService) -> ModernClient:
    secrets = StaticSecrets({{"{name}_stock_url": stock.url, "{name}_stock_key": KEY}})
    settings = Settings(business="{name}", manifest_dir=str(MANIFESTS))
    return ModernClient(LambdaClient(build_handler(BUSINESS, settings, secrets=secrets)))


def test_check_stock_asks_the_stock_service_with_the_key(client: ModernClient, stock: FakeService) -> None:
    reply = client.call_tool("check_stock", {{"item_id": "i-001"}})

    assert reply.result["structuredContent"] == {{"item_id": "i-001", "in_stock": True, "quantity": 7}}
    assert stock.seen[0].path == "/stock/i-001"
    assert stock.seen[0].headers["authorization"] == f"Bearer {{KEY}}"
    assert KEY.encode() not in reply.raw


def test_an_item_the_service_does_not_know_is_40401(client: ModernClient) -> None:
    structured = client.call_tool("check_stock", {{"item_id": "i-999"}}).result["structuredContent"]
    assert structured["code"] == 40401 and structured["suggested_action"] == "ask_user"


def test_a_failing_stock_service_is_a_retryable_50300(client: ModernClient, stock: FakeService) -> None:
    stock.statuses = [503, 503, 503]  # every attempt of the (idempotent, so retried) GET
    structured = client.call_tool("check_stock", {{"item_id": "i-002"}}).result["structuredContent"]
    assert structured["code"] == 50300 and structured["retryable"] is True
'''

ITEMS = '''"""{title} tools. Replace the sample catalogue with calls to your own systems."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcp_lambda.tools import ToolContext, ToolResult, business_error, entities, execution_result, tool

CATALOGUE: list[dict[str, Any]] = [
    {{"item_id": "i-001", "name": "Sample item one", "price_yuan": 10}},
    {{"item_id": "i-002", "name": "Sample item two", "price_yuan": 25}},
]
ITEM_IDS = Literal["i-001", "i-002"]


@tool(
    description=(
        "Use when the user wants to find items by keyword. Shows a list card the model may narrow. "
        "Not for saving an item (use save_item)."
    ),
    title="Find items",
    read_only=True,
    open_world=False,
    safe_fields=("keyword",),
)
def find_items(
    keyword: Annotated[
        str, Field(min_length=1, max_length=40, description="Words to look for in item names.")
    ],
    ctx: ToolContext,
) -> ToolResult:
    found = [item for item in CATALOGUE if keyword.lower() in item["name"].lower()]
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
    read_only=False,
    idempotent=True,
    safe_fields=("item_id",),
)
def save_item(item_id: Annotated[ITEM_IDS, Field(description="An item_id from find_items.")]) -> ToolResult:
    if not any(item["item_id"] == item_id for item in CATALOGUE):
        return business_error(40401, "no item with that id")
    return execution_result({{"success": True, "message": f"Saved {{item_id}}."}}, text=f"Saved {{item_id}}.")
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
    test = root / "tests" / "unit" / f"test_business_{name}.py"
    for path in (package, manifest, test):
        if path.exists():
            raise SystemExit(f"new-business: {path.relative_to(root)} already exists; nothing written")
    title = name.replace("_", " ").capitalize()
    files = {
        package / "__init__.py": INIT.format(name=name, title=title),
        package / "items.py": ITEMS.format(title=title),
        package / "stock.py": STOCK.format(name=name, title=title),
        manifest: MANIFEST.format(name=name),
        test: STOCK_TEST.format(name=name),
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
        f"next: make manifest-lint MANIFEST=manifest/{args.name}.yaml && "
        f".venv/bin/python -m pytest tests/unit/test_business_{args.name}.py && make run BUSINESS={args.name}"
    )


if __name__ == "__main__":
    sys.exit(main())
