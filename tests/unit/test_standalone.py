"""The suite stands on its own: nothing the tests, scripts or make targets run reads a folder beside the clone
(a user's clone has none). What they need comes with the repository: the pinned npm tools of
dev/mcp_lambda_tools/suites/mcp_tools.py and the spec facts of tests/fixtures/spec/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("tests", "dev/mcp_lambda_tools", "mk", ".ci", "Makefile")
# The team's folder beside the clone. Its name is spelt apart here, so this file passes its own scan.
SIBLING = "sha" + "red"
# A sibling folder named by a path string, or built with pathlib (the parent joined with the folder's name).
OUTSIDE = re.compile(rf"\.\./{SIBLING}\b|\b{SIBLING}/(?:tools|docs)\b|\.parent\s*/\s*[\"']{SIBLING}[\"']")


def _text_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        top = REPO / name
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".png"):
                files.append(path)
    return files


@pytest.mark.parametrize(
    "line",
    [
        f'NODE_ENV = ROOT.parent / "{SIBLING}" / "tools" / "mcp-node-env"',
        f'{SIBLING}="$root/../{SIBLING}/tools/mcp-conformance"',
        f"the spec digest in {SIBLING}/docs/mcp-wire.md",
    ],
)
def test_the_pattern_catches_a_reference_outside_the_clone(line: str) -> None:
    assert OUTSIDE.search(line)


@pytest.mark.parametrize("line", ["from mcp.shared import inbound", "def shared_table(dynamodb_local):"])
def test_the_pattern_leaves_unrelated_words_alone(line: str) -> None:
    assert not OUTSIDE.search(line)


def test_nothing_reads_a_folder_beside_the_clone() -> None:
    hits = []
    files = _text_files()
    assert len(files) > 100  # the scan saw the suite, not an empty folder
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary fixtures
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert not hits, "a clone has no folder beside it; ship what this needs in the repository:\n" + "\n".join(
        hits
    )
