"""What the page shows beside the raw answer: the verdict and the platform's view of one tool result.

Every rule comes from `mcp_lambda_dev.projection` (the code `make simulate` uses) and the server's own manifest
check; this module only gathers their answers for one result the page received from `/mcp`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_lambda.errors import RequestRefused
from mcp_lambda.manifest import BoundManifest, bind_manifest
from mcp_lambda.manifest.locate import manifest_path
from mcp_lambda.manifest.visibility import project_fields
from mcp_lambda.settings import Settings
from mcp_lambda.tools import Business, ToolResult
from mcp_lambda.tools.results import ResultCode
from mcp_lambda_dev.businesses import load_business
from mcp_lambda_dev.projection import (
    card_candidates,
    model_view,
    modifiable_lists,
    narrowed_entities,
)
from mcp_lambda_dev.verdicts import error_summary, verdict_of


class BadRequest(RequestRefused, ValueError):
    """The page asked for something this result does not have (answered 400 with the message)."""


@dataclass(frozen=True)
class Simulation:
    """The business being served and its manifest (None: the server serves its results unchecked)."""

    business: Business
    manifest_file: Path
    bound: BoundManifest | None
    # The scopes every request's caller holds (make run SCOPES=a,b); empty: none, fields needing one are removed.
    scopes: frozenset[str] = frozenset()

    @classmethod
    def for_settings(cls, settings: Settings, scopes: Sequence[str] | None = None) -> Simulation:
        business = load_business(settings.business)
        path = manifest_path(settings, business)
        bound = bind_manifest(business, path) if path.exists() else None
        return cls(business, path, bound, frozenset(scopes or ()))

    def describe(self) -> dict[str, Any]:
        return {
            "business": self.business.name,
            "title": self.business.title,
            "version": self.business.version,
            "manifest": _shown(self.manifest_file) if self.bound is not None else None,
            "scopes": sorted(self.scopes),
        }

    def report(
        self,
        tool: str,
        result: Mapping[str, Any],
        server_lines: Sequence[Mapping[str, Any]] = (),
        selections: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """The outcome, verdict, model view, card candidates and modifiable lists of `result` (as received from
        /mcp); an error result's code, family, retryable and suggested action as `error`.

        `server_lines` are the call's log lines: when the server rewrote a violating result into error 50010,
        its `mcp_tool_call_failed` line holds the violations. `selections` play the model's narrowing:
        `[{"entity_index": 0, "field": "products", "keep": [0, 2]}]`.
        """
        wire = {key: result[key] for key in ("content", "structuredContent", "isError") if key in result}
        if self.bound is None:
            return {
                **self.describe(),
                "outcome": verdict_of(wire, [], server_lines),
                "error": error_summary(wire),
                "verdict": {"checked": False, "valid": None, "violations": []},
                "model_view": None,
            }
        manifest = self.bound.manifest
        if tool not in manifest.tools:
            raise BadRequest(f"tool '{tool}' is not in the manifest")
        keep = _keep(selections)
        try:
            narrowed = narrowed_entities(manifest, tool, wire, keep)
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            raise BadRequest(str(exc)) from None
        cards = card_candidates(manifest, tool, wire)
        for card in cards:
            card["entity"] = narrowed[card["entity_index"]]
        lists = modifiable_lists(manifest, tool, wire)
        for listed in lists:
            listed["narrowed_entity"] = narrowed[listed["entity_index"]]
            chosen = keep.get((listed["entity_index"], listed["field"]))
            listed["kept"] = (
                sorted(set(chosen)) if chosen is not None else [i["index"] for i in listed["items"]]
            )
        verdict = self._verdict(tool, wire, server_lines)
        return {
            **self.describe(),
            "output_kind": manifest.tools[tool].output.kind,
            "is_error": wire.get("isError") is True,
            # As `make simulate` says it (mcp_lambda_dev.verdicts); `verdict` is the manifest check beside it.
            "outcome": verdict_of(wire, verdict["violations"], server_lines),
            "error": error_summary(wire),
            "verdict": verdict,
            "model_view": model_view(manifest, tool, wire, self.scopes),
            "entities": self._entity_views(wire),
            "cards": cards,
            "modifiable_lists": lists,
        }

    def _verdict(
        self, tool: str, wire: Mapping[str, Any], server_lines: Sequence[Mapping[str, Any]]
    ) -> dict[str, Any]:
        assert self.bound is not None
        structured = wire.get("structuredContent")
        error = structured if wire.get("isError") is True and isinstance(structured, Mapping) else {}
        if error.get("code") == ResultCode.RESULT_VIOLATES_MANIFEST:
            # The tool's own result never left the server; the server's log line says what was wrong.
            for line in server_lines:
                if line.get("code") == ResultCode.RESULT_VIOLATES_MANIFEST and line.get("tool_name") == tool:
                    found = line.get("violations") or [line.get("reason") or error.get("message")]
                    return {"checked": True, "valid": False, "violations": found, "rewritten": True}
            message = str(error.get("message") or "")
            return {"checked": True, "valid": False, "violations": [message], "rewritten": True}
        received = ToolResult(
            content=list(wire.get("content") or []),
            structured_content=structured if isinstance(structured, dict) else None,
            is_error=wire.get("isError") is True,
        )
        violations = self.bound.check(tool, received, self.scopes)
        return {"checked": True, "valid": not violations, "violations": violations, "rewritten": False}

    def _entity_views(self, wire: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each received entity beside what the model reads of it (None: an undeclared type, unseen)."""
        assert self.bound is not None
        structured = wire.get("structuredContent")
        if wire.get("isError") is True or not isinstance(structured, Mapping):
            return []
        views = []
        for index, entity in enumerate(structured.get("entities") or []):
            if not isinstance(entity, Mapping):
                continue
            spec = self.bound.manifest.entities.get(str(entity.get("entity_type")))
            visible = project_fields(spec.fields, entity, self.scopes) if spec is not None else None
            views.append({"index": index, "entity": entity, "visible": visible})
        return views


def _shown(path: Path) -> str:
    """The manifest path as a person reads it: relative to the working directory when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _keep(selections: Sequence[Mapping[str, Any]]) -> dict[tuple[int, str], list[int]]:
    keep: dict[tuple[int, str], list[int]] = {}
    for selection in selections:
        try:
            index, field = int(selection["entity_index"]), str(selection["field"])
            keep[(index, field)] = [int(position) for position in selection["keep"]]
        except (KeyError, TypeError, ValueError):
            raise BadRequest(
                "each selection needs entity_index, field and keep (a list of positions)"
            ) from None
    return keep
