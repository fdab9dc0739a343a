"""Every card-bound demo tool rendered as an MCP Apps web host renders it (SEP-1865, 2026-01-26), in Debian's
chromium: a host page and a sandbox proxy on two origins (dev/mcp_lambda_dev/simulator/static/apps-host.js,
sandbox.js), the view from `resources/read`, loaded under the CSP its `_meta.ui.csp` declares, handed the real
tool result; then the DOM, a screenshot (under pytest's tmp_path), and the route card's app-only action."""

from __future__ import annotations

import importlib
import json
import struct
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.support.handlers import build_handler

import businesses
from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Access, Business, ToolResult, entities, tool
from mcp_lambda.tools.cards import CardViews
from mcp_lambda_dev.local.process import REPO
from mcp_lambda_dev.simulator.routes import STATIC
from mcp_lambda_tools.scaffold.new_business import planned

pytestmark = pytest.mark.browser

UI = {"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}}
# A 1x1 PNG: what the routed image hosts answer (no request leaves the machine).
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cf"
    "c0f01f0005000201e2213fce0000000049454e44ae426082"
)
SCAFFOLDED = "cardshop"
CALLS = {
    "search_routes": {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "taxi"},
    "search_products": {"keyword": "cup", "limit": 4},
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def origins() -> Iterator[tuple[str, str]]:
    """The host page's origin and the sandbox proxy's: the same files on two ports of 127.0.0.1."""
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(STATIC))) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tuple(f"http://127.0.0.1:{server.server_address[1]}" for server in servers)  # type: ignore[misc]
    for server in servers:
        server.shutdown()
        server.server_close()


@contextmanager
def serving(handler: Any) -> Iterator[Any]:
    """`mcp(method, params)` -> the answer body of the real handler, to a client that declared MCP Apps (on a
    thread of its own: Playwright's callbacks run inside its event loop)."""
    client = McpTestClient.over_handler(handler, era=MODERN, capabilities=UI)
    with ThreadPoolExecutor(1) as pool:
        yield lambda method, params: pool.submit(lambda: client.rpc(method, params).body).result()


@pytest.fixture(scope="module")
def mcp() -> Iterator[Any]:
    """The demo business."""
    with serving(build_handler(None, settings=Settings(business="demo"))) as answer:
        yield answer


