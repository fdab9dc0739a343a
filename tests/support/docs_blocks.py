"""The code blocks of the docs, and how each one is run by the docs tests.

The convention a page follows (`tests/unit/test_docs_blocks.py` and `tests/interop/test_docs_blocks_make_run.py`
run it, one case per block, id `file:line`):

- a ```python block runs as is in a fresh interpreter (cwd the repository, PYTHONPATH=src:dev:.) and must exit 0;
  a block that defines top-level `test_*` functions is run by pytest instead, so its tests run too;
- a block whose first line is `# docs-test: needs make run` runs against the `make run` server the session
  starts on a free port: `127.0.0.1:3000` and `localhost:3000` in it become that port, and a bare `make run`
  line is dropped (the harness's server is that server);
- a block preceded by `<!-- docs-test: skip — <reason> -->` is not run; its case is skipped with the reason,
  which must not be empty;
- a ```bash / sh / shell / console block with neither marker runs (`bash -euo pipefail`, in the repository) when
  every command in it is one of `SAFE_COMMANDS`, against the server when it names `:3000`; any other command
  fails the case, asking for a marker, so no block is silently ignored
  (a ```console block's commands are its `$ ` lines);
- ```text, ```json, ```yaml, ```toml and unlabelled blocks are data and are not run; a ```yaml block that is a
  whole manifest (a top-level `tools:`) is checked with the manifest loader instead.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEEDS_SERVER = "# docs-test: needs make run"
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh"})
PYTHON_LANGUAGES = frozenset({"python", "py", "python3"})
TIMEOUT_SECONDS = 90  # under the suite's pytest-timeout of 120 s, so the block's own message is the one seen

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<language>[\w+-]*)")
_MARKER = re.compile(r"^\s*<!--\s*docs-test:(?P<rest>.*?)-->\s*$")
_SKIP = re.compile(r"^\s*skip\b\s*[\u2014\u2013:-]*\s*(?P<reason>.*?)\s*$")  # an em or en dash, a colon
_PORT = re.compile(r"\b(127\.0\.0\.1|localhost):3000\b")
_MAKE_RUN = re.compile(r"^\s*make\s+run\s*(#.*)?$")
_OPERATORS = frozenset({"|", "||", "&&", ";", "&"})
# First words of the commands a block may run unmarked: local, quick, and writing nothing into the repository.
SAFE_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("make", "manifest-lint"),
    ("make", "manifest-lint-all"),
    ("make", "simulate"),
    ("make", "stdio"),
    ("make", "-s", "stdio"),
    ("make", "help"),
    (".venv/bin/python", "-c"),
    ("python3", "-c"),
    (".venv/bin/python", "-m", "mcp_lambda_dev.simulate"),
    (".venv/bin/python", "dev/mcp_lambda_tools/lint/manifest_lint.py"),
    ("curl",),
    ("echo",),
    ("printf",),
    ("export",),
)


class BlockFailure(AssertionError):
    """A block that failed: it exited non-zero, timed out, or breaks the convention (no marker, no reason)."""


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page.

    Attributes:
        page: The page's path relative to the repository (`docs/tools.md`).
        line: The 1-based line of the opening fence.
        language: The fence's info word, lower case (`""` when unlabelled).
        text: The block's content, its fence's indentation removed.
        skip_reason: The reason of a `docs-test: skip` comment before it; `""` when that comment gives none.
        marker_error: Why a `docs-test` comment before it or a marker in it is not understood, if so.
    """

    page: str
    line: int
    language: str
    text: str
    skip_reason: str | None = None
    marker_error: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def kind(self) -> str:
        """`python`, `shell` or `data`."""
        if self.language in PYTHON_LANGUAGES:
            return "python"
        return "shell" if self.language in SHELL_LANGUAGES else "data"

    @property
    def is_manifest(self) -> bool:
        """A ```yaml block that is a whole manifest (a top-level `tools:`), which the manifest loader checks."""
        return self.language in ("yaml", "yml") and re.search(r"^tools:", self.text, flags=re.M) is not None

    @property
    def marked_needs_server(self) -> bool:
        return self.text.lstrip("\n").startswith(NEEDS_SERVER)

    @property
    def needs_server(self) -> bool:
        """Whether it runs against the `make run` server: marked so, or an unmarked shell block naming :3000."""
        if self.kind == "data" or self.skip_reason is not None:
            return False
        if self.marked_needs_server:
            return True
        if self.kind != "shell" or unsafe_commands(self.text):
            return False  # an unsafe unmarked block fails without a server
        return any(
            _PORT.search(word) for command in shell_commands_of(self.text) for word in shlex.split(command)
        )


