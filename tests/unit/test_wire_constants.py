"""The protocol's constant tables equal the official ones, so they cannot drift; and the official packages stay
out of the Lambda process (importing them costs ~170 ms of cold start, so our tables are copies, pinned here).

Sources, in order of preference:
- `mcp_types` (the official wire types): error codes (`mcp_types.jsonrpc`), revisions (`mcp_types.version`),
  cacheable methods (`mcp_types.methods.CACHEABLE_METHODS`, derived there from the result types that inherit
  `CacheableResult`, i.e. carry `ttlMs`/`cacheScope`), the per-code error models of the 2026-07-28 schema
  (`code: Literal[...]`), and the headerless default revision (`DEFAULT_NEGOTIATED_VERSION`).
- the official SDK `mcp`, which defines what `mcp_types` does not: `mcp.shared.inbound.NAME_BEARING_METHODS`
  (the params field mirrored in `Mcp-Name`, shared by its client and server) and
  `mcp.shared.inbound.ERROR_CODE_HTTP_STATUS` (the HTTP status of a JSON-RPC error on the 2026-07-28 path, the
  table its `_streamable_http_modern._write` consults).
- the spec text, for what neither package encodes: which revision accepts JSON-RPC batches, the legacy
  resource-not-found code, and the implementation-defined code band our session codes live in. Those facts are
  data in tests/fixtures/spec/mcp-wire-facts.json, each with the spec repository's file it was read from and the
  commit.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import mcp_types
import pytest
from mcp.shared import inbound
from mcp_types import _v2026_07_28 as modern_types
from mcp_types import jsonrpc as official
from mcp_types import methods, version

from mcp_lambda import wire

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_FACTS = json.loads(
    (REPO_ROOT / "tests" / "fixtures" / "spec" / "mcp-wire-facts.json").read_text("utf-8")
)

# Our name -> the official name, for every error code both define.
SHARED_CODES = {
    "PARSE_ERROR": "PARSE_ERROR",
    "INVALID_REQUEST": "INVALID_REQUEST",
    "METHOD_NOT_FOUND": "METHOD_NOT_FOUND",
    "INVALID_PARAMS": "INVALID_PARAMS",
    "INTERNAL_ERROR": "INTERNAL_ERROR",
    "HEADER_MISMATCH": "HEADER_MISMATCH",
    "MISSING_CLIENT_CAPABILITY": "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UNSUPPORTED_PROTOCOL_VERSION": "UNSUPPORTED_PROTOCOL_VERSION",
}
# Ours only: implementation-defined (legacy session handling), or the retired legacy resource-not-found code.
OWN_CODES = (
    "SESSION_NOT_FOUND",
    "SERVICE_UNAVAILABLE",
    "RESOURCE_NOT_FOUND",
    "UNAUTHORIZED",
    "INSUFFICIENT_SCOPE",
)
# The official SDK's own allocations in the implementation-defined band; never part of the schema.
SDK_ONLY_CODES = {official.CONNECTION_CLOSED, official.REQUEST_TIMEOUT}


def _our_codes() -> dict[str, int]:
    """Every integer constant of mcp_lambda.wire that looks like an error code."""
    return {
        name: value
        for name, value in vars(wire).items()
        if name.isupper() and isinstance(value, int) and not isinstance(value, bool) and value < 0
    }


def _schema_codes() -> set[int]:
    """The codes the 2026-07-28 schema gives an error model of its own (a `code: Literal[<code>]` field)."""
    codes: set[int] = set()
    for model in vars(modern_types).values():
        field = getattr(model, "model_fields", {}).get("code") if isinstance(model, type) else None
        if field is not None and get_origin(field.annotation) is Literal:
            codes.update(arg for arg in get_args(field.annotation) if isinstance(arg, int))
    return codes


# --- error codes -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ours", "theirs"), sorted(SHARED_CODES.items()))
def test_error_codes_equal_the_official_ones(ours: str, theirs: str) -> None:
    assert getattr(wire, ours) == getattr(official, theirs)


def test_every_error_code_we_define_is_accounted_for() -> None:
    assert set(_our_codes()) == set(SHARED_CODES) | set(OWN_CODES), (
        "a new error code: pin it against mcp_types here (or list it in OWN_CODES with its source)"
    )


def test_every_schema_defined_error_code_is_one_we_know_by_name() -> None:
    # The 2026-07-28 schema's per-code error models: we must define each of them (none is left to a literal).
    schema = _schema_codes()
    assert schema == {official.PARSE_ERROR, official.INVALID_REQUEST, official.METHOD_NOT_FOUND}.union(
        {official.INVALID_PARAMS, official.INTERNAL_ERROR, official.HEADER_MISMATCH},
        {official.MISSING_REQUIRED_CLIENT_CAPABILITY, official.UNSUPPORTED_PROTOCOL_VERSION},
    )
    assert schema <= set(_our_codes().values())


def test_our_own_codes_never_collide_with_a_spec_defined_code() -> None:
    spec_defined = {getattr(official, name) for name in SHARED_CODES.values()} | {
        official.URL_ELICITATION_REQUIRED
    }
    own = {getattr(wire, name) for name in OWN_CODES}
    assert not own & spec_defined
    assert len(set(_our_codes().values())) == len(_our_codes()), "two names for one code"


# --- error code -> HTTP status ---------------------------------------------------------------------------------


def test_http_status_of_code_equals_the_sdk_modern_transport_table() -> None:
    # mcp.shared.inbound.ERROR_CODE_HTTP_STATUS is what the SDK's 2026-07-28 server sends; unmapped -> 200.
    assert dict(inbound.ERROR_CODE_HTTP_STATUS) == wire.HTTP_STATUS_OF_CODE
    assert wire.INTERNAL_ERROR not in wire.HTTP_STATUS_OF_CODE  # -32603 is a 200, as in the SDK


# --- methods ---------------------------------------------------------------------------------------------------


def test_name_bearing_methods_equal_the_sdk_mcp_name_table() -> None:
    # The SDK's client stamps Mcp-Name from, and its server compares Mcp-Name against, exactly these fields.
    assert inbound.MCP_NAME_HEADER == "mcp-name"
    assert dict(inbound.NAME_BEARING_METHODS) == wire.NAME_BEARING_METHODS


def test_cacheable_methods_equal_the_official_ones() -> None:
    # mcp_types derives them from the result types inheriting CacheableResult (the ttlMs/cacheScope fields).
    assert wire.CACHEABLE_METHODS == methods.CACHEABLE_METHODS
    aliases = {field.alias for field in mcp_types.CacheableResult.model_fields.values()}
    assert {"ttlMs", "cacheScope"} <= aliases


# --- revisions -------------------------------------------------------------------------------------------------


def test_versions_equal_the_official_registry() -> None:
    assert wire.LEGACY_REVISIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert wire.MODERN_REVISIONS == version.MODERN_PROTOCOL_VERSIONS
    assert wire.LATEST_LEGACY_REVISION == version.LATEST_HANDSHAKE_VERSION
    assert (*wire.LEGACY_REVISIONS, *wire.MODERN_REVISIONS) == version.KNOWN_PROTOCOL_VERSIONS
    assert wire.REVISIONS == version.KNOWN_PROTOCOL_VERSIONS


@pytest.mark.parametrize("floor", version.KNOWN_PROTOCOL_VERSIONS)
@pytest.mark.parametrize("revision", [*version.KNOWN_PROTOCOL_VERSIONS, "zzz", "2099-01-01", ""])
def test_at_least_answers_as_the_sdk_does(revision: str, floor: str) -> None:
    assert wire.at_least(revision, floor) is version.is_version_at_least(revision, floor)


def test_at_least_refuses_an_unknown_floor() -> None:
    with pytest.raises(ValueError, match="not a known revision"):
        wire.at_least("2025-11-25", "2025-13-01")


# `version >= "2025-06-18"`, `"2025-03-26" < era`: a revision compared as text (ask wire.at_least instead).
DATE_COMPARISON = re.compile(r"""[<>]=?\s*["']\d{4}-\d{2}-\d{2}["']|["']\d{4}-\d{2}-\d{2}["']\s*[<>]""")


