"""Docstrings and comments in the framework say what a thing does, not how fast it is: benchmark figures and
history belong to docs/performance.md and the CHANGELOG, where they can be kept current."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "mcp_lambda"
# A measured figure: "~15 µs", "~45 ms", "110-220 ms", "15x faster", "on the bench VM", "costs ~170 ms".
FIGURE = re.compile(
    r"~\s?\d|\d\s?(µs|us)\b|\bbench(mark)? VM\b|\d+(\.\d+)?\s?(times|x|\u00d7) (faster|slower)|\d+\s?-\s?\d+\s?ms\b"
    r"|\d+(\.\d+)?\s?ms (of|on|per)\b"
)


def figures(path: Path, root: Path = SRC.parent) -> list[str]:
    """Every line of a comment or string token of `path` that quotes a measured figure."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for offset, line in enumerate(token.string.splitlines()):
                if FIGURE.search(line):
                    found.append(f"{path.relative_to(root)}:{token.start[0] + offset}: {line.strip()}")
    return found


def test_no_docstring_or_comment_of_the_framework_quotes_a_benchmark_figure() -> None:
    found = [line for path in sorted(SRC.rglob("*.py")) for line in figures(path)]
    assert not found, "move these to docs/performance.md:\n" + "\n".join(found)


def test_the_check_finds_a_figure_in_a_docstring_and_in_a_comment(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        '"""Fast: a hand-off costs ~35 µs."""\n\nx = 1  # 110-220 ms on the bench VM\ny = "timeout_ms"\n'
    )
    assert [line.split(": ", 1)[1] for line in figures(module, tmp_path)] == [
        '"""Fast: a hand-off costs ~35 µs."""',
        "# 110-220 ms on the bench VM",
    ]
