"""`make new-business NAME=shop`: scaffold a business with its tests and its recorded conversations.

Copies the template files under dev/mcp_lambda_tools/scaffold/templates/ (every `<<name>>`, `<<title>>`, `<<Name>>` (CamelCase) and
`<<NAME>>` (upper case) in a path or a file replaced): src/businesses/<name>/ (a list-card tool, a downstream tool
using `ctx.http`, a setting and a declared secret, an exactly-once tool with a side effect kept in a store with a
DynamoDB table of its own, a task-capable export; its settings model, its stack.yaml and its requirements.txt),
manifest/<name>.yaml, and tests/businesses/<name>/ (every branch of the tools through the public test kit, the
table on DynamoDB Local, and conversations.py). Then installs its requirements into this Python, drafts the business's skill
from its tools and manifest (`make skill`: src/businesses/<name>/skills/<name>-tools/SKILL.md) and records those
conversations to events/<name>/, in-process, so the business's replay test passes at once. Refuses to overwrite
anything.
"""

from __future__ import annotations

import argparse
import importlib
import io
import keyword
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = Path(__file__).resolve().parent / "templates"
SUFFIX = ".tmpl"


def next_steps(name: str) -> list[tuple[str, str]]:
    """What a newcomer runs next, in order.

    Args:
        name: The new business.

    Returns:
        (command, what it does) pairs.
    """
    return [
        ("make venv", "first, once: the virtualenv with the tests and linters"),
        (f".venv/bin/python -m pytest tests/businesses/{name}", "its tests (make test runs every test)"),
        (f"make run BUSINESS={name}", "serve it at http://127.0.0.1:3000/mcp"),
        (
            f'make simulate BUSINESS={name} TOOL=find_items ARGS=\'{{"keyword": "canvas"}}\'',
            "one call, shown as the platform would",
        ),
        (f"make events BUSINESS={name}", "record its conversations again after a deliberate change"),
        (f"make build BUSINESS={name}", "the Lambda package (python3.13, no Docker)"),
        (f"make deploy BUSINESS={name}", f"to AWS as stack mcp-{name} (needs AWS credentials)"),
    ]


def planned(name: str, root: Path) -> dict[Path, str]:
    """Each file the scaffold writes, with its text: the templates with `<<name>>` and `<<title>>` replaced.

    Args:
        name: The new business.
        root: The repository root.

    Returns:
        Path under `root` -> the file's text.
    """
    names = {
        "<<name>>": name,
        "<<title>>": name.replace("_", " ").capitalize(),
        "<<Name>>": "".join(word.capitalize() for word in name.split("_")),
        "<<NAME>>": name.upper(),
    }
    files = {}
    for template in sorted(TEMPLATES.rglob(f"*{SUFFIX}")):
        relative = str(template.relative_to(TEMPLATES)).removesuffix(SUFFIX).replace("<<name>>", name)
        text = template.read_text(encoding="utf-8")
        for placeholder, value in names.items():
            text = text.replace(placeholder, value)
        files[root / relative] = text
    return files


def scaffold(name: str, root: Path) -> list[Path]:
    """Write the business `name` under `root`.

    Args:
        name: The business package name: lower-case letters, digits and underscores.
        root: The repository root.

    Returns:
        The files written.

    Raises:
        SystemExit: The name is not a package name, or something the scaffold writes exists already.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or keyword.iskeyword(name):
        raise SystemExit(f"new-business: NAME must be lower-case letters, digits and underscores: {name!r}")
    owned = (
        root / "src" / "businesses" / name,
        root / "dev" / "businesses" / name,  # a fixture business of that name would be shadowed
        root / "manifest" / f"{name}.yaml",
        root / "tests" / "businesses" / name,
        root / "events" / name,
    )
    for path in owned:
        if path.exists():
            raise SystemExit(f"new-business: {path.relative_to(root)} already exists; nothing written")
    files = planned(name, root)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def install_requirements(name: str, root: Path) -> None:
    """Install the new business's own pins into this Python (as make venv does), so its code imports.

    Args:
        name: The new business.
        root: The repository root it was scaffolded into.

    Raises:
        SystemExit: pip could not install them (its message is printed).
    """
    requirements = root / "src" / "businesses" / name / "requirements.txt"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            str(requirements),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"new-business: pip could not install {requirements}:\n{done.stderr}")


def draft_skill(name: str, root: Path) -> Path:
    """Draft the new business's skill (`make skill`) from root's business and manifest.

    Args:
        name: The new business.
        root: The repository root it was scaffolded into.

    Returns:
        The SKILL.md written.
    """
    sys.path[:0] = [str(root / "src"), str(root)]
    importlib.invalidate_caches()
    # Imported here: it imports the business, so only after the scaffold.
    from mcp_lambda_tools.scaffold.skill_draft import write_draft

    _, path = write_draft(name, manifest_dir=root / "manifest")
    return path


def record(name: str, root: Path) -> list[Path]:
    """Record the new business's conversations to root/events/<name>/, with root's own framework and business.

    Args:
        name: The new business.
        root: The repository root it was scaffolded into.

    Returns:
        The event files written.
    """
    from mcp_lambda_tools.suites import record_events  # `planned` is importable without it

    # root/src first: the handler finds the manifest (and the business) beside the framework it imports from.
    sys.path[:0] = [str(root / "src"), str(root)]
    server_log = io.StringIO()  # the handler's log lines: shown only if recording fails
    try:
        with redirect_stdout(server_log), redirect_stderr(server_log):
            written = record_events.record(name, root)
    except BaseException:
        print(server_log.getvalue(), file=sys.stderr)
        raise
    assert written is not None, "the scaffold writes conversations.py"
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this one)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    for path in scaffold(args.name, root):
        print(f"created {path.relative_to(root)}")
    install_requirements(args.name, root)
    print(f"drafted {draft_skill(args.name, root).relative_to(root)} (yours to edit: docs/skills.md)")
    recorded = record(args.name, root)
    print(f"recorded {len(recorded)} events to events/{args.name}/")
    steps = next_steps(args.name)
    width = max(len(command) for command, _ in steps)
    print("\nNext, in order:")
    for command, purpose in steps:
        print(f"  {command.ljust(width)}  # {purpose}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
