"""The simulator page shows a business's skills beside its tools (SEP-2640): listed from skills/list, and a click
shows the SKILL.md as served with each file's size and digest."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from tests.simulator.test_browser import Page

pytestmark = pytest.mark.browser

DEMO_SKILLS = Path(__file__).resolve().parents[2] / "src" / "businesses" / "demo" / "skills"


def test_the_demo_skills_are_listed_beside_its_tools_and_readable(
    browser: Any, demo_url: str, screenshots: Path
) -> None:
    page = Page(browser, demo_url, screenshots)
    try:
        # The 7 tools a model sees, and the app-only refresh_route the page calls as a view would.
        page.expect(page.page.locator("#status")).to_contain_text("8 tools, 2 skills")
        page.expect(page.page.locator("button[data-tool='refresh_route']")).to_contain_text("app-only")
        buttons = page.page.locator("#skill-list button")
        page.expect(buttons).to_have_count(2)
        page.expect(buttons.first).to_contain_text("plan-a-day-out")
        page.page.locator("button[data-skill='shop-with-alerts']").click()
        page.expect(page.page.locator("#tool-heading")).to_contain_text("shop-with-alerts")
        served = (DEMO_SKILLS / "shop-with-alerts" / "SKILL.md").read_text()
        page.expect(page.page.locator(".skill-text")).to_have_text(served)
        digest = "sha256:" + hashlib.sha256(served.encode()).hexdigest()
        page.expect(page.page.locator(".skill-files")).to_contain_text(digest)
        page.shot("skill")
        # Back to a tool: the skill view gives way to the tool's form.
        page.pick("search_products")
    finally:
        page.close()


def test_a_legacy_session_lists_the_skills_its_initialize_declares(
    browser: Any, demo_url: str, screenshots: Path
) -> None:
    page = Page(browser, demo_url, screenshots)
    try:
        page.page.locator("#mode").select_option("2025-11-25")
        page.page.get_by_role("button", name="Reconnect").click()
        # The 7 tools, the 2 job tools of a session (export_trip_plan runs as a job) and the app-only one.
        page.expect(page.page.locator("#status")).to_contain_text(
            "Connected at 2025-11-25: 10 tools, 2 skills"
        )
        page.expect(page.page.locator("#skill-list button")).to_have_count(2)
    finally:
        page.close()
