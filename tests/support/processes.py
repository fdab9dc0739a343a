"""The environment of a fresh `python -c` process that imports the handler: the repo's code on the path, the demo
business, no metrics or traces printed (tests that start such processes: cold start, SnapStart hooks)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANDLER_ENV = {
    "PATH": os.environ.get("PATH", ""),
    "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}",
    "BUSINESS": "demo",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
}
