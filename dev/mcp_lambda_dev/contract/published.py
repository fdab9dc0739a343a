"""What a business publishes to agents, as one JSON document: its `tools/list` in each era, its manifest, its
skills index and its version. `make contract-diff` runs this file in a checkout of each side it compares.

Self-contained on purpose: it is run as a script (`python published.py <business> <out.json>`) with the
PYTHONPATH of the checkout it describes, so it imports only that checkout's framework (`mcp_lambda`) and business;
it writes the contract to the file (stdout carries the server's log lines).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# A session era (what the Doubao platform speaks) and the stateless one: each publishes its own tools/list.
ERAS = ("2025-11-25", "2026-07-28")
SKILLS_CAPABILITIES: dict[str, Any] = {"extensions": {"io.modelcontextprotocol/skills": {}}}


def published_contract(name: str) -> dict[str, Any]:
    """The contract of business `name` as this interpreter's checkout builds it.

    Args:
        name: The business package name.

    Returns:
        `{"business", "version", "eras": {era: {tool: entry}}, "manifest", "skills": {uri: frontmatter}}`.
    """
    import yaml

    from mcp_lambda.composition import load_business
    from mcp_lambda.manifest import locate
    from mcp_lambda.testing import McpTestClient

    business = load_business(name)
    eras: dict[str, dict[str, Any]] = {}
    skills: dict[str, Any] = {}
    for era in ERAS:
        with McpTestClient(business, era, oracle=False) as client:
            eras[era] = {tool["name"]: dict(tool) for tool in client.list_tools()}
            if era == ERAS[-1]:
                body = client.rpc("skills/list", capabilities=SKILLS_CAPABILITIES).body
                listed = body.get("result", {}).get("skills", []) if isinstance(body, dict) else []
                skills = {entry["uri"]: entry.get("frontmatter", {}) for entry in listed}
    manifest = None
    for folder in locate.DEFAULT_MANIFEST_DIRS:
        path = Path(folder) / f"{name}.yaml"
        if path.is_file():
            manifest = yaml.safe_load(path.read_text("utf-8"))
            break
    return {
        "business": name,
        "version": business.version,
        "eras": eras,
        "manifest": manifest,
        "skills": skills,
    }


if __name__ == "__main__":
    contract = published_contract(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(contract, ensure_ascii=False, sort_keys=True), "utf-8")
