"""The JSON lines a business's logger writes, captured through a handler of the test's own."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp_lambda.observability import get_logger


@contextmanager
def captured_lines(service: str) -> Iterator[list[dict[str, Any]]]:
    """Collect every line (INFO and up) the logger of `service` writes while the block runs (filled in when it
    ends), whatever level an earlier test left the logger at."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(get_logger(service).registered_formatter)
    std = logging.getLogger(service)
    level = std.level
    std.addHandler(handler)
    std.setLevel(logging.INFO)
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        std.removeHandler(handler)
        std.setLevel(level)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines() if line.strip())
