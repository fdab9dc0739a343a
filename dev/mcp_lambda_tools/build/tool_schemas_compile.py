"""Compile tool input schemas for the Lambda package: `tool_schemas_compile.py OUT [--source src]`.

OUT is a copy of src/ (the build directory, which `sam build` fills from `CodeUri: src/`). For each business
package in OUT/businesses/, its schemas are built from the source tree's identical copy (OUT's own dependencies
are for the Lambda platform and need not import here), in a fresh interpreter, and written as
`_tool_schemas.json` beside OUT's code: the schemas tools/list serves, keyed by a digest of what they were
computed from (`mcp_lambda.tools.schema.source_digest`). At run time a tool whose copy matches skips pydantic's
JSON-schema generation; any mismatch builds as before. `make build` runs this; so do the bench's cold rows.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"
ONE = """
import json, sys
from pathlib import Path
from mcp_lambda.composition import load_business
from mcp_lambda.tools.schema import COMPILED_SCHEMAS, compile_tool_schemas, source_digest
source, target = Path(sys.argv[1]), Path(sys.argv[2])
if source_digest(source) != source_digest(target):
    sys.exit(f"{target} differs from {source}: build again")
document = compile_tool_schemas(target, load_business(source.name).tools)
(target / COMPILED_SCHEMAS).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
print(f"{source} -> {target / COMPILED_SCHEMAS} ({len(document['schemas'])} tools)")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the package's root (holds mcp_lambda/ and businesses/)")
    parser.add_argument("--source", type=Path, default=SRC, help="the source tree OUT was copied from")
    args = parser.parse_args(argv)
    source = args.source.resolve()
    targets = sorted(path.parent for path in (args.out.resolve() / "businesses").glob("*/__init__.py"))
    for target in targets:
        (target / "_tool_schemas.json").unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-c", ONE, str(source / "businesses" / target.name), str(target)],
            env={"PYTHONPATH": str(source), "BUSINESS": target.name, "PATH": ""},
            capture_output=True,
            text=True,
        )
        sys.stdout.write(done.stdout)
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
