"""`make schema-lint BUSINESS=x`: the tools' input schemas against what agents' planners handle (seed 001 §3.1).

Each finding names a rule id, the tool, the argument (a dotted path: `filters.price[]` is an item of an array) and
the fix. Errors fail the lint; warnings are printed and pass.

| rule | level | what |
|---|---|---|
| `open-object` | error | an object argument with no declared properties, or one that admits any other key (`dict[str, Any]`) |
| `union` | error | an argument published as `anyOf` / `oneOf` (`int \\| str`), without the opt-in `x-allow-union: true` |
| `enum-meanings` | warning | an enum whose values have no meaning each (`enumDescriptions`, or `'value' = meaning` in its description) |
| `date-format` | warning | a date string (named `*date`, or described as YYYY-MM-DD) without `format: date` |
| `use-when` | warning | a tool description without its "Use when" |
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_lambda.tools import Business, ToolSpec

RULES = {
    "open-object": "error",
    "union": "error",
    "enum-meanings": "warning",
    "date-format": "warning",
    "use-when": "warning",
}
UNION_OPT_IN = "x-allow-union"  # set with Field(json_schema_extra={"x-allow-union": True}) on the argument
DATE_NAME = re.compile(r"(^|_)date$")
DATE_WORDS = re.compile(r"YYYY-MM-DD|ISO 8601 date", re.IGNORECASE)
FIXES = {
    "open-object": "declare the keys: a pydantic model (or TypedDict) with extra='forbid' instead of dict[str, Any]",
    "union": "one type per argument (split it in two arguments, or an enum); or opt in with "
    'Field(json_schema_extra={"x-allow-union": True}) when every client you serve handles anyOf',
    "enum-meanings": "say what each value means: Annotated[..., enum_meanings({...})] (docs/tools.md), or "
    "\"'value' = meaning\" for every value in the description",
    "date-format": "type it datetime.date (publishes format: date), or add Field(json_schema_extra={'format': 'date'})",
    "use-when": 'start the description with "Use when ..." (when an agent should pick this tool), then what it is not for',
}


@dataclass(frozen=True)
class Finding:
    """One finding: the rule, where, what, and how to fix it."""

    rule: str
    tool: str
    argument: str | None
    message: str

    @property
    def level(self) -> str:
        return RULES[self.rule]

    def __str__(self) -> str:
        where = f"{self.tool}.{self.argument}" if self.argument else self.tool
        return f"{where}: {self.level} [{self.rule}] {self.message}; fix: {FIXES[self.rule]}"


def lint_business(business: Business) -> list[Finding]:
    """Every finding of every tool of `business`, in tool order.

    Args:
        business: The business, as its package registers it.

    Returns:
        The findings (errors and warnings).
    """
    return [finding for spec in business.tools for finding in lint_tool(spec)]


def lint_tool(spec: ToolSpec) -> list[Finding]:
    """The findings of one tool: its description, then each argument (nested ones too).

    Args:
        spec: The tool.

    Returns:
        Its findings.
    """
    found: list[Finding] = []
    if "use when" not in (spec.description or "").lower():
        found.append(
            Finding("use-when", spec.name, None, "the description does not say when to use the tool")
        )
    schema = spec.input_schema
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    for name, argument in (schema.get("properties") or {}).items():
        found += [
            Finding(rule, spec.name, path, message) for rule, path, message in _walk(argument, name, defs)
        ]
    return found


def _resolve(schema: Any, defs: Mapping[str, Any], depth: int = 0) -> Any:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    if not isinstance(ref, str) or depth > 20:
        return schema
    target = defs.get(ref.rsplit("/", 1)[-1])
    merged = {**(target or {}), **{k: v for k, v in schema.items() if k != "$ref"}}
    return _resolve(merged, defs, depth + 1)


def _walk(
    schema: Any, path: str, defs: Mapping[str, Any], depth: int = 0, context: str = ""
) -> Iterator[tuple[str, str, str]]:
    """Findings of one argument and what it holds; `context` is the description around it (an array's, for
    its items: where `'value' = meaning` of an item's enum is written)."""
    schema = _resolve(schema, defs)
    if not isinstance(schema, dict) or depth > 20:
        return
    unions = [key for key in ("anyOf", "oneOf") if key in schema]
    if unions and schema.get(UNION_OPT_IN) is not True:
        kinds = ", ".join(_kind(_resolve(branch, defs)) for branch in schema[unions[0]])
        yield "union", path, f"published as {unions[0]} ({kinds}): many planners cannot read a union"
    for branch in (schema.get(key) or [] for key in ("anyOf", "oneOf")):
        for item in branch:
            yield from _walk(item, path, defs, depth + 1)
    kind = schema.get("type")
    if kind == "object" or (kind is None and "properties" in schema):
        extra = schema.get("additionalProperties")
        if not schema.get("properties") and extra is not False:
            yield "open-object", path, "an object with no declared keys: an agent cannot know what to send"
        elif extra is True or isinstance(extra, dict):
            yield "open-object", path, "an object that admits any other key (additionalProperties)"
        for name, child in (schema.get("properties") or {}).items():
            yield from _walk(child, f"{path}.{name}", defs, depth + 1)
    if kind == "array" and "items" in schema:
        yield from _walk(schema["items"], f"{path}[]", defs, depth + 1, str(schema.get("description", "")))
    if isinstance(schema.get("enum"), list):
        missing = _without_meaning(schema, context)
        if missing:
            shown = ", ".join(repr(value) for value in missing[:5])
            yield "enum-meanings", path, f"enum values with no meaning: {shown}"
    if kind == "string" and "format" not in schema and "enum" not in schema:
        leaf = path.rsplit(".", 1)[-1].rstrip("[]")
        if DATE_NAME.search(leaf) or DATE_WORDS.search(str(schema.get("description", ""))):
            yield "date-format", path, "a date string without format: date (2024-02-30 would pass the schema)"


def _without_meaning(schema: Mapping[str, Any], context: str) -> list[Any]:
    """The enum's values that neither `enumDescriptions` nor the description (`'value' = ...`) explain."""
    values = schema["enum"]
    described = schema.get("enumDescriptions")
    meanings = dict(zip(values, described, strict=False)) if isinstance(described, list) else {}
    text = f"{schema.get('description', '')} {context}"
    return [
        value
        for value in values
        if not (isinstance(meanings.get(value), str) and meanings[value].strip())
        and not re.search(rf"'{re.escape(str(value))}'\s*[=:]", text)
    ]


def _kind(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "?"
    if "enum" in schema or "const" in schema:
        return "enum"
    kind = schema.get("type", "?")
    return "/".join(kind) if isinstance(kind, list) else str(kind)
