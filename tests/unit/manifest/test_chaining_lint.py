"""The lint's chaining warning: a tool whose model-visible projection hides every id another tool takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_lambda.manifest.lint import NO_VISIBLE_ID, chaining_warnings
from mcp_lambda_tools.lint import manifest_lint

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "manifest" / "demo.yaml"
TAKERS = {"search": {"keyword"}, "subscribe": {"product_id", "alert"}}


def _manifest(tmp_path: Path, product_id: str) -> Path:
    path = tmp_path / "shop.yaml"
    path.write_text(
        "tools:\n"
        "  search: {output: {kind: entities, entity_types: [product_list]}}\n"
        "  subscribe: {output: {kind: execution_result}}\n"
        "entities:\n"
        "  product_list:\n"
        "    schema:\n"
        "      list_id: {type: string, is_entity_id: true}\n"
        "      products:\n"
        "        type: array\n"
        "        items:\n"
        "          type: object\n"
        "          properties:\n"
        f"            product_id: {product_id}\n"
        "            name: {type: string}\n",
        encoding="utf-8",
    )
    return path


def test_a_hidden_id_another_tool_takes_is_a_warning_naming_both(tmp_path: Path) -> None:
    path = _manifest(tmp_path, "{type: string, llm_visible: false}")

    [warning] = chaining_warnings(path, TAKERS)
    assert (warning.yaml_path, warning.rule, warning.line) == ("tools.search", NO_VISIBLE_ID, 2)
    assert "product_id (taken by subscribe)" in warning.message


def test_a_visible_id_or_no_taker_is_no_warning(tmp_path: Path) -> None:
    assert chaining_warnings(_manifest(tmp_path, "{type: string}"), TAKERS) == []
    hidden = _manifest(tmp_path, "{type: string, llm_visible: false}")
    assert chaining_warnings(hidden, {"search": {"product_id"}}) == []  # only the tool itself takes it


def test_the_demo_chains_search_products_to_subscribe_product() -> None:
    tools = manifest_lint.registered_tools(DEMO)
    assert tools is not None and "product_id" in tools["subscribe_product"]
    assert chaining_warnings(DEMO, tools) == []


def test_make_manifest_lint_prints_the_warning_and_still_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _manifest(tmp_path, "{type: string, llm_visible: false}")
    monkeypatch.setattr(manifest_lint, "registered_tools", lambda manifest: TAKERS)

    assert manifest_lint.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert f"warning: {path}:tools.search: [{NO_VISIBLE_ID}]" in out
