"""Compile manifests for the Lambda package: `manifest_compile.py OUT_DIR [path ...]` (default: manifest/*.yaml).

Each manifest is checked as `make manifest-lint` checks it (against its business's tools when that package
exists) and written as `OUT_DIR/<name>.json`, the same document as JSON. The function reads that file with the
json module (`mcp_lambda.manifest.loader`), so the package needs no PyYAML: `make build` runs this.
Exits 1, writing nothing, when any manifest has a problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from mcp_lambda_tools.lint.manifest_lint import MANIFEST_DIR, lint


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where the .json files go")
    parser.add_argument("paths", nargs="*", type=Path, help="manifest files (default: manifest/*.yaml)")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(MANIFEST_DIR.glob("*.yaml")) + sorted(MANIFEST_DIR.glob("*.yml"))
    problems = lint(paths)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for path in paths:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        target = args.out / f"{path.stem}.json"
        target.write_text(json.dumps(document, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        print(f"{path} -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
