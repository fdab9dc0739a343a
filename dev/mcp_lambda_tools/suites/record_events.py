"""`make events BUSINESS=x`: record the conversations scripted in tests/businesses/<x>/conversations.py to
events/<x>/.

Each conversation runs against a fresh handler and a fresh business state (its `Business(on_cold_start=...)`
hook), as the replay runs it. Each step is sent to the real Lambda handler and saved as NN_name.json (the API Gateway event) beside
NN_name.expected.json (its answer), minted ids replaced by `{{placeholders}}`. Run it after a deliberate
behaviour change, then review the diff: the business's replay test (`replay_conversations("<x>")` in
tests/businesses/<x>/) compares the handler's answers with these files.

Usage: python dev/mcp_lambda_tools/suites/record_events.py [BUSINESS]   (default: demo)
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]


def script_path(business: str, root: Path = REPO) -> Path:
    """Where the conversations of `business` are scripted.

    Args:
        business: The business name.
        root: The repository root.

    Returns:
        root/tests/businesses/<business>/conversations.py.
    """
    return root / "tests" / "businesses" / business / "conversations.py"


def load_script(business: str, root: Path = REPO) -> ModuleType | None:
    """The conversation script of `business`, loaded from its file (the business test folders are not packages).

    Args:
        business: The business name.
        root: The repository root.

    Returns:
        The module (its CONVERSATIONS, and MINTED / ENVIRONMENT if it sets them), or None if there is no script.
    """
    path = script_path(business, root)
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"_conversations_{business}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(business: str, root: Path = REPO) -> list[Path] | None:
    """Record the conversations of `business` to root/events/<business>/, replacing what was there.

    `mcp_lambda` is imported here, from whatever `sys.path` finds first: the caller puts root/src there.

    Args:
        business: The business name.
        root: The repository root.

    Returns:
        The event files written, or None if the business scripts no conversations.
    """
    from mcp_lambda.testing.events import record_conversations

    script = load_script(business, root)
    if script is None:
        return None
    return record_conversations(
        business,
        script.CONVERSATIONS,
        events_dir=root / "events",
        minted=getattr(script, "MINTED", None),
        environment=getattr(script, "ENVIRONMENT", None),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business", nargs="?", default="demo")
    business = parser.parse_args(argv).business
    sys.path[:0] = [str(REPO / "src"), str(REPO / "dev"), str(REPO)]
    written = record(business)
    if written is None:
        print(
            f"events: no conversations for '{business}': write"
            f" {script_path(business).relative_to(REPO)} with CONVERSATIONS = {{name: [Step(...), ...]}}"
            " (see tests/businesses/demo/conversations.py)",
            file=sys.stderr,
        )
        return 2
    for path in written:
        print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
