"""Problems found in a manifest: one line each, naming the file, the YAML path and the rule broken."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import StartupError

MISSING_FILE = "missing-file"  # MANIFEST_DIR lacks the business's manifest while a default location has it


@dataclass(frozen=True)
class Problem:
    """One broken rule. `str(problem)` is the single line lint prints: `file:yaml.path: [rule] message`."""

    file: str
    yaml_path: str
    rule: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.file}:{self.yaml_path or '<root>'}: [{self.rule}] {self.message}{where}"


class ManifestError(StartupError, ValueError):
    """A manifest that cannot be served; `.problems` lists every problem, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        lines = "\n".join(str(problem) for problem in self.problems)
        super().__init__(f"manifest has {len(self.problems)} problem(s):\n{lines}")

    def summary(self) -> str:
        """One line for a command that refuses to go on: the first problem, how many more, where to see them all.

        Returns:
            E.g. `invalid manifest: <problem> (and 2 more); see them all with make manifest-lint MANIFEST=<file>`,
            or for a missing file `no manifest at <file>: <what to do>`.
        """
        first, more = self.problems[0], len(self.problems) - 1
        if first.rule == MISSING_FILE:
            return f"no manifest at {first.file}: {first.message}"
        extra = f" (and {more} more)" if more else ""
        return f"invalid manifest: {first}{extra}; see them all with make manifest-lint MANIFEST={first.file}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A '; did you mean ...?' hint for a near-miss name, or an empty string."""
    import difflib  # only a manifest with a problem needs it: a valid one starts without

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""
