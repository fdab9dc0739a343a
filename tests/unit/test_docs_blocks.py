"""Every code block of the docs runs as the page shows it (the convention is in tests/support/docs_blocks.py):
one case per block that needs no server, id `page:line`; the blocks that need `make run` are run by
tests/interop/test_docs_blocks_make_run.py. Then the convention itself, on small pages of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.docs_blocks import (
    NEEDS_SERVER,
    Block,
    BlockFailure,
    all_blocks,
    blocks_of,
    rewrite_for_server,
    run_block,
    unsafe_commands,
)

LOCAL_BLOCKS = [
    block for block in all_blocks() if (block.kind != "data" or block.is_manifest) and not block.needs_server
]


@pytest.mark.parametrize("block", LOCAL_BLOCKS, ids=[block.id for block in LOCAL_BLOCKS])
def test_the_docs_block_runs(block: Block) -> None:
    if block.skip_reason:
        pytest.skip(f"{block.id}: {block.skip_reason}")
    run_block(block)


def test_the_docs_have_blocks_of_each_kind() -> None:
    blocks = all_blocks()
    assert {"README.md", "events/README.md", "docs/tools.md"} <= {block.page for block in blocks}
    assert {"python", "shell", "data"} <= {block.kind for block in blocks}


def _blocks(tmp_path: Path, markdown: str) -> list[Block]:
    page = tmp_path / "page.md"
    page.write_text(markdown, encoding="utf-8")
    return blocks_of(page.read_text(encoding="utf-8"), "page.md")


def test_blocks_are_found_with_their_line_language_and_indentation_removed(tmp_path: Path) -> None:
    blocks = _blocks(
        tmp_path,
        "# Page\n\n```python\nprint(1)\n```\n\n1. a step:\n\n   ```bash\n   echo hi\n   ```\n\n```\nplain\n```\n",
    )
    assert [(b.line, b.language, b.kind, b.text) for b in blocks] == [
        (3, "python", "python", "print(1)\n"),
        (9, "bash", "shell", "echo hi\n"),
        (13, "", "data", "plain\n"),
    ]
    assert [b.id for b in blocks] == ["page.md:3", "page.md:9", "page.md:13"]


def test_a_python_block_that_raises_fails_and_one_that_exits_0_passes(tmp_path: Path) -> None:
    good, bad = _blocks(tmp_path, "```python\nx = 1\n```\n```python\nraise ValueError('boom')\n```\n")
    run_block(good)
    with pytest.raises(BlockFailure, match=r"page\.md:4: exited 1(.|\n)*ValueError: boom"):
        run_block(bad)


def test_a_python_block_of_tests_runs_its_tests(tmp_path: Path) -> None:
    passing, failing = _blocks(
        tmp_path, "```python\ndef test_a():\n    assert 1\n```\n```python\ndef test_b():\n    assert 0\n```\n"
    )
    run_block(passing)
    with pytest.raises(BlockFailure, match=r"1 failed"):
        run_block(failing)


def test_an_unmarked_shell_block_runs_only_safe_commands(tmp_path: Path) -> None:
    safe, unsafe = _blocks(
        tmp_path,
        "```bash\necho one  # a comment\nmake manifest-lint \\\n  MANIFEST=manifest/demo.yaml\n```\n"
        "```bash\nmake deploy BUSINESS=demo\n```\n",
    )
    assert unsafe_commands(safe.text) == []
    with pytest.raises(
        BlockFailure, match=r"not known to be safe(.|\n)*make deploy BUSINESS=demo(.|\n)*docs-test"
    ):
        run_block(unsafe)


def test_each_part_of_a_pipeline_or_list_must_be_safe() -> None:
    assert unsafe_commands("echo '{}' | make -s stdio 2>/dev/null\n") == []
    assert unsafe_commands("echo ok && rm -rf build\n") == ["echo ok && rm -rf build"]
    assert unsafe_commands("LOG_FORMAT=json make run\n") == ["LOG_FORMAT=json make run"]
    assert unsafe_commands("cat <<EOF\nx\nEOF\n") != []
    assert unsafe_commands("$ echo hi\nhi\n") == []  # a console block: only the prompt lines are commands


def test_a_shell_block_that_fails_fails_under_pipefail(tmp_path: Path) -> None:
    [block] = _blocks(
        tmp_path, "```bash\nprintf x | python3 -c 'import sys; sys.exit(3)' | echo ignored\n```\n"
    )
    with pytest.raises(BlockFailure, match="exited 3"):
        run_block(block)


def test_a_skip_needs_a_reason_and_names_it(tmp_path: Path) -> None:
    skipped, unreasoned, unknown = _blocks(
        tmp_path,
        "<!-- docs-test: skip — needs AWS credentials -->\n```bash\nmake deploy\n```\n"
        "<!-- docs-test: skip -->\n\n```bash\nmake deploy\n```\n"
        "<!-- docs-test: skp — typo -->\n```bash\necho hi\n```\n",
    )
    assert skipped.skip_reason == "needs AWS credentials"
    run_block(skipped)  # not run: `make deploy` would fail here
    with pytest.raises(BlockFailure, match="needs a reason"):
        run_block(unreasoned)
    with pytest.raises(BlockFailure, match="unknown comment"):
        run_block(unknown)


def test_a_block_that_needs_the_server_runs_against_its_port(tmp_path: Path) -> None:
    marked, unmarked, plain, typo = _blocks(
        tmp_path,
        f"```bash\n{NEEDS_SERVER}\nmake run\ncurl -s localhost:3000/mcp\n```\n"
        "```bash\ncurl -s http://127.0.0.1:3000/mcp  # the server\n```\n"
        "```bash\nmake simulate TOOL=x  # no server: not http://127.0.0.1:3000\n```\n"
        "```python\n# docs-test: needs a server\n```\n",
    )
    assert marked.needs_server and unmarked.needs_server and not plain.needs_server
    assert rewrite_for_server(marked.text, "http://127.0.0.1:4567/mcp") == (
        f"{NEEDS_SERVER}\ncurl -s localhost:4567/mcp\n"
    )
    with pytest.raises(BlockFailure, match="needs the make run server"):
        run_block(marked)
    with pytest.raises(BlockFailure, match="unknown marker"):
        run_block(typo)


def test_data_blocks_are_not_run(tmp_path: Path) -> None:
    blocks = _blocks(
        tmp_path, "```text\nrm -rf /\n```\n```json\n{\n```\n```yaml\n: :\n```\n```toml\n[\n```\n"
    )
    assert {block.kind for block in blocks} == {"data"}
    for block in blocks:
        run_block(block)


def test_a_yaml_block_that_is_a_manifest_is_checked(tmp_path: Path) -> None:
    good, bad, fragment = _blocks(
        tmp_path,
        "```yaml\ntools:\n  ping:\n    output: {kind: execution_result}\n```\n"
        "```yaml\ntools:\n  ping:\n    output: {kind: cards}\n```\n"
        "```yaml\noutput: {kind: cards}\n```\n",
    )
    assert good.is_manifest and bad.is_manifest and not fragment.is_manifest
    run_block(good)
    run_block(fragment)
    with pytest.raises(BlockFailure, match="the manifest has problems"):
        run_block(bad)