def test_no_code_compares_revisions_as_strings() -> None:
    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("src", "dev", "tests", "bench")
        for path in (root / folder).rglob("*.py")
        if path.name != Path(__file__).name
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DATE_COMPARISON.search(line)
    ]
    assert found == []


def test_the_date_comparison_finder_finds_one() -> None:
    assert DATE_COMPARISON.search('    if version >= "2025-06-18":')
    assert not DATE_COMPARISON.search('    version = "2025-06-18"')


def test_the_headerless_version_is_the_sdk_default() -> None:
    # Streamable HTTP: with no MCP-Protocol-Version header a server MAY assume 2025-03-26; the SDK does.
    assert wire.HEADERLESS_REVISION == mcp_types.DEFAULT_NEGOTIATED_VERSION


# --- what only the spec text says (tests/fixtures/spec/mcp-wire-facts.json) ---------------------------------


def _spec_fact(name: str) -> Any:
    """One fact's value; the fixture must name where in the spec repository it was read."""
    fact = SPEC_FACTS[name]
    assert fact["from"], f"{name}: a spec fact without its source"
    return fact["value"]


def test_the_spec_facts_name_their_source() -> None:
    source = SPEC_FACTS["source"]
    assert source["repository"] == "https://github.com/modelcontextprotocol/modelcontextprotocol"
    assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
    revisions = _spec_fact("revisions")
    for name in ("json_rpc_batch", "resource_not_found_code"):
        # One value and one source per revision: a revision added to the fixture cannot come without both.
        assert list(SPEC_FACTS[name]["value"]) == list(SPEC_FACTS[name]["from"]) == revisions, name
        assert all(rev in text for rev, text in SPEC_FACTS[name]["from"].items()), name


