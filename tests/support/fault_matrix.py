"""The fault matrix's rows, filled by tests/integration/test_fault_matrix.py and printed in pytest's terminal
summary (tests/integration/conftest.py): fault x dependency -> HTTP status, error code, time to answer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    dependency: str
    fault: str
    status: int
    code: str  # the JSON-RPC error code, the tool result's error code, or "-" for a success
    retry_after: str  # the Retry-After header or retry_after_ms, "-" when there is none
    milliseconds: float


ROWS: list[Row] = []


def render(rows: list[Row]) -> str:
    header = f"{'dependency':<20}{'fault':<12}{'status':>7}{'code':>9}{'retry after':>14}{'answer ms':>11}"
    lines = [header, "-" * len(header)]
    for row in sorted(rows, key=lambda r: (r.dependency, r.fault)):
        lines.append(
            f"{row.dependency:<20}{row.fault:<12}{row.status:>7}{row.code:>9}{row.retry_after:>14}"
            f"{row.milliseconds:>11.0f}"
        )
    return "\n".join(lines)
