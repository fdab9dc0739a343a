"""The docs blocks that run against `make run` (marked `# docs-test: needs make run`, or unmarked shell blocks
of safe commands naming :3000, such as the README's curl lines), one case per block, all against the
session's one server; tests/unit/test_docs_blocks.py runs the others."""

from __future__ import annotations

import pytest
from tests.support.docs_blocks import Block, all_blocks, run_block

pytestmark = pytest.mark.interop

SERVER_BLOCKS = [block for block in all_blocks() if block.needs_server]


@pytest.mark.parametrize("block", SERVER_BLOCKS, ids=[block.id for block in SERVER_BLOCKS])
def test_the_docs_block_runs_against_make_run(block: Block, server_url: str) -> None:
    run_block(block, server_url)
