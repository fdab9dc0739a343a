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
    """Collect every line the logger of `service` writes while the block runs (filled in when it ends)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(get_logger(service).registered_formatter)
    logging.getLogger(service).addHandler(handler)
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        logging.getLogger(service).removeHandler(handler)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines() if line.strip())
