"""The manifest: typed models, lint, the run-time result check, outputSchema and the platform's projection.

Load with `load_manifest(path)` (raises ManifestError listing every problem), bind to the business serving it
with `bind_manifest(business, path)` (also matches the tool names), then `bound.check(tool, result)` is the
executor's ResultCheck and `bound.output_schema(tool)` the tool's outputSchema.
"""

from .bound import BoundManifest, bind_manifest
from .errors import ManifestError, Problem
from .loader import lint_manifest, load_manifest, parse_manifest
from .models import EntitySpec, FieldSpec, Manifest, ToolEntry
from .projection import card_candidates, model_view, modifiable_lists

__all__ = [
    "BoundManifest",
    "EntitySpec",
    "FieldSpec",
    "Manifest",
    "ManifestError",
    "Problem",
    "ToolEntry",
    "bind_manifest",
    "card_candidates",
    "lint_manifest",
    "load_manifest",
    "model_view",
    "modifiable_lists",
    "parse_manifest",
]
