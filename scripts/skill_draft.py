"""Draft a business's skill from what the framework knows: `make skill BUSINESS=x [SKILL=name] [FORCE=1]`.

Writes `src/businesses/<x>/skills/<skill>/SKILL.md` (default skill name: `<x>-tools`, underscores as hyphens) from
the business's tools (use-when / not-for, required arguments: what to ask back), its manifest (the fields the
model may cite, the hidden ones never to name, the lists it may narrow, the cards that already show a result),
its task tools and its error codes with their suggested action. The author edits the draft; it is theirs.

A re-run never overwrites edits silently: the digest of the last draft written is kept in `.draft.sha256` beside
it (files starting with `.` are not part of a skill). When SKILL.md still has that digest, the new draft replaces
it; when it was edited, the new draft goes to `.SKILL.draft.md` to compare, and FORCE=1 replaces SKILL.md anyway.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import sys
from pathlib import Path
from typing import Any

import yaml
from scripts.skill_lint import MANIFEST_DIR, package_dir

from mcp_lambda.manifest import parse_manifest
from mcp_lambda.manifest.models import EntitySpec, FieldSpec, Manifest
from mcp_lambda.tools import Business
from mcp_lambda.tools.results import error_advice
from mcp_lambda_dev.businesses import load_business

DRAFT_DIGEST = ".draft.sha256"
NEW_DRAFT = ".SKILL.draft.md"


def default_skill_name(business: str) -> str:
    return f"{business.replace('_', '-')}-tools"


def error_codes(name: str, business: Business) -> list[tuple[int, str, str]]:
    """(code, meaning, suggested action) of the business's own error codes: module-level `NAME = 4xxxx/5xxxx`
    constants of its package and its `error_map`, sorted. The action is the one a `business_error(NAME, ...,
    suggested_action=...)` call of the package gives, else the code family's default."""
    codes: dict[int, str] = {}
    names: dict[str, int] = {}
    actions: dict[str, str] = {}
    for path in sorted(package_dir(name).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.isupper()
                and isinstance(node.value, ast.Constant)
                and type(node.value.value) is int
                and 40000 <= node.value.value <= 59999
            ):
                codes.setdefault(node.value.value, node.targets[0].id.replace("_", " ").lower())
                names[node.targets[0].id] = node.value.value
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and call.args:
                first = call.args[0]
                constant = first.attr if isinstance(first, ast.Attribute) else getattr(first, "id", None)
                for keyword in call.keywords:
                    if (
                        keyword.arg == "suggested_action"
                        and isinstance(keyword.value, ast.Constant)
                        and constant
                    ):
                        actions[constant] = str(keyword.value.value)
    for code, message in business.error_map.values():
        codes.setdefault(code, message)
    by_code = {names[constant]: action for constant, action in actions.items() if constant in names}
    return [
        (code, meaning, by_code.get(code) or error_advice(code)[1]) for code, meaning in sorted(codes.items())
    ]


def _visible(fields: dict[str, FieldSpec]) -> list[tuple[str, FieldSpec]]:
    return [(name, spec) for name, spec in fields.items() if spec.llm_visible]


def _hidden(fields: dict[str, FieldSpec]) -> list[str]:
    hidden = [name for name, spec in fields.items() if not spec.llm_visible]
    for spec in fields.values():
        if spec.items is not None and spec.items.properties:
            hidden += _hidden(spec.items.properties)
    return hidden


def _field_line(name: str, spec: FieldSpec) -> str:
    return f"`{name}`" + (f" ({spec.description})" if spec.description else "")


def _entity_section(entity_name: str, entity: EntitySpec, tool: str) -> list[str]:
    lines = [
        f"Its result holds a {entity_name.replace('_', ' ')}"
        + (f": {entity.description}" if entity.description else ".")
    ]
    card = entity.tool_card_binding.get(tool)
    if card:
        lines.append(
            "- The user sees it as a card: do not repeat what the card shows in prose; add what it does not."
        )
    cite = [_field_line(name, spec) for name, spec in _visible(entity.fields) if spec.type != "array"]
    if cite:
        lines.append("- You may cite " + ", ".join(cite) + ".")
    for name, spec in _visible(entity.fields):
        if spec.type == "array" and spec.items is not None and spec.items.properties:
            items = ", ".join(_field_line(n, s) for n, s in _visible(spec.items.properties))
            narrow = (
                " You may narrow this list to the items that fit the user's request; keep the items unchanged."
                if spec.llm_modifiable
                else ""
            )
            lines.append(f"- `{name}`: each item has {items}.{narrow}")
    hidden = _hidden(entity.fields)
    if hidden:
        lines.append(
            "- Never name " + ", ".join(f"`{h}`" for h in hidden) + " to the user: you do not see them."
        )
    return lines


