"""The manifest: typed models, lint, the run-time result check and outputSchema.

Load with `load_manifest(path)` (raises ManifestError listing every problem), bind to the business serving it
with `bind_manifest(business, path)` (also matches the tool names), then `bound.check(tool, result)` is the
executor's ResultCheck and `bound.output_schema(tool)` the tool's outputSchema. The lint's check, with the tools
missing on either side, is `mcp_lambda.manifest.lint.lint_manifest` (not in the Lambda package). What the model may see
of a result is `visibility.model_projection` (the server's text, the leak check and the simulator use it); the cards
and lists the platform makes are the simulator's business: `mcp_lambda_dev.projection`, outside the Lambda package.
"""

from .bound import BoundManifest, bind_manifest
from .errors import ManifestError, Problem
from .loader import load_manifest, parse_manifest
from .models import EntitySpec, FieldSpec, Manifest, ToolEntry

__all__ = [
    "BoundManifest",
    "EntitySpec",
    "FieldSpec",
    "Manifest",
    "ManifestError",
    "Problem",
    "ToolEntry",
    "bind_manifest",
    "load_manifest",
    "parse_manifest",
]
