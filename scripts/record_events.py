"""`make events BUSINESS=x`: record the conversations scripted in tests/conversations/<x>.py to events/<x>/.

Each step is sent to the real Lambda handler and saved as NN_name.json (the API Gateway event) beside
NN_name.expected.json (its answer), minted ids replaced by `{{placeholders}}`. Run it after a deliberate
behaviour change, then review the diff: tests/replay/ compares the handler's answers with these files.

Usage: python scripts/record_events.py [BUSINESS]   (default: demo)
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "dev"), str(REPO)]

from mcp_lambda.testing.events import record_conversations  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business", nargs="?", default="demo")
    business = parser.parse_args(argv).business
    name = f"tests.conversations.{business}"
    try:
        script = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        print(
            f"events: no conversations for '{business}': write tests/conversations/{business}.py with"
            " CONVERSATIONS = {name: [Request(...), ...]} (see tests/conversations/demo.py)",
            file=sys.stderr,
        )
        return 2
    written = record_conversations(business, script.CONVERSATIONS, minted=getattr(script, "MINTED", None))
    for path in written:
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