@pytest.fixture(scope="module")
def scaffolded_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A business `make new-business` writes (its files, as `new_business.planned` has them), served in-process."""
    root = tmp_path_factory.mktemp("scaffold")
    for path, text in planned(SCAFFOLDED, root).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    businesses.__path__.append(str(root / "src" / "businesses"))  # beside the repo's, as if it were there
    try:
        business = importlib.import_module(f"businesses.{SCAFFOLDED}").BUSINESS
        settings = Settings(business=SCAFFOLDED, manifest_dir=str(root / "manifest"))
        with serving(build_handler(business, settings)) as answer:
            yield answer
    finally:
        businesses.__path__.remove(str(root / "src" / "businesses"))
        for module in [m for m in sys.modules if m.startswith(f"businesses.{SCAFFOLDED}")]:
            del sys.modules[module]


class Host:
    """The test host page in a fresh browser context; every outside request is answered locally and recorded."""

    def __init__(self, browser: Any, origins: tuple[str, str], mcp: Any) -> None:
        self.mcp = mcp
        self.sandbox = f"{origins[1]}/sandbox.html"
        self.context = browser.new_context(viewport={"width": 640, "height": 900})
        self.outside: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.expose_function("mcpRequest", mcp)
        self.page.goto(f"{origins[0]}/apps-host.html")
        self.page.wait_for_selector("body[data-ready='true']")
        self.tools = mcp("tools/list", {})["result"]["tools"]

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("http://127.0.0.1:"):
            route.continue_()
        else:
            self.outside.append(url)
            route.fulfill(status=200, content_type="image/png", body=PIXEL)

    def render(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call the tool, read its view, render both (the generic view): the result and the view's card."""
        result = self.render_own(tool, arguments)
        card = self.page.frame_locator("iframe.app-frame").frame_locator("#view").locator("#card")
        card.and_(card.locator("xpath=self::*[@data-state='rendered']")).wait_for()
        return result, card

    def render_own(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call the tool, read its view, render both; the tool's result once the view is initialized."""
        entry = next(entry for entry in self.tools if entry["name"] == tool)
        uri = entry["_meta"]["ui"]["resourceUri"]
        view = self.mcp("resources/read", {"uri": uri})["result"]["contents"][0]
        result = self.mcp("tools/call", {"name": tool, "arguments": arguments})["result"]
        self.page.evaluate(
            "(call) => window.renderCard(call)",
            {"sandboxUrl": self.sandbox, "tools": self.tools, "view": view, "tool": tool, "args": arguments,
             "result": result},
        )  # fmt: skip
        self.page.wait_for_function("() => window.host.initialized")
        return result

    def view_frame(self) -> Any:
        return self.page.frame_locator("iframe.app-frame").locator("#view").element_handle().content_frame()

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def host(browser: Any, origins: tuple[str, str], mcp: Any) -> Iterator[Host]:
    opened = Host(browser, origins, mcp)
    yield opened
    opened.close()
    assert not opened.errors, opened.errors


def _png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return width, height


def _screenshot(host: Host, folder: Path, name: str) -> tuple[int, int]:
    path = folder / f"{name}.png"
    host.page.locator("iframe.app-frame").screenshot(path=str(path))
    box = host.page.locator("iframe.app-frame").bounding_box()
    size = _png_size(path)
    assert abs(size[0] - box["width"]) <= 1 and abs(size[1] - box["height"]) <= 1, (size, box)
    return size


def test_every_card_bound_model_tool_is_covered_here(host: Host) -> None:
    card_tools = {
        entry["name"]
        for entry in host.tools
        if "resourceUri" in entry.get("_meta", {}).get("ui", {})
        and "model" in entry["_meta"]["ui"].get("visibility", ["model"])
    }
    assert card_tools == set(CALLS)


def test_the_product_list_card_shows_every_product_with_its_price(host: Host, tmp_path: Path) -> None:
    result, card = host.render("search_products", CALLS["search_products"])
    products = result["structuredContent"]["entities"][0]["products"]
    assert len(products) >= 3
    rows = card.locator("ul.rows[data-field='products'] > li")
    assert rows.count() == len(products)
    for row, product in zip(rows.all(), products, strict=True):
        assert row.locator(".row-title").text_content() == product["name"]
        assert f"Price: ¥{product['price_yuan']}" in (row.text_content() or "")
        assert product["product_id"] not in (row.text_content() or "")  # ids are for actions, never shown
    # The images come from the declared image host (CSP resourceDomains), answered locally by the route.
    assert any(url.startswith("https://img.example.com/products/") for url in host.outside)
    # The host's theme (hostContext.theme and styles.variables) reached the view's document.
    theme = host.view_frame().evaluate(
        "() => [document.documentElement.dataset.theme,"
        " getComputedStyle(document.documentElement).getPropertyValue('--color-text-primary').trim()]"
    )
    assert theme == ["light", "#1f2937"]
    width, height = _screenshot(host, tmp_path, "search_products")
    assert width >= 400 and height >= 60 * len(products)  # the host sized the frame to the view's content


def test_the_route_card_shows_the_duration_and_its_action_refreshes_it(host: Host, tmp_path: Path) -> None:
    result, card = host.render("search_routes", CALLS["search_routes"])
    route = result["structuredContent"]["entities"][0]
    assert card.locator("h2").text_content() == route["title"]
    assert f"{route['duration_minutes']} min" in (card.locator("dl.facts").text_content() or "")
    assert card.locator("ul.rows[data-field='steps'] > li").count() == len(route["steps"])
    _screenshot(host, tmp_path, "search_routes")

    card.get_by_role("button", name="Refresh with traffic").click()
    view = host.page.frame_locator("iframe.app-frame").frame_locator("#view")
    view.locator("#status").filter(has_text="Refreshed").wait_for()
    assert "{" not in (view.locator("#status").text_content() or "")  # the sentence, not the model's JSON
    calls = [m for m in host.page.evaluate("window.host.log") if m["method"] == "tools/call"]
    assert [c["params"] for c in calls] == [
        {"name": "refresh_route", "arguments": {"route_id": route["route_id"]}}
    ]
    refreshed = host.mcp("tools/call", calls[0]["params"])["result"]["structuredContent"]["entities"][0]
    assert refreshed["duration_minutes"] > route["duration_minutes"]
    assert f"{refreshed['duration_minutes']} min" in (card.locator("dl.facts").text_content() or "")
    _screenshot(host, tmp_path, "refresh_route")


def test_the_view_runs_under_the_declared_csp(host: Host) -> None:
    host.render("search_products", CALLS["search_products"])
    blocked = host.view_frame().evaluate(
        """() => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation", (e) => resolve(e.blockedURI), {once: true});
            const image = new Image();
            image.src = "https://undeclared.example.net/x.png";
        })"""
    )
    assert blocked == "https://undeclared.example.net/x.png"
    assert not any("undeclared.example.net" in url for url in host.outside)  # never requested


def test_a_scaffolded_business_card_renders_in_the_generic_view(
    browser: Any, origins: tuple[str, str], scaffolded_mcp: Any, tmp_path: Path
) -> None:
    host = Host(browser, origins, scaffolded_mcp)
    try:
        result, card = host.render("find_items", {"keyword": "canvas"})
        items = result["structuredContent"]["entities"][0]["items"]
        rows = card.locator("ul.rows[data-field='items'] > li")
        assert items and rows.count() == len(items)
        for row, item in zip(rows.all(), items, strict=True):
            assert row.locator(".row-title").text_content() == item["name"]
            assert f"Price: ¥{item['price_yuan']}" in (row.text_content() or "")
        _screenshot(host, tmp_path, "scaffolded_find_items")
    finally:
        host.close()
    assert not host.errors, host.errors


def test_the_simulator_page_renders_the_mcp_apps_view_beside_the_doubao_cards(
    browser: Any, demo_url: str, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 1400})
    outside: list[str] = []
    errors: list[str] = []

    def route(request: Any) -> None:
        if request.request.url.startswith(("http://127.0.0.1:", "http://localhost:")):
            request.continue_()
        else:  # the view's images, from the hosts its CSP names: answered here, never fetched
            outside.append(request.request.url)
            request.fulfill(status=200, content_type="image/png", body=PIXEL)

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(demo_url)
        page.wait_for_selector("body[data-ready='true']")
        page.locator("button[data-tool='search_routes']").click()
        page.get_by_label("origin").select_option(value='"guomao"')
        page.get_by_label("destination").select_option(value='"capital_airport_t3"')
        page.get_by_role("button", name="Call search_routes", exact=True).click()
        page.locator("#status").filter(has_text="search_routes answered").wait_for()
        page.locator("#cards .widget-id").filter(has_text="route_result_card").wait_for()  # the Doubao side
        page.get_by_role("button", name="Render the MCP Apps view").click()
        view = page.frame_locator("#app-view iframe.app-frame").frame_locator("#view")
        view.locator("#card[data-state='rendered']").wait_for()
        title = json.loads(page.locator("#raw pre.response").last.text_content() or "{}")
        route_entity = title["result"]["structuredContent"]["entities"][0]
        assert view.locator("h2").text_content() == route_entity["title"]
        assert f"{route_entity['duration_minutes']} min" in (view.locator("dl.facts").text_content() or "")
        page.locator("#app-view").screenshot(path=str(tmp_path / "simulator_app_view.png"))
        assert _png_size(tmp_path / "simulator_app_view.png")[1] > 150
        assert all(url.startswith("https://maps.example.com/") for url in outside)
    finally:
        context.close()
    assert not errors, errors


