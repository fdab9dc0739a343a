"""A browser tab on the simulator page (Playwright), shared by the simulator's browser tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class Page:
    """One browser tab on the simulator page, collecting what should never happen (script errors, requests
    to anywhere but the local server)."""

    def __init__(self, browser: Any, url: str, screenshots: Path) -> None:
        from playwright.sync_api import expect

        self.expect = expect
        self.url = url
        self.folder = screenshots
        self.context = browser.new_context(viewport={"width": 1366, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("request", lambda r: self.requests.append(r.url))
        # A failed fetch's console line has no address: name the request and its body beside it.
        self.page.on(
            "response",
            lambda r: (
                r.status >= 400
                and self.errors.append(f"{r.status} {r.request.method} {r.url} {r.request.post_data!r}")
            ),
        )
        self.steps = 0
        self.page.goto(url)
        expect(self.page.locator("body")).to_have_attribute("data-ready", "true")

    def shot(self, name: str) -> None:
        self.steps += 1
        self.page.screenshot(path=str(self.folder / f"{self.steps:02d}-{name}.png"), full_page=True)

    def pick(self, tool: str) -> None:
        self.page.locator(f"button[data-tool='{tool}']").click()
        self.expect(self.page.locator("#tool-heading")).to_contain_text(tool)

    def call(self, tool: str) -> None:
        self.page.get_by_role("button", name=f"Call {tool}", exact=True).click()
        self.wait_until_answered(tool)

    def wait_until_answered(self, tool: str) -> None:
        self.expect(self.page.locator("#status")).to_contain_text(f"{tool} answered")

    def json_of(self, selector: str) -> Any:
        return json.loads(self.page.locator(selector).text_content() or "null")

    def close(self) -> None:
        self.context.close()
        assert not self.errors, f"the page reported errors: {self.errors}"
        elsewhere = [url for url in self.requests if not url.startswith(self.url)]
        assert not elsewhere, f"the page fetched from elsewhere: {elsewhere}"
