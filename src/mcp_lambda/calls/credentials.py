"""A result that carries a credential never leaves the server.

Every value `ctx.secret()` handed out (and the other values of its secret, the platform AppSecret among them), the
framework's own keys and the caller's bearer token are known to `observability.redaction`. A tool result — its
text, `structuredContent`, a business error's message or `details` — that contains one (as it is or JSON-escaped)
is replaced by error result 50040 naming where it was found (`structuredContent.details.key`), never the value;
the log line carries the paths and a keyed fingerprint of each credential (`calls.fingerprints`), not the value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ..observability import credentials_in, credentials_known, dumps
from ..tools.results import ResultCode, ToolResult, system_error
from ..tools.spec import ToolSpec
from .fingerprints import LogFingerprints

# The paths a refusal names at most (a result may quote a secret in every entity).
MAX_PATHS = 10
# Shorter credentials are masked in logs but do not refuse a result: a short value (a 6-letter word) may be
# ordinary text too, and a real key or token is longer.
MIN_REFUSED_CHARS = 8


class _Finishing(Protocol):
    """What the refusal needs of the executor's call: its tool, and its finishing line."""

    spec: ToolSpec

    def finish(
        self, outcome: str, code: Any, error_type: str | None = None, level: str = "info", **fields: Any
    ) -> None: ...


@dataclass(frozen=True)
class CredentialLeak:
    """Where a result carried credentials, and their fingerprints."""

    paths: tuple[str, ...]
    fingerprints: tuple[str, ...]

    def refuse(self, call: _Finishing) -> ToolResult:
        """Log the call's finishing line (paths and fingerprints) and return the error result that replaces it.

        Args:
            call: The executor's call.

        Returns:
            Error result 50040.
        """
        call.finish(
            "system_error",
            ResultCode.CREDENTIAL_IN_RESULT,
            "CredentialInResult",
            "error",
            paths=list(self.paths),
            credential_fingerprints=list(self.fingerprints),
        )
        return system_error(
            ResultCode.CREDENTIAL_IN_RESULT,
            f"Tool '{call.spec.name}' returned a result carrying a credential (a secret or the caller's token) at "
            f"{', '.join(self.paths)}; it was withheld.",
        )


def credential_leak(result: ToolResult, fingerprints: LogFingerprints) -> CredentialLeak | None:
    """The credentials `result` carries, or None (at once when no credential is known).

    Args:
        result: What the tool returned.
        fingerprints: The keyed fingerprints of the log lines.

    Returns:
        Where they are and their fingerprints; None when the result carries none.
    """
    if not credentials_known():
        return None
    wire = result.to_wire()
    if not _long(credentials_in(dumps(wire))):
        return None
    paths: list[str] = []
    found: dict[str, None] = {}
    for path, text in _strings(wire, ""):
        values = _long(credentials_in(text))
        if values:
            found.update(dict.fromkeys(values))
            if len(paths) < MAX_PATHS:
                paths.append(path)
    if not paths:  # only an escaped form the walk cannot see on its own: name the whole result
        paths, found = ["result"], dict.fromkeys(_long(credentials_in(dumps(wire))))
    return CredentialLeak(tuple(paths), tuple(fingerprints.of(value) for value in found))


def _long(values: list[str]) -> list[str]:
    return [value for value in values if len(value) >= MIN_REFUSED_CHARS]


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, text) of every string in a JSON value, keys included (`a.b[2].c`)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            yield where, str(key)
            yield from _strings(item, where)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


__all__ = ["CredentialLeak", "credential_leak"]