# The own view docs/cards.md shows (its ```text block with the helper marker), served for a business of its own.
OWN_VIEW_MANIFEST = """
tools:
  search_routes: {output: {kind: entities, entity_types: [route]}}
  refresh_route: {output: {kind: entities, entity_types: [route]}}
entities:
  route:
    schema:
      route_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      title: {type: string}
    tool_card_binding: {search_routes: route_result_card, refresh_route: route_result_card}
"""


def _docs_own_view() -> str:
    page = (REPO / "docs" / "cards.md").read_text(encoding="utf-8")
    blocks = page.split("```")[1::2]  # the fenced blocks, without the prose between them
    return next(block.removeprefix("text\n") for block in blocks if "<!-- mcp-app-helper -->" in block)


@pytest.fixture(scope="module")
def own_view_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    @tool(description="Use when the user asks for a route. Shows a route card.")
    async def search_routes(origin: str, destination: str) -> ToolResult:
        return entities(
            [{"entity_type": "route", "route_id": f"r-{origin}-{destination}", "title": "A route"}]
        )

    @tool(description="The route card's Refresh button.", access=Access(visibility=["app"]))
    async def refresh_route(route_id: str) -> ToolResult:
        return entities([{"entity_type": "route", "route_id": route_id, "title": f"{route_id}, refreshed"}])

    root = tmp_path_factory.mktemp("trips")
    (root / "views").mkdir()
    (root / "views" / "route_result_card.html").write_text(_docs_own_view(), encoding="utf-8")
    (root / "trips.yaml").write_text(OWN_VIEW_MANIFEST, encoding="utf-8")
    business = Business(
        name="trips", tools=[search_routes, refresh_route], card_views=CardViews(directory=root / "views")
    )
    with serving(build_handler(business, Settings(business="trips", manifest_dir=str(root)))) as answer:
        yield answer


def test_the_own_view_of_the_docs_renders_and_calls_its_action(
    browser: Any, origins: tuple[str, str], own_view_mcp: Any
) -> None:
    host = Host(browser, origins, own_view_mcp)
    try:
        host.render_own("search_routes", {"origin": "a", "destination": "b"})
        view = host.page.frame_locator("iframe.app-frame").frame_locator("#view")
        view.locator("#title").filter(has_text="A route").wait_for()
        view.get_by_role("button", name="Refresh").click()
        view.locator("#title").filter(has_text="r-a-b, refreshed").wait_for()
    finally:
        host.close()
    assert not host.errors, host.errors