def doc_pages(root: Path = ROOT) -> list[Path]:
    """The pages whose blocks are run: README.md, events/README.md and every docs/*.md."""
    pages = [root / "README.md", root / "events" / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [page for page in pages if page.exists()]


def blocks_of(markdown: str, page: str) -> list[Block]:
    """Every fenced block of `markdown` (fences may be indented, as in a list item), with its markers."""
    lines, blocks, index = markdown.splitlines(), [], 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        body = [
            line[len(indent) :] if line.startswith(indent) else line.lstrip()
            for line in lines[index + 1 : end]
        ]
        skip_reason, marker_error = _comment_before(lines, index)
        text = "\n".join(body) + "\n"
        first = text.lstrip("\n").splitlines()[0].strip() if text.strip() else ""
        if first.startswith("# docs-test:") and first != NEEDS_SERVER:
            marker_error = f"unknown marker {first!r}: the only one inside a block is {NEEDS_SERVER!r}"
        blocks.append(Block(page, index + 1, opening["language"].lower(), text, skip_reason, marker_error))
        index = end + 1
    return blocks


def _comment_before(lines: list[str], fence_index: int) -> tuple[str | None, str | None]:
    """The skip reason and marker error of the `<!-- docs-test: ... -->` line before a fence, blank lines apart."""
    index = fence_index - 1
    while index >= 0 and not lines[index].strip():
        index -= 1
    if index < 0 or (comment := _MARKER.match(lines[index])) is None:
        return None, None
    skip = _SKIP.match(comment["rest"])
    if skip is None:
        return None, f"unknown comment {lines[index].strip()!r}: write <!-- docs-test: skip — <reason> -->"
    return skip["reason"], None


def all_blocks(root: Path = ROOT) -> list[Block]:
    """The blocks of every page of `doc_pages`."""
    return [
        block
        for page in doc_pages(root)
        for block in blocks_of(page.read_text(encoding="utf-8"), page.relative_to(root).as_posix())
    ]


def command_lines(text: str) -> list[str]:
    """The command lines of a shell block as written: backslash continuations joined, blank and comment lines
    dropped; in a console block (lines starting `$ `) only those lines, the prompt removed (the rest is output)."""
    lines = text.replace("\\\n", " ").splitlines()
    if any(line.startswith("$ ") for line in lines):
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _script(text: str) -> str:
    """What bash runs: the block as written, or a console block's command lines."""
    is_console = any(line.startswith("$ ") for line in text.splitlines())
    return "\n".join(command_lines(text)) + "\n" if is_console else text


def shell_commands(markdown: str) -> list[str]:
    """Every command of the markdown's shell blocks as words re-joined (quotes normalised, comments dropped): the
    form a test parses a `curl` line from. A line that is no one-line shell command (a heredoc) is left out."""
    return [
        command
        for block in blocks_of(markdown, "-")
        if block.kind == "shell"
        for command in shell_commands_of(block.text)
    ]


def shell_commands_of(text: str) -> list[str]:
    """`shell_commands` of one block's text."""
    commands = []
    for line in command_lines(text):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if words:
            commands.append(shlex.join(words))
    return commands


def unsafe_commands(text: str) -> list[str]:
    """The command lines of a shell block that run anything but `SAFE_COMMANDS` (each part of a pipeline or list
    is checked; a line that does not parse, such as a heredoc, is unsafe)."""
    unsafe = []
    for line in command_lines(text):
        try:
            words = list(shlex.shlex(line, posix=True, punctuation_chars=True))
        except ValueError:
            unsafe.append(line)
            continue
        parts: list[list[str]] = [[]]
        for word in words:
            if word in _OPERATORS:
                parts.append([])
            else:
                parts[-1].append(word)
        for part in filter(None, parts):
            while part and re.fullmatch(r"[A-Za-z_]\w*=.*", part[0]):  # VAR=value before the command
                part = part[1:]
            if part and not any(tuple(part[: len(safe)]) == safe for safe in SAFE_COMMANDS):
                unsafe.append(line)
                break
    return unsafe


def rewrite_for_server(text: str, server_url: str) -> str:
    """The block as run against `server_url`: `:3000` becomes its port, a bare `make run` line goes."""
    port = server_url.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
    lines = [line for line in text.splitlines() if not _MAKE_RUN.match(line)]
    return _PORT.sub(lambda match: f"{match[1]}:{port}", "\n".join(lines) + "\n")


def defines_tests(source: str) -> bool:
    return re.search(r"^def test_\w*\(|^test_\w+\s*=", source, flags=re.M) is not None


def run_block(block: Block, server_url: str | None = None, root: Path = ROOT) -> None:
    """Run one block as the convention says; data blocks and skipped blocks do nothing here.

    Args:
        block: The block.
        server_url: The `make run` server's `/mcp` URL, for a block that needs it.
        root: The repository the block runs in.

    Raises:
        BlockFailure: The block breaks the convention, needs a server it was not given, exits non-zero or
            times out.
    """
    if block.marker_error:
        raise BlockFailure(f"{block.id}: {block.marker_error}")
    if block.skip_reason is not None:
        if not block.skip_reason:
            raise BlockFailure(
                f"{block.id}: a docs-test skip needs a reason: <!-- docs-test: skip — <why> -->"
            )
        return
    if block.kind == "data":
        if block.is_manifest:
            _check_manifest(block)
        return
    text = block.text
    if block.needs_server:
        if server_url is None:
            raise BlockFailure(f"{block.id}: needs the make run server, and none was given")
        text = rewrite_for_server(text, server_url)
    if block.kind == "shell" and not block.marked_needs_server and (unsafe := unsafe_commands(text)):
        raise BlockFailure(
            f"{block.id}: these commands are not known to be safe to run here: {unsafe}. Mark the block: "
            f"first line {NEEDS_SERVER!r} if it runs against `make run`, or <!-- docs-test: skip — <reason> --> "
            "on the line before it if it cannot run in a test (AWS, Docker, a long-running server)."
        )
    _execute(block, text, root)


def _check_manifest(block: Block) -> None:
    from mcp_lambda.manifest.loader import parse_manifest

    with tempfile.TemporaryDirectory(prefix="docs-block-") as scratch:
        path = Path(scratch) / "manifest.yaml"
        path.write_text(block.text, encoding="utf-8")
        _, problems = parse_manifest(path)
    if problems:
        raise BlockFailure(f"{block.id}: the manifest has problems: {[str(problem) for problem in problems]}")


def _execute(block: Block, text: str, root: Path) -> None:
    env = {
        **{name: value for name, value in os.environ.items() if name not in ("BUSINESS", "MANIFEST_DIR")},
        "PYTHONPATH": os.pathsep.join(str(root / folder) for folder in ("src", "dev", ".")),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    with tempfile.TemporaryDirectory(prefix="docs-block-") as scratch:
        if block.kind == "python":
            script = Path(scratch) / ("test_block.py" if defines_tests(text) else "block.py")
            script.write_text(text, encoding="utf-8")
            if defines_tests(text):
                (Path(scratch) / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
                command = [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "--rootdir",
                    scratch,
                ]
                command += ["-c", str(Path(scratch) / "pytest.ini"), str(script)]
            else:
                command = [sys.executable, str(script)]
        else:
            command = ["bash", "-euo", "pipefail", "-c", _script(text)]
        try:
            done = subprocess.run(
                command,
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise BlockFailure(f"{block.id}: still running after {TIMEOUT_SECONDS} s") from exc
    if done.returncode != 0:
        hint = ""
        if not block.needs_server and _PORT.search(text):
            hint = f"\n(it names :3000: if it talks to `make run`, make {NEEDS_SERVER!r} its first line)"
        raise BlockFailure(
            f"{block.id}: exited {done.returncode}{hint}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n"
            f"{done.stderr[-3000:]}"
        )
