"""Clients nobody here wrote load the demo's skills: the official conformance suite's three `sep-2640` scenarios
(every check run), the official MCP Python client (mcp 2.x) over HTTP from the `make run` server and over stdio,
FastMCP's client (4.2, which verifies every file it reads), and the Inspector CLI's skill verification
(`--verify --require-digests`).

Its released version has no skills API: `skills/list` and `skills/get` go through its generic request API
(`client.session.send_request`), the files through its own `read_resource`, and the digests are checked against
the bytes it received, as a host must before loading a skill (SEP-2640 §Integrity).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import Client
from mcp import types as mcp_types
from pydantic import TypeAdapter
from tests.interop.test_conformance import RUNNER
from tests.interop.test_stdio import INSPECTOR, desktop_params

pytestmark = pytest.mark.interop

EXTENSION = "io.modelcontextprotocol/skills"
DEMO_SKILLS = Path(__file__).resolve().parents[2] / "src" / "businesses" / "demo" / "skills"
ANY_OBJECT = TypeAdapter(dict[str, Any])


class SkillUri(mcp_types.RequestParams):
    """`skills/get`'s params (the SDK's typed request API: a Request with a params model of its own)."""

    uri: str


class ListSkills(mcp_types.Request[mcp_types.PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: mcp_types.PaginatedRequestParams | None = None


class GetSkill(mcp_types.Request[SkillUri, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: SkillUri


async def _request(client: Client, request: ListSkills | GetSkill) -> dict[str, Any]:
    result: dict[str, Any] = await client.session.send_request(request, ANY_OBJECT)
    return result


def _bytes_of(content: Any) -> bytes:
    text = getattr(content, "text", None)
    return text.encode() if text is not None else base64.b64decode(content.blob)


async def _load_skills(server: Any, mode: str) -> dict[str, Any]:
    async with Client(server, mode=mode) as client:
        capabilities = client.server_capabilities
        listing = await _request(client, ListSkills())
        verified: dict[str, str] = {}
        for entry in listing["skills"]:
            for item in entry["resources"]:
                read = await client.read_resource(item["uri"])
                data = _bytes_of(read.contents[0])
                assert item["digest"] == "sha256:" + hashlib.sha256(data).hexdigest(), item["uri"]
                assert item["size"] == len(data)
                verified[item["uri"]] = read.contents[0].mime_type
        again = await _request(client, GetSkill(params=SkillUri(uri=listing["skills"][0]["uri"])))
        return {
            "version": client.protocol_version,
            "capabilities": capabilities,
            "listing": listing,
            "verified": verified,
            "again": again,
        }


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_the_official_client_lists_reads_and_verifies_the_demo_skills(
    server_url: str, transport: str, tmp_path: Path
) -> None:
    # auto: server/discover first (so the client knows the server's capabilities), then 2026-07-28.
    server = server_url if transport == "http" else desktop_params(tmp_path)
    seen = asyncio.run(asyncio.wait_for(_load_skills(server, "auto"), timeout=30))
    assert seen["version"] == "2026-07-28"
    extensions = seen["capabilities"].extensions or {}
    assert extensions[EXTENSION] == {"directoryRead": True}
    names = [entry["frontmatter"]["name"] for entry in seen["listing"]["skills"]]
    assert names == ["plan-a-day-out", "shop-with-alerts"]
    assert seen["verified"]["skill://shop-with-alerts/SKILL.md"] == "text/markdown"
    assert len(seen["verified"]) == 3
    assert seen["again"]["skill"] == seen["listing"]["skills"][0]


def test_a_legacy_session_of_the_official_client_reads_the_skill_files_as_resources(server_url: str) -> None:
    async def session() -> tuple[str, list[str], str]:
        async with Client(server_url, mode="legacy") as client:
            listed = await client.list_resources()
            read = await client.read_resource("skill://plan-a-day-out/SKILL.md")
            return client.protocol_version, [str(r.uri) for r in listed.resources], read.contents[0].text

    version, uris, text = asyncio.run(asyncio.wait_for(session(), timeout=30))
    assert version == "2025-11-25"
    assert "skill://plan-a-day-out/SKILL.md" in uris
    assert text.startswith("---\nname: plan-a-day-out\n")


@pytest.mark.parametrize("era", [[], ["--protocol-era", "modern"]], ids=["default-2025-11-25", "modern"])
def test_the_inspector_verifies_every_served_skill(server_url: str, era: list[str]) -> None:
    # By default the Inspector opens a 2025-11-25 session and finds the extension in the initialize result.
    command = [str(INSPECTOR), server_url, "--transport", "http", *era]
    command += ["--method", "skills/list", "--verify", "--require-digests"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Verified 2 skills and 3 files: no conformance errors." in done.stdout + done.stderr
    assert done.stdout.count('"outcome":"verified"') == 2


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "scenario", ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]
)
def test_the_conformance_suites_skills_scenarios_pass_against_the_demo(
    server_url: str, scenario: str, tmp_path: Path
) -> None:
    # Extension scenarios are on no revision's timeline: --force runs them at 2026-07-28.
    command = [str(RUNNER), server_url, "2026-07-28", str(tmp_path), "--scenario", scenario, "--force"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    (results,) = tmp_path.glob(f"server-{scenario}-*/checks.json")
    checks = json.loads(results.read_text())
    assert len(checks) >= 6
    assert {check["status"] for check in checks} == {"SUCCESS"}, [
        (check["id"], check["status"]) for check in checks if check["status"] != "SUCCESS"
    ]


def test_fastmcps_client_lists_and_reads_the_demo_skills_verifying_every_file(server_url: str) -> None:
    # FastMCP 4.2's released client speaks the extension: read_skill fetches every file and checks its digest.
    from fastmcp import Client as FastMcpClient
    from fastmcp.skills.client import SkillsClientExtension

    async def load() -> tuple[list[Any], Any, Any]:
        async with FastMcpClient(server_url, extensions=[SkillsClientExtension()]) as client:
            listed = await client.list_skills()
            entry = await client.get_skill(listed[1].uri)
            skill = await client.read_skill(listed[0].uri)
            return listed, entry, skill

    listed, entry, skill = asyncio.run(asyncio.wait_for(load(), timeout=60))
    assert [str(item.uri) for item in listed] == [
        "skill://plan-a-day-out/SKILL.md",
        "skill://shop-with-alerts/SKILL.md",
    ]
    assert entry.frontmatter.name == "shop-with-alerts"
    assert skill.name == "plan-a-day-out" and set(skill.files) == {"SKILL.md", "references/places.md"}
    assert (
        skill.files["references/places.md"]
        == (DEMO_SKILLS / "plan-a-day-out/references/places.md").read_bytes()
    )
