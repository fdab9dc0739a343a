"""Stage one business's Lambda code for `sam build`: `package_stage.py BUSINESS OUT [--source src]`.

Writes OUT/BUSINESS/, the function's code: `mcp_lambda/` without the development-only paths
(`package_check.DEV_ONLY`), `businesses/__init__.py`, `businesses/BUSINESS/` (its `stack.yaml` and `requirements.txt` left out: they are
the stack's and the build's) and `requirements.txt` (what sam build installs), and OUT/BUSINESS.template.yaml, the
business's stack (template.yaml composed with its `stack.yaml`, scripts/stack_compose.py) with `CodeUri: src/`
pointing at that directory. `make build BUSINESS=x` builds that template, so another business's code is never in
the package.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from scripts.package_check import DEV_ONLY
from scripts.stack_compose import FRAGMENT, FUNCTION, ComposeError, business_template, dump

REPO = Path(__file__).resolve().parents[1]
NAME = re.compile(r"[a-z][a-z0-9_]*")  # template.yaml's BusinessName pattern
CODE_URI = "CodeUri: src/"
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "_tool_schemas.json")
# A business's build inputs: read by make build, never imported by the function.
BUILD_INPUTS = shutil.ignore_patterns(FRAGMENT, "requirements.txt")


class StageError(Exception):
    """The business cannot be staged (named in the message)."""


def stage(
    business: str,
    out: Path,
    source: Path = REPO / "src",
    template: Path = REPO / "template.yaml",
    architecture: str | None = None,
) -> Path:
    """Copy what the function for `business` runs into `out/<business>/` and write its template beside it.

    Args:
        business: the business to ship (a package under `source/businesses/`).
        out: the staging directory; `out/<business>/` is replaced.
        source: the source tree (holds mcp_lambda/, businesses/ and requirements.txt).
        template: the SAM template whose CodeUri is rewritten.
        architecture: the function's Architectures instead of the template's (`x86_64` for `make sam-local` on
            an x86_64 host; the deployed default stays the template's arm64).

    Returns:
        The template written, `out/<business>.template.yaml`.

    Raises:
        StageError: the name is not a business name, the business does not exist, the template's CodeUri is
            not `src/` exactly once, or the business's stack.yaml cannot be composed with the template.
    """
    if not NAME.fullmatch(business):
        raise StageError(f"'{business}' is not a business name (lower-case letters, digits, _)")
    package = source / "businesses" / business
    if not (package / "__init__.py").is_file():
        raise StageError(f"{package} is not a package (make new-business NAME={business} creates one)")
    if template.read_text(encoding="utf-8").count(CODE_URI) != 1:
        raise StageError(f"{template}: expected '{CODE_URI}' exactly once")
    try:
        composed = business_template(business, source, template)
    except ComposeError as exc:
        raise StageError(str(exc)) from None
    code = out / business
    shutil.rmtree(code, ignore_errors=True)
    dev_only = {source / path for path in DEV_ONLY}

    def skipped(directory: str, names: list[str]) -> set[str]:
        return set(SKIPPED(directory, names)) | {name for name in names if Path(directory, name) in dev_only}

    shutil.copytree(source / "mcp_lambda", code / "mcp_lambda", ignore=skipped)
    (code / "businesses").mkdir()
    shutil.copy2(source / "businesses" / "__init__.py", code / "businesses" / "__init__.py")

    def business_skipped(directory: str, names: list[str]) -> set[str]:
        top = Path(directory) == package
        return set(SKIPPED(directory, names)) | (set(BUILD_INPUTS(directory, names)) if top else set())

    shutil.copytree(package, code / "businesses" / business, ignore=business_skipped)
    shutil.copy2(source / "requirements.txt", code / "requirements.txt")
    staged = out / f"{business}.template.yaml"
    composed["Resources"][FUNCTION]["Properties"]["CodeUri"] = f"{business}/"
    if architecture:
        composed["Resources"][FUNCTION]["Properties"]["Architectures"] = [architecture]
    staged.write_text(dump(composed), encoding="utf-8")
    return staged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business")
    parser.add_argument("out", type=Path)
    parser.add_argument("--source", type=Path, default=REPO / "src")
    parser.add_argument("--architecture", choices=["arm64", "x86_64"], help="default: the template's (arm64)")
    args = parser.parse_args(argv)
    try:
        staged = stage(args.business, args.out, args.source, architecture=args.architecture)
    except StageError as exc:
        print(f"package_stage: {exc}", file=sys.stderr)
        return 2
    print(f"{args.source} -> {args.out / args.business} (businesses/{args.business} alone), {staged}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
