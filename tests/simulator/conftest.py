"""The `make run` server with its simulator page, and Debian's chromium driven by Playwright (never downloaded)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda_dev.local.process import REPO, running_server

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# One screenshot per step, as test artefacts (git-ignored, never committed).
ARTEFACTS = REPO / "artifacts" / "simulator"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    """The page's address on a fresh demo server (info log lines on, so the page can show them)."""
    with running_server("demo", POWERTOOLS_LOG_LEVEL="INFO") as url:
        yield url.removesuffix("mcp")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (it is a dev dependency: make venv)")
    if not CHROMIUM.is_file():
        pytest.skip(
            f"no chromium at {CHROMIUM}: apt-get install -y chromium (Debian; .ci/run does it), "
            "or set CHROMIUM to a Chromium binary"
        )
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        except Error as exc:
            pytest.skip(
                f"chromium at {CHROMIUM} cannot start here ({str(exc).splitlines()[0]}): "
                f"`{CHROMIUM} --headless --no-sandbox --dump-dom about:blank` shows why"
            )
        yield launched
        launched.close()


@pytest.fixture
def screenshots(request: pytest.FixtureRequest) -> Path:
    folder = ARTEFACTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder
