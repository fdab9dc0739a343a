"""`make contract-diff`: every change of a business's published contract is classified breaking or compatible,
and a breaking one fails unless the business raised its major version — the rules on contracts, then the
command on a real git history (a copy of this checkout, one commit, then an edit)."""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda_dev.contract.diff import BREAKING, COMPATIBLE, Change, compare, verdict

ROOT = Path(__file__).resolve().parents[2]
ERA = "2026-07-28"
BASE: dict[str, Any] = {
    "business": "shop",
    "version": "1.2.0",
    "eras": {
        ERA: {
            "search": {
                "name": "search",
                "description": "Use when searching.",
                "inputSchema": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "keyword": {"type": "string", "maxLength": 40},
                        "sort": {"type": "string", "enum": ["price", "rating"]},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                    },
                    "required": ["keyword"],
                },
            },
            "subscribe": {"name": "subscribe", "inputSchema": {"type": "object", "properties": {}}},
        }
    },
    "manifest": {
        "tools": {"search": {"output": {"kind": "entities", "entity_types": ["product", "bundle"]}}},
        "entities": {
            "product": {"schema": {"product_id": {"type": "string"}, "price": {"type": "int"}}},
            "bundle": {"schema": {"bundle_id": {"type": "string"}}},
        },
    },
    "skills": {"skill://shop/SKILL.md": {"name": "shop"}},
}


def _changed(edit: Any) -> list[Change]:
    head = copy.deepcopy(BASE)
    edit(head)
    return compare(BASE, head)


def _search(contract: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = contract["eras"][ERA]["search"]["inputSchema"]
    return schema


@pytest.mark.parametrize(
    ("edit", "where", "what"),
    [
        (lambda c: c["eras"][ERA].pop("subscribe"), "subscribe", "tool removed (or renamed)"),
        (lambda c: _search(c)["required"].append("sort"), "search.sort", "argument made required"),
        (
            lambda c: (
                _search(c)["properties"].update(region={"type": "string"})
                or _search(c)["required"].append("region")
            ),
            "search.region",
            "new required argument",
        ),
        (lambda c: _search(c)["properties"].pop("limit"), "search.limit", "argument removed"),
        (
            lambda c: _search(c)["properties"]["sort"]["enum"].remove("rating"),
            "search.sort",
            "enum value removed",
        ),
        (
            lambda c: _search(c)["properties"]["limit"].update(maximum=5),
            "search.limit",
            "argument narrowed: maximum",
        ),
        (
            lambda c: _search(c)["properties"]["keyword"].update(type="integer"),
            "search.keyword",
            "argument narrowed: type",
        ),
        (
            lambda c: c["manifest"]["entities"]["product"]["schema"].pop("price"),
            "entities.product.price",
            "output field removed",
        ),
        (
            lambda c: c["manifest"]["entities"]["product"]["schema"]["price"].update(llm_visible=False),
            "entities.product.price",
            "a model-visible field hidden",
        ),
        (lambda c: c["manifest"]["entities"].pop("bundle"), "entities.bundle", "entity type removed"),
        (lambda c: c["skills"].clear(), "skill://shop/SKILL.md", "skill removed"),
    ],
)
def test_a_breaking_change_is_classified_breaking(edit: Any, where: str, what: str) -> None:
    changes = _changed(edit)
    assert any(c.kind == BREAKING and c.where == where and c.what.startswith(what) for c in changes), changes
    assert not verdict(BASE, {**BASE, "version": "1.9.0"}, changes)
    assert verdict(BASE, {**BASE, "version": "2.0.0"}, changes)  # the major version was raised


@pytest.mark.parametrize(
    ("edit", "where", "what"),
    [
        (lambda c: c["eras"][ERA].update(extra={"name": "extra"}), "extra", "tool added"),
        (
            lambda c: _search(c)["properties"].update(page={"type": "integer"}),
            "search.page",
            "optional argument added",
        ),
        (lambda c: _search(c)["properties"]["sort"]["enum"].append("new"), "search.sort", "enum value added"),
        (
            lambda c: _search(c)["properties"]["limit"].update(maximum=50),
            "search.limit",
            "argument widened: maximum",
        ),
        (lambda c: c["eras"][ERA]["search"].update(description="Use when."), "search", "description changed"),
        (
            lambda c: c["manifest"]["entities"]["product"]["schema"].update(sku={"type": "string"}),
            "entities.product.sku",
            "output field added",
        ),
    ],
)
def test_a_compatible_change_is_classified_compatible(edit: Any, where: str, what: str) -> None:
    changes = _changed(edit)
    assert [(c.kind, c.where) for c in changes] == [(COMPATIBLE, where)], changes
    assert changes[0].what.startswith(what) and verdict(BASE, BASE, changes)


def test_no_change_is_no_change_and_a_new_business_is_compatible() -> None:
    assert compare(BASE, copy.deepcopy(BASE)) == []
    assert compare(None, BASE) == [Change(COMPATIBLE, "business", "added")]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _diff(repo: Path) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        str(ROOT / "scripts" / "contract_diff.py"),
        "demo",
        "--base",
        "HEAD",
        "--root",
        str(repo),
    ]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)


def test_the_command_fails_a_breaking_edit_until_the_major_version_is_raised(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for part in ("src", "dev", "manifest"):
        shutil.copytree(ROOT / part, repo / part, ignore=shutil.ignore_patterns("__pycache__", "_*.json"))
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "release")

    unchanged = _diff(repo)
    assert unchanged.returncode == 0, unchanged.stderr
    assert "0 change(s), 0 breaking" in unchanged.stdout

    products = repo / "src" / "businesses" / "demo" / "products.py"
    source = products.read_text("utf-8")
    products.write_text(source.replace('"price_desc", "rating"]', '"price_desc"]'), "utf-8")
    broken = _diff(repo)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "BREAKING   search_products.sort: enum value removed: ['rating']" in broken.stdout
    assert "raise the business's major version" in broken.stderr

    package = repo / "src" / "businesses" / "demo" / "__init__.py"
    package.write_text(package.read_text("utf-8").replace('version="0.2.0"', 'version="1.0.0"'), "utf-8")
    released = _diff(repo)
    assert released.returncode == 0, released.stdout + released.stderr
    assert "the major version was raised" in released.stdout
