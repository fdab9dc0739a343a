"""`make contract-diff BUSINESS=x [BASE=ref]`: what changed in a business's published contract since BASE, and
whether it breaks the agents built on it.

Both sides are described by `published.py`, run in a checkout of each (BASE from `git archive`, the other the
working tree): the tools/list of each era, the manifest, the skills index, the business's version. Every change
is classified:

- **breaking**: a tool removed (or renamed), a new required argument, an argument removed, an argument narrowed
  (another type, an enum value removed, a tighter bound, length, pattern or format), an output or entity field
  removed or retyped, a model-visible field hidden (`llm_visible: false`), an entity type removed (from the
  manifest or from a tool's output), a tool's output kind changed, a skill removed;
- **compatible**: everything else that changed (a tool, argument, enum value, field or skill added, a bound
  widened, a description reworded, ...).

A breaking change fails the check unless the business's major version was raised (`Business(version=...)`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_lambda.errors import StartupError

BREAKING, COMPATIBLE = "breaking", "compatible"
PUBLISHED = Path(__file__).with_name("published.py")
# Bounds whose rise (minimum...) or fall (maximum...) refuses calls the old schema allowed.
LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems")
NARROWING_KEYS = ("type", "pattern", "format", "const")
# The keywords judged one by one above; any other one a schema gains is reported as added (compatible).
JUDGED_KEYS = frozenset(
    {*LOWER_BOUNDS, *UPPER_BOUNDS, *NARROWING_KEYS, "enum", "description", "properties", "required", "items"}
    | {"additionalProperties"}
)


@dataclass(frozen=True)
class Change:
    """One change: its class, where (`tool.argument`, `entities.route.fields.title`, ...) and what."""

    kind: str
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.kind.upper():<10} {self.where}: {self.what}"


class ContractUnavailable(StartupError, RuntimeError):
    """A side's contract could not be described (the business does not build there)."""


def describe(root: Path, business: str) -> dict[str, Any] | None:
    """The published contract of `business` in the checkout at `root`, or None when it has no such business.

    Args:
        root: A checkout (its src/, dev/ and manifest/).
        business: The business name.

    Returns:
        The contract (`published.published_contract`), or None.

    Raises:
        ContractUnavailable: The business exists there but could not be described (the output names why).
    """
    src = root / "src" / "businesses" / business
    dev = root / "dev" / "businesses" / business
    if not src.is_dir() and not dev.is_dir():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "contract.json"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(root / part) for part in ("src", "dev", "."))}
        done = subprocess.run(
            [sys.executable, str(PUBLISHED), business, str(out)],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not out.is_file():
            raise ContractUnavailable(f"{root}: {business}: {done.stderr.strip()[-2000:]}")
        contract: dict[str, Any] = json.loads(out.read_text("utf-8"))
        return contract


def checkout(repo: Path, ref: str, into: Path) -> Path:
    """The files of `ref` that describe a contract (src/, dev/, manifest/), extracted under `into`.

    Raises:
        ContractUnavailable: `ref` is not a git ref of `repo`.
    """
    done = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref, "--", "src", "dev", "manifest"],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise ContractUnavailable(f"git archive {ref}: {done.stderr.decode(errors='replace').strip()}")
    tar_path = into / "base.tar"
    tar_path.write_bytes(done.stdout)
    with tarfile.open(tar_path) as archive:
        archive.extractall(into / "base", filter="data")
    return into / "base"


def compare(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None) -> list[Change]:
    """Every change from `base` to `head`, classified; a change seen in several eras is listed once.

    Args:
        base: The contract at BASE (None: the business is new).
        head: The contract of the working tree (None: the business was removed).

    Returns:
        The changes, breaking first.
    """
    if base is None and head is None:
        return []
    if head is None:
        return [Change(BREAKING, "business", "removed")]
    if base is None:
        return [Change(COMPATIBLE, "business", "added")]
    changes: dict[Change, None] = {}
    for era in sorted(set(base["eras"]) | set(head["eras"])):
        old, new = base["eras"].get(era, {}), head["eras"].get(era, {})
        changes.update(dict.fromkeys(_tools(old, new)))
    changes.update(dict.fromkeys(_manifest(base.get("manifest") or {}, head.get("manifest") or {})))
    changes.update(dict.fromkeys(_skills(base.get("skills") or {}, head.get("skills") or {})))
    return sorted(changes, key=lambda change: (change.kind != BREAKING, change.where))


