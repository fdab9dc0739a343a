"""The docs blocks that run against `make run` (marked `# docs-test: needs make run`, or unmarked shell blocks
of safe commands naming :3000, such as the README's curl lines), one case per block, all against the
session's one server; tests/unit/test_docs_blocks.py runs the others."""

from __future__ import annotations

import pytest
from tests.support.docs_blocks import NEEDS_SERVER, Block, BlockFailure, all_blocks, blocks_of, run_block

pytestmark = pytest.mark.interop

SERVER_BLOCKS = [block for block in all_blocks() if block.needs_server]


@pytest.mark.parametrize("block", SERVER_BLOCKS, ids=[block.id for block in SERVER_BLOCKS])
def test_the_docs_block_runs_against_make_run(block: Block, server_url: str) -> None:
    run_block(block, server_url)


def test_a_marked_block_reaches_the_server_on_its_real_port(server_url: str) -> None:
    python, shell = blocks_of(
        f"```python\n{NEEDS_SERVER}\n"
        "import urllib.request\n"
        "request = urllib.request.Request('http://127.0.0.1:3000/mcp', method='DELETE')\n"
        "try:\n    urllib.request.urlopen(request, timeout=5)\nexcept urllib.error.HTTPError as exc:\n"
        "    assert exc.code < 500, exc.code\n"
        "```\n"
        f"```bash\n{NEEDS_SERVER}\nmake run   # terminal 1\n"
        "code=$(curl -s -o /dev/null -w '%{http_code}' localhost:3000/mcp -X DELETE)\n"
        'test "$code" -lt 500\n```\n',
        "page.md",
    )
    run_block(python, server_url)
    run_block(shell, server_url)  # `make run` is the harness's server: not started again
    with pytest.raises(BlockFailure, match="exited 7"):  # curl: could not connect
        run_block(shell, "http://127.0.0.1:1/mcp")
