"""`make new-business NAME=shop`: scaffold a business that starts, lints and passes its manifest check.

Writes src/businesses/<name>/ (an explicit tool list, one entities tool, one execution_result tool) and
manifest/<name>.yaml. Refuses to overwrite anything.
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

BUSINESS = Business(
    name="{name}",
    title="{title}",
    version="0.1.0",
    instructions="Find items (find_items) and save one for later (save_item).",
    tools=[find_items, save_item],
)
'''

ITEMS = '''"""{title} tools. Replace the sample catalogue with calls to your own systems."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mcp_lambda.tools import ToolContext, ToolResult, business_error, entities, execution_result, tool

CATALOGUE = [
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
    keyword: Annotated[str, Field(min_length=1, max_length=40, description="Words to look for in item names.")],
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
    for path in (package, manifest):
        if path.exists():
            raise SystemExit(f"new-business: {path.relative_to(root)} already exists; nothing written")
    title = name.replace("_", " ").capitalize()
    files = {
        package / "__init__.py": INIT.format(name=name, title=title),
        package / "items.py": ITEMS.format(title=title),
        manifest: MANIFEST.format(name=name),
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
    print(f"next: make manifest-lint MANIFEST=manifest/{args.name}.yaml && make run BUSINESS={args.name}")


if __name__ == "__main__":
    sys.exit(main())