def major(version: Any) -> int:
    """The major number of a version such as `1.4.0` (0 when it has none)."""
    head = str(version or "0").lstrip("vV").split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def verdict(base: Mapping[str, Any] | None, head: Mapping[str, Any] | None, changes: list[Change]) -> bool:
    """Whether the change may land: nothing breaking, or the major version was raised."""
    if not any(change.kind == BREAKING for change in changes):
        return True
    return base is not None and head is not None and major(head.get("version")) > major(base.get("version"))


# --- tools/list ---------------------------------------------------------------------------------------------


def _tools(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for name in sorted(set(old) - set(new)):
        yield Change(BREAKING, name, "tool removed (or renamed): agents that call it fail")
    for name in sorted(set(new) - set(old)):
        yield Change(COMPATIBLE, name, "tool added")
    for name in sorted(set(old) & set(new)):
        before, after = old[name], new[name]
        yield from _arguments(name, before.get("inputSchema") or {}, after.get("inputSchema") or {})
        if before.get("description") != after.get("description"):
            yield Change(COMPATIBLE, name, "description changed")
        if before.get("annotations") != after.get("annotations"):
            yield Change(COMPATIBLE, name, "annotations changed")


def _arguments(
    tool: str, old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = ""
) -> Iterator[Change]:
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    old_required, new_required = set(old.get("required") or []), set(new.get("required") or [])
    closed = new.get("additionalProperties") is False
    for name in sorted(set(old_props) - set(new_props)):
        kind = BREAKING if closed else COMPATIBLE
        yield Change(
            kind,
            f"{tool}.{prefix}{name}",
            "argument removed" + (": a call that sends it is refused" if closed else ""),
        )
    for name in sorted(set(new_props) - set(old_props)):
        if name in new_required:
            yield Change(BREAKING, f"{tool}.{prefix}{name}", "new required argument")
        else:
            yield Change(COMPATIBLE, f"{tool}.{prefix}{name}", "optional argument added")
    for name in sorted(set(old_props) & set(new_props)):
        where = f"{tool}.{prefix}{name}"
        if name in new_required and name not in old_required:
            yield Change(BREAKING, where, "argument made required")
        elif name in old_required and name not in new_required:
            yield Change(COMPATIBLE, where, "argument made optional")
        yield from _schema(where, old_props[name], new_props[name])


def _schema(where: str, old: Any, new: Any) -> Iterator[Change]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return
    for key in NARROWING_KEYS:
        if key in new and old.get(key) != new.get(key):
            yield Change(BREAKING, where, f"argument narrowed: {key} {old.get(key)!r} -> {new.get(key)!r}")
        elif key in old and key not in new:
            yield Change(COMPATIBLE, where, f"argument widened: {key} {old[key]!r} dropped")
    if isinstance(old.get("enum"), list) or isinstance(new.get("enum"), list):
        before, after = old.get("enum") or [], new.get("enum") or []
        removed = [value for value in before if value not in after]
        added = [value for value in after if value not in before]
        if removed or (after and not before):
            shown = removed or "the argument became an enum"
            yield Change(BREAKING, where, f"enum value removed: {shown}")
        if added and before:
            yield Change(COMPATIBLE, where, f"enum value added: {added}")
    for key in LOWER_BOUNDS + UPPER_BOUNDS:
        if old.get(key) == new.get(key):
            continue
        tighter = key in new and (
            key not in old or (new[key] > old[key] if key in LOWER_BOUNDS else new[key] < old[key])
        )
        kind, word = (BREAKING, "narrowed") if tighter else (COMPATIBLE, "widened")
        yield Change(kind, where, f"argument {word}: {key} {old.get(key)!r} -> {new.get(key)!r}")
    if old.get("description") != new.get("description"):
        yield Change(COMPATIBLE, where, "description changed")
    for key in sorted(
        set(new) - set(old) - JUDGED_KEYS
    ):  # an annotation such as enumDescriptions or a default
        yield Change(COMPATIBLE, where, f"{key} added")
    if "properties" in old or "properties" in new:
        yield from _arguments(where.split(".", 1)[0], old, new, where.split(".", 1)[1] + ".")
    if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
        yield from _schema(where + "[]", old["items"], new["items"])


# --- manifest and skills ------------------------------------------------------------------------------------


def _manifest(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    old_entities, new_entities = old.get("entities") or {}, new.get("entities") or {}
    for name in sorted(set(old_entities) - set(new_entities)):
        yield Change(BREAKING, f"entities.{name}", "entity type removed")
    for name in sorted(set(new_entities) - set(old_entities)):
        yield Change(COMPATIBLE, f"entities.{name}", "entity type added")
    for name in sorted(set(old_entities) & set(new_entities)):
        before = (old_entities[name] or {}).get("schema") or {}
        after = (new_entities[name] or {}).get("schema") or {}
        yield from _fields(f"entities.{name}", before, after)
    old_tools, new_tools = old.get("tools") or {}, new.get("tools") or {}
    for name in sorted(set(old_tools) & set(new_tools)):
        before = (old_tools[name] or {}).get("output") or {}
        after = (new_tools[name] or {}).get("output") or {}
        where = f"tools.{name}.output"
        if before.get("kind") != after.get("kind"):
            yield Change(BREAKING, where, f"output kind {before.get('kind')!r} -> {after.get('kind')!r}")
        for entity_type in [
            t for t in before.get("entity_types") or [] if t not in (after.get("entity_types") or [])
        ]:
            yield Change(BREAKING, where, f"entity type {entity_type!r} no longer returned")
        for entity_type in [
            t for t in after.get("entity_types") or [] if t not in (before.get("entity_types") or [])
        ]:
            yield Change(COMPATIBLE, where, f"entity type {entity_type!r} also returned")
        if before.get("result_statuses") != after.get("result_statuses"):
            shown = f"{before.get('result_statuses') or []} -> {after.get('result_statuses') or []}"
            yield Change(COMPATIBLE, where, f"result_statuses {shown}")


def _fields(where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for name in sorted(set(old) - set(new)):
        yield Change(BREAKING, f"{where}.{name}", "output field removed")
    for name in sorted(set(new) - set(old)):
        yield Change(COMPATIBLE, f"{where}.{name}", "output field added")
    for name in sorted(set(old) & set(new)):
        before, after, path = old[name] or {}, new[name] or {}, f"{where}.{name}"
        if before.get("type") != after.get("type"):
            yield Change(
                BREAKING, path, f"output field retyped: {before.get('type')!r} -> {after.get('type')!r}"
            )
        if before.get("llm_visible", True) is not False and after.get("llm_visible", True) is False:
            yield Change(BREAKING, path, "a model-visible field hidden (llm_visible: false)")
        elif before.get("llm_visible", True) is False and after.get("llm_visible", True) is not False:
            yield Change(COMPATIBLE, path, "field shown to the model")
        if isinstance(before.get("properties"), dict) or isinstance(after.get("properties"), dict):
            yield from _fields(path, before.get("properties") or {}, after.get("properties") or {})
        if isinstance(before.get("items"), dict) and isinstance(after.get("items"), dict):
            yield from _fields(
                f"{path}[]", before["items"].get("properties") or {}, after["items"].get("properties") or {}
            )


def _skills(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Change]:
    for uri in sorted(set(old) - set(new)):
        yield Change(BREAKING, uri, "skill removed")
    for uri in sorted(set(new) - set(old)):
        yield Change(COMPATIBLE, uri, "skill added")
    for uri in sorted(set(old) & set(new)):
        if old[uri] != new[uri]:
            yield Change(COMPATIBLE, uri, "skill frontmatter changed")
