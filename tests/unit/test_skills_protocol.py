"""The Skills extension (SEP-2640) as the demo serves it: declared at 2026-07-28, entries whose digests and sizes
match the bytes resources/read returns, directories, -32602 for what is not served, plain resources at 2025-11-25."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.handlers import build_handler
from tests.support.task_business import TASK_BUSINESS
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.composition import load_business
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient

EXTENSION = "io.modelcontextprotocol/skills"
DEMO_SKILLS = ["skill://plan-a-day-out/SKILL.md", "skill://shop-with-alerts/SKILL.md"]


@pytest.fixture(scope="module")
def demo_client() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(load_business("demo"), Settings(business="demo")))


@pytest.fixture
def demo(demo_client: McpTestClient) -> McpTestClient:
    return demo_client.clone(era=MODERN, capabilities={})


def _bytes_of(content: dict[str, Any]) -> bytes:
    return content["text"].encode() if "text" in content else base64.b64decode(content["blob"])


def test_the_demo_declares_the_extension_with_directory_read(demo: McpTestClient) -> None:
    capabilities = demo.rpc("server/discover").result["capabilities"]
    assert capabilities["extensions"][EXTENSION] == {"directoryRead": True}
    assert "resources" in capabilities


def test_a_business_without_skills_declares_no_skills_extension(modern: McpTestClient) -> None:
    capabilities = modern.rpc("server/discover").result["capabilities"]
    assert EXTENSION not in capabilities.get("extensions", {})
    assert modern.rpc("skills/list").error["code"] == -32601


def test_skills_list_answers_complete_entries_with_cache_attributes(demo: McpTestClient) -> None:
    result = demo.rpc("skills/list").result
    assert [entry["uri"] for entry in result["skills"]] == DEMO_SKILLS
    assert isinstance(result["ttlMs"], int) and result["cacheScope"] == "public"
    entry = result["skills"][0]
    assert entry["frontmatter"]["name"] == "plan-a-day-out"
    assert entry["frontmatter"]["metadata"] == {"business": "demo"}
    uris = [item["uri"] for item in entry["resources"]]
    assert uris == ["skill://plan-a-day-out/SKILL.md", "skill://plan-a-day-out/references/places.md"]


def test_every_digest_and_size_matches_the_bytes_resources_read_returns(demo: McpTestClient) -> None:
    checked = 0
    for entry in demo.rpc("skills/list").result["skills"]:
        for item in entry["resources"]:
            reply = demo.rpc("resources/read", {"uri": item["uri"]})
            (content,) = reply.result["contents"]
            data = _bytes_of(content)
            assert item["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert item["size"] == len(data)
            checked += 1
    assert checked == 3


def test_the_frontmatter_is_the_files_own(demo: McpTestClient) -> None:
    import yaml

    entry = demo.rpc("skills/get", {"uri": DEMO_SKILLS[1]}).result["skill"]
    text = demo.rpc("resources/read", {"uri": DEMO_SKILLS[1]}).result["contents"][0]["text"]
    assert entry["frontmatter"] == yaml.safe_load(text.split("---")[1])


def test_skill_md_is_markdown_listed_with_its_name_and_description(demo: McpTestClient) -> None:
    reply = demo.rpc("resources/read", {"uri": DEMO_SKILLS[0]})
    assert reply.result["contents"][0]["mimeType"] == "text/markdown"
    listed = {r["uri"]: r for r in demo.rpc("resources/list").result["resources"]}
    assert listed[DEMO_SKILLS[0]]["name"] == "plan-a-day-out"
    assert listed[DEMO_SKILLS[0]]["description"].startswith("Plan getting around Beijing")


def test_skills_get_returns_one_entry_without_a_cursor(demo: McpTestClient) -> None:
    result = demo.rpc("skills/get", {"uri": DEMO_SKILLS[0]}).result
    assert result["skill"]["uri"] == DEMO_SKILLS[0]
    assert "nextCursor" not in result and isinstance(result["ttlMs"], int)


@pytest.mark.parametrize(
    ("method", "uri"),
    [
        ("skills/get", "skill://no-such-skill/SKILL.md"),
        ("skills/get", "skill://plan-a-day-out/references/places.md"),  # a file, not a skill
        ("resources/read", "skill://plan-a-day-out/references/missing.md"),
        ("resources/directory/read", "skill://plan-a-day-out/SKILL.md"),  # a file, not a directory
        ("resources/directory/read", "skill://no-such-skill"),
    ],
)
def test_what_is_not_served_is_invalid_params(demo: McpTestClient, method: str, uri: str) -> None:
    reply = demo.rpc(method, {"uri": uri})
    assert reply.status == 400
    assert reply.error["code"] == -32602


def test_skills_get_without_a_uri_is_invalid_params(demo: McpTestClient) -> None:
    assert demo.rpc("skills/get", {}).error["code"] == -32602


def test_directory_read_lists_direct_children_and_subdirectories(demo: McpTestClient) -> None:
    root = demo.rpc("resources/directory/read", {"uri": "skill://plan-a-day-out"}).result
    assert [(r["uri"], r["mimeType"]) for r in root["resources"]] == [
        ("skill://plan-a-day-out/SKILL.md", "text/markdown"),
        ("skill://plan-a-day-out/references", "inode/directory"),
    ]
    sub = demo.rpc("resources/directory/read", {"uri": "skill://plan-a-day-out/references"}).result
    assert [r["uri"] for r in sub["resources"]] == ["skill://plan-a-day-out/references/places.md"]


def test_skills_list_pages_whole_entries() -> None:
    client = McpTestClient.over_handler(
        build_handler(load_business("demo"), Settings(business="demo", tools_page_size=1))
    )
    modern = client.clone(era=MODERN, capabilities={})
    first = modern.rpc("skills/list").result
    second = modern.rpc("skills/list", {"cursor": first["nextCursor"]}).result
    assert [e["uri"] for e in first["skills"] + second["skills"]] == DEMO_SKILLS
    assert "nextCursor" not in second
    assert modern.rpc("skills/list", {"cursor": "not-ours"}).error["code"] == -32602


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-11-25"])
def test_a_session_initialize_declares_the_extensions_it_serves(
    demo_client: McpTestClient, revision: str
) -> None:
    ui = {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}
    plain = demo_client.clone(era=revision).initialize().result["capabilities"]
    assert plain["extensions"] == {EXTENSION: {"directoryRead": True}}  # no views for a client without them
    host = demo_client.clone(era=revision).initialize(capabilities=ui).result["capabilities"]
    assert host["extensions"] == {
        EXTENSION: {"directoryRead": True},
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
    }


def test_a_business_without_skills_or_views_declares_no_extensions() -> None:
    client = McpTestClient.over_handler(build_handler(TASK_BUSINESS))
    capabilities = client.clone(era="2025-11-25").initialize().result["capabilities"]
    assert "extensions" not in capabilities


def test_a_session_client_gets_the_skill_files_as_plain_resources(demo_client: McpTestClient) -> None:
    session = demo_client.clone(era="2025-11-25")
    reply = session.initialize()
    capabilities = reply.result["capabilities"]
    assert "resources" in capabilities
    listed = [r["uri"] for r in session.rpc("resources/list").result["resources"]]
    assert DEMO_SKILLS[0] in listed and DEMO_SKILLS[1] in listed
    text = session.rpc("resources/read", {"uri": DEMO_SKILLS[1]}).result["contents"][0]["text"]
    assert text.startswith("---\nname: shop-with-alerts\n")
    # Undeclared there, the methods still answer a client that tries them (no ttlMs before 2026-07-28).
    listing = session.rpc("skills/list").result
    assert [entry["uri"] for entry in listing["skills"]] == DEMO_SKILLS and "ttlMs" not in listing


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
_URIS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["skill://", "skill://plan-a-day-out", "skill://plan-a-day-out/", "skill://../SKILL.md"]
    ).flatmap(lambda prefix: st.text(max_size=20).map(lambda rest: prefix + rest)),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    method=st.sampled_from(["skills/list", "skills/get", "resources/directory/read", "resources/read"]),
    uri=st.one_of(_URIS, _JSON),
    cursor=st.one_of(st.none(), _JSON),
)
def test_hostile_params_get_a_precise_error_never_a_5xx(
    demo: McpTestClient, method: str, uri: Any, cursor: Any
) -> None:
    params = {"uri": uri} if cursor is None else {"uri": uri, "cursor": cursor}
    headers = (
        {"mcp_name": uri} if method == "resources/read" and isinstance(uri, str) and uri.isascii() else {}
    )
    reply = demo.post(
        modern_request(method, params, 7),
        {**modern_headers(method), **{k.replace("_", "-"): v for k, v in headers.items()}},
        oracle=False,
    )
    assert reply.status < 500, reply.raw
    body = reply.body
    if "error" in body:
        assert body["error"]["code"] in (-32602, -32020), body