def test_the_spec_lists_exactly_our_revisions() -> None:
    assert tuple(_spec_fact("revisions")) == (*wire.LEGACY_REVISIONS, *wire.MODERN_REVISIONS)


def test_batch_versions_are_the_ones_the_spec_makes_accept_batches() -> None:
    batch = _spec_fact("json_rpc_batch")
    assert tuple(rev for rev, rule in batch.items() if rule == "MUST accept") == wire.BATCH_REVISIONS


def test_legacy_resource_not_found_is_the_spec_code() -> None:
    code = _spec_fact("resource_not_found_code")
    assert {code[rev] for rev in wire.LEGACY_REVISIONS} == {wire.RESOURCE_NOT_FOUND}
    assert {code[rev] for rev in wire.MODERN_REVISIONS} == {wire.INVALID_PARAMS}


def test_our_own_codes_live_in_the_implementation_defined_band() -> None:
    bands = _spec_fact("implementation_defined_codes")
    low, high = bands["legacy"]
    spec_low, spec_high = bands["reserved_for_the_spec"]
    assert spec_low <= spec_high < low <= high  # two bands, the spec's below the legacy one
    for code in (
        wire.SESSION_NOT_FOUND,
        wire.SERVICE_UNAVAILABLE,
        wire.UNAUTHORIZED,
        wire.INSUFFICIENT_SCOPE,
    ):
        assert low <= code <= high
        assert code not in _schema_codes()
    assert set(range(low, high + 1)) >= SDK_ONLY_CODES  # the SDK's own codes share the band, never the wire
    # Every code the spec defines in its reserved band is one we know by name.
    assert {c for c in _schema_codes() if spec_low <= c <= spec_high} <= set(_our_codes().values())


# --- not at run time -------------------------------------------------------------------------------------------


def test_the_official_packages_are_not_imported_at_run_time() -> None:
    # The Lambda entry point as deployed (BUSINESS=demo), serving a request of each era.
    script = (
        "import json, sys\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "h = {'content-type': 'application/json', 'accept': 'application/json, text/event-stream'}\n"
        "init = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {'protocolVersion': '2025-11-25',"
        " 'capabilities': {}, 'clientInfo': {'name': 'x', 'version': '1'}}}\n"
        "meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',"
        " 'io.modelcontextprotocol/clientCapabilities': {}}\n"
        "listing = {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list', 'params': {'_meta': meta}}\n"
        "modern = {**h, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list'}\n"
        "statuses = [handler.handler(http_event('POST', '/mcp', headers, json.dumps(body)), LocalContext())"
        "['statusCode'] for headers, body in ((h, init), (modern, listing))]\n"
        "official = sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types'))\n"
        "print(json.dumps({'statuses': statuses, 'official': official}))\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{REPO_ROOT / 'src'}:{REPO_ROOT / 'dev'}:{REPO_ROOT}",
        "BUSINESS": "demo",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"statuses": [200, 200], "official": []}
