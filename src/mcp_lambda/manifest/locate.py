"""Where a business's manifest is, and binding it: the result check and the output schemas a server serves.

Looked for as `MANIFEST_DIR/<business>.json` (what `make build` compiles) or `.yaml`; by default in the repository's
`manifest/` (or one bundled beside the code).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..settings import Settings
from ..tools import Business

if TYPE_CHECKING:
    from .bound import ResultCheck, ResultView
    from .models import Manifest

REPO_ROOT = Path(__file__).resolve().parents[3]
# Where a business's manifest is looked for without MANIFEST_DIR: the repo's, or one bundled beside the code.
DEFAULT_MANIFEST_DIRS = [REPO_ROOT / "manifest", Path(__file__).resolve().parents[2] / "manifest"]


def manifest_path(settings: Settings, business: Business) -> Path:
    """`MANIFEST_DIR/<business>.json` (what `make build` compiles) or `.yaml`; by default the repo's `manifest/`
    (or one bundled beside the code)."""
    bases = [Path(settings.manifest_dir)] if settings.manifest_dir else DEFAULT_MANIFEST_DIRS
    return _find_manifest(bases, business.name) or bases[0] / f"{business.name}.yaml"


def _find_manifest(bases: list[Path], name: str) -> Path | None:
    for base in bases:
        for suffix in (".json", ".yaml"):
            candidate = base / f"{name}{suffix}"
            if candidate.exists():
                return candidate
    return None


def bind_business_manifest(
    settings: Settings, business: Business
) -> tuple[ResultCheck | None, ResultView | None, dict[str, dict[str, Any]], Manifest | None]:
    """The manifest's result check, the view that settles the text the model reads, the output schemas, and the
    manifest itself (its card bindings: docs/cards.md).

    A business that no manifest describes (no file in MANIFEST_DIR or the default locations) is served
    unchecked, with a warning naming the path looked at. A MANIFEST_DIR without the business's file while a
    default location has one is a mistake that would silently serve results unchecked: it refuses to start.

    Raises:
        ManifestError: The manifest is invalid, or MANIFEST_DIR lacks the file a default location has.
    """
    path = manifest_path(settings, business)
    if not path.exists():
        elsewhere = _find_manifest(DEFAULT_MANIFEST_DIRS, business.name) if settings.manifest_dir else None
        if elsewhere is not None:
            from .errors import MISSING_FILE, ManifestError, Problem

            message = (
                f"MANIFEST_DIR={settings.manifest_dir} has no {business.name}.yaml or .json, but {elsewhere} "
                f"exists: put the manifest in MANIFEST_DIR or unset MANIFEST_DIR"
            )
            raise ManifestError([Problem(str(path), "", MISSING_FILE, message)])
        logging.getLogger("mcp_lambda").warning(
            "no manifest for business '%s' (looked for %s): tool results are served unchecked; write one to "
            "check them (docs/manifest.md)",
            business.name,
            path,
        )
        return None, None, {}, None
    from . import bind_manifest  # raises ManifestError at start when the manifest is invalid

    bound = bind_manifest(business, path)
    schemas = {spec.name: s for spec in business.tools if (s := bound.output_schema(spec.name)) is not None}
    return bound.check, bound.model_text, schemas, bound.manifest
