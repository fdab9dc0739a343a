"""A business without its manifest file (docs/manifest.md, "No manifest"): a MANIFEST_DIR that lacks the file the
default location has refuses to start; a business no manifest describes anywhere is served unchecked, and says
so with the path it looked at."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from tests.support.business import TEST_BUSINESS

from businesses.demo import BUSINESS as DEMO
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.manifest import ManifestError
from mcp_lambda.manifest.locate import REPO_ROOT
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient


def test_a_manifest_dir_without_the_business_file_refuses_to_start(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as caught:
        build_runtime(Settings(business="demo", manifest_dir=str(tmp_path)), DEMO)

    [problem] = caught.value.problems
    assert (problem.file, problem.rule) == (str(tmp_path / "demo.yaml"), "missing-file")
    assert str(tmp_path) in problem.message and str(REPO_ROOT / "manifest" / "demo.yaml") in problem.message
    assert "unset MANIFEST_DIR" in problem.message


def test_a_manifest_dir_with_the_business_file_is_served(tmp_path: Path) -> None:
    (tmp_path / "demo.yaml").write_text((REPO_ROOT / "manifest" / "demo.yaml").read_text())
    runtime = build_runtime(Settings(business="demo", manifest_dir=str(tmp_path)), DEMO)
    assert runtime.manifest_path == tmp_path / "demo.yaml"


def test_a_business_no_manifest_describes_is_served_unchecked_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp_lambda"):
        runtime = build_runtime(Settings(business=TEST_BUSINESS.name), TEST_BUSINESS)

    assert not runtime.manifest_path.exists()
    [warning] = [record.getMessage() for record in caplog.records if "manifest" in record.getMessage()]
    assert warning == (
        f"no manifest for business '{TEST_BUSINESS.name}' (looked for {runtime.manifest_path}): tool results "
        "are served unchecked; write one to check them (docs/manifest.md)"
    )
    modern = McpTestClient.over_handler(lambda_handler(runtime), era=MODERN, capabilities={})
    assert modern.rpc("tools/call", {"name": "echo", "arguments": {"message": "hi"}}).result[
        "structuredContent"
    ] == {"echo": "hi"}