def draft_text(name: str, business: Business, manifest: Manifest | None, skill: str) -> str:
    """The SKILL.md the draft writes for `business`."""
    title = business.title or name
    description = (
        f"How to use the {title} tools: which tool for which request, what to ask the user first, what to cite "
        f"and what to do when a call fails. Use whenever you work with this server's tools."
    )
    frontmatter = yaml.safe_dump(
        {"name": skill, "description": description}, sort_keys=False, allow_unicode=True, width=10**6
    )
    out = ["---", frontmatter.rstrip("\n"), "---", "", f"# {title}", ""]
    if business.instructions:
        out += [business.instructions, ""]
    out += ["## Pick the tool", ""]
    for spec in business.tools:
        out.append(f"- `{spec.name}`: {spec.description or '(no description: write when to use it)'}")
    out.append("")
    for spec in business.tools:
        out += [f"## `{spec.name}`", ""]
        schema: dict[str, Any] = spec.input_schema or {}
        properties: dict[str, Any] = schema.get("properties") or {}
        required = [arg for arg in schema.get("required") or [] if arg in properties]
        for arg in required:
            hint = properties[arg].get("description", "")
            out.append(
                f"- Needs `{arg}`: if the user has not given it, ask for it before calling. {hint}".rstrip()
            )
        optional = [arg for arg in properties if arg not in required]
        if optional:
            out.append(
                "- Optional: "
                + ", ".join(f"`{arg}`" for arg in optional)
                + "; pass them only when the user said so."
            )
        if spec.task != "forbidden":
            out.append(
                "- It can run in the background as a task: tell the user it is being prepared and that you will "
                "share the result when it is ready; do not call it again meanwhile."
            )
            out.append(
                "- When it answers that it started a job (`job_id` in its result), call `get_job_status` with "
                "that `job_id` until the state is no longer `working`: its result is then this tool's own. If the "
                "user no longer wants it, call `cancel_job` with the `job_id`."
            )
        entry = manifest.tools.get(spec.name) if manifest else None
        if entry is not None and manifest is not None:
            if entry.output.kind == "execution_result":
                out.append(
                    "- It does something and reports the outcome: tell the user what happened in one sentence."
                )
            for entity_name in entry.output.entity_types:
                if entity_name in manifest.entities:
                    out += ["", *_entity_section(entity_name, manifest.entities[entity_name], spec.name)]
        out.append("")
    codes = error_codes(name, business)
    if codes:
        out += ["## When something fails", "", "| Code | What happened | Suggested action |", "|---|---|---|"]
        for code, meaning, action in codes:
            out.append(f"| {code} | {meaning} | {action.replace('_', ' ')} |")
        out.append("")
    return "\n".join(out)


def write_draft(
    name: str,
    skill: str | None = None,
    force: bool = False,
    skills_dir: Path | None = None,
    manifest_dir: Path = MANIFEST_DIR,
) -> tuple[str, Path]:
    """Write the draft of `name`'s skill into its skills folder (or `skills_dir`), from its manifest in
    `manifest_dir`; (what happened, the file written).

    Returns:
        ("created" | "updated" | "unchanged" | "kept", path): "kept" when SKILL.md was edited since the last
        draft, in which case the new draft is at `.SKILL.draft.md` and SKILL.md is untouched.
    """
    business = load_business(name)
    skill = skill or default_skill_name(name)
    manifest_path = manifest_dir / f"{name}.yaml"
    manifest = parse_manifest(manifest_path)[0] if manifest_path.exists() else None
    text = draft_text(name, business, manifest, skill)
    folder = (skills_dir or business.skills or package_dir(name) / "skills") / skill
    folder.mkdir(parents=True, exist_ok=True)
    target, record = folder / "SKILL.md", folder / DRAFT_DIGEST
    digest = hashlib.sha256(text.encode()).hexdigest()
    if target.exists():
        current = hashlib.sha256(target.read_bytes()).hexdigest()
        recorded = record.read_text().strip() if record.exists() else None
        if current == digest:
            return "unchanged", target
        if current != recorded and not force:
            (folder / NEW_DRAFT).write_text(text, encoding="utf-8")
            return "kept", folder / NEW_DRAFT
        status = "updated"
    else:
        status = "created"
    target.write_text(text, encoding="utf-8")
    record.write_text(digest + "\n")
    (folder / NEW_DRAFT).unlink(missing_ok=True)
    return status, target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business")
    parser.add_argument("--skill", default=None, help="the skill's name (default: <business>-tools)")
    parser.add_argument("--force", action="store_true", help="replace an edited SKILL.md")
    args = parser.parse_args(argv)
    status, path = write_draft(args.business, args.skill or None, args.force)
    if status == "kept":
        print(
            f"skill: {path.parent / 'SKILL.md'} was edited since the last draft: left as it is. The new draft is "
            f"{path} (diff them; FORCE=1 replaces SKILL.md)."
        )
        return 0
    print(f"skill: {status} {path}")
    if status == "created":
        served = load_business(args.business).skills is not None
        if not served:
            print(
                'skill: the business does not serve skills yet: add skills=Path(__file__).with_name("skills")'
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
