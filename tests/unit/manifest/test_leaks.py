"""The leak check's rule (docs/manifest.md, "The leak check"): hidden numbers in their usual renderings, short
strings, case variants, every string of the content a model reads, and the guard against false positives."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_lambda.manifest import parse_manifest
from mcp_lambda.manifest.leaks import leaked_fields, number_renderings, significant_digits
from mcp_lambda.manifest.models import Manifest
from mcp_lambda.tools import ToolResult, entities

MANIFEST = """
tools:
  show: {output: {kind: entities, entity_types: [account]}}
entities:
  account:
    schema:
      account_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      name: {type: string}
      score: {type: float, llm_visible: false}
      count: {type: int, llm_visible: false}
      code: {type: string, llm_visible: false}
      visits: {type: int}
      balance: {type: int, requires_scope: "accounts:balance"}
"""
ACCOUNT = {"account_id": "a-1", "entity_type": "account", "name": "Blue Shop", "score": 0.8731, "count": 42,
           "code": "QX7K", "visits": 310, "balance": 12345}  # fmt: skip


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> Manifest:
    path = tmp_path_factory.mktemp("leaks") / "probe.yaml"
    path.write_text(MANIFEST)
    parsed, problems = parse_manifest(path)
    assert problems == []
    return parsed


def _leaks(manifest: Manifest, text: str, scopes: frozenset[str] = frozenset(), **extra: Any) -> list[str]:
    result = entities([{**ACCOUNT, **extra}], text=text, append_projection=False)
    return leaked_fields(manifest, "show", result, scopes)


@pytest.mark.parametrize("text", ["Risk 0.8731.", "Risk 87.31%.", "Risk 8731 bp.", "Risk 8,731.", "Risk .8731",
                                  "Risk 87.3%."])  # fmt: skip
def test_a_hidden_number_leaks_in_its_usual_renderings(manifest: Manifest, text: str) -> None:
    assert _leaks(manifest, text) == ["entities[0].score"]


@pytest.mark.parametrize("text", ["Risk 87%.", "Risk 0.87.", "Account 18731.", "Visited 310 times."])
def test_other_numbers_are_not_the_hidden_one(manifest: Manifest, text: str) -> None:
    # Two significant digits are too common; a longer number is another number; a visible number is shown anyway.
    assert _leaks(manifest, text) == []


def test_a_hidden_number_with_fewer_than_three_significant_digits_is_not_checked(manifest: Manifest) -> None:
    assert _leaks(manifest, "42 of them.") == [] and number_renderings(42) == frozenset()


def test_a_hidden_number_the_model_is_shown_elsewhere_is_no_leak(manifest: Manifest) -> None:
    assert _leaks(manifest, "Risk 87.31%.", name="Shop 8731") == []


@pytest.mark.parametrize("text", ["Code QX7K.", "code qx7k", "(Qx7k)"])
def test_a_short_hidden_string_leaks_in_any_case(manifest: Manifest, text: str) -> None:
    assert _leaks(manifest, text) == ["entities[0].code"]


def test_a_hidden_string_inside_a_longer_word_is_not_a_match(manifest: Manifest) -> None:
    assert _leaks(manifest, "See QX7KB and AQX7K.") == []


def test_a_field_the_caller_lacks_the_scope_for_is_hidden_from_it(manifest: Manifest) -> None:
    assert _leaks(manifest, "Balance 12,345.") == ["entities[0].balance"]
    assert _leaks(manifest, "Balance 12,345.", frozenset({"accounts:balance"})) == []


def test_every_string_the_model_reads_is_checked_not_only_text_blocks(manifest: Manifest) -> None:
    link = {"type": "resource_link", "uri": "https://x.example/a", "name": "qx7k report", "data": "QX7K"}
    result = ToolResult(content=[link], structured_content={"entities": [ACCOUNT]})
    assert leaked_fields(manifest, "show", result) == ["entities[0].code"]


def test_significant_digits_ignore_scale_and_separators() -> None:
    assert {significant_digits(n) for n in ("0.8731", "87.31", "8,731", "8731", "0.87310")} == {"8731"}
    assert number_renderings(0.8731) == frozenset({"8731", "873"})
    assert number_renderings(1e-05) == frozenset()  # one significant digit
