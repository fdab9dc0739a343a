"""Compile the skills index of each business in a Lambda package: `skills_compile.py OUT`.

OUT is the package's root (the build directory). For each `OUT/businesses/<name>/skills/` that holds skills, the
index `_skills.json` is written beside them: every skill's frontmatter as JSON and every file's digest and size,
computed from the bytes in OUT, the ones the function serves (`mcp_lambda.skills.catalog` checks them against the
index at cold start, and needs no YAML parser). `make build` runs it after `make skill-lint`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_lambda.skills.catalog import skill_folders
from mcp_lambda.skills.source import FrontmatterError, write_index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the package's root (holds businesses/)")
    args = parser.parse_args(argv)
    for skills_dir in sorted((args.out / "businesses").glob("*/skills")):
        if not skill_folders(skills_dir):
            continue
        try:
            target = write_index(skills_dir)
        except FrontmatterError as exc:
            print(f"skills_compile: {exc}", file=sys.stderr)
            return 1
        print(f"{skills_dir} -> {target} ({len(skill_folders(skills_dir))} skills)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
