"""A business's stack: template.yaml merged with `src/businesses/<name>/stack.yaml`, the business's own fragment.

`stack_compose.py BUSINESS OUT` writes OUT, the stack template of one business; `--all DIR` writes
DIR/<business>.template.yaml for every business of `src/businesses/` that has a fragment (make lint checks those).
`make build` composes the same way (dev/mcp_lambda_tools/build/package_stage.py).

The fragment is CloudFormation with one extra section. `Parameters`, `Conditions`, `Resources` and `Outputs` are
added to the framework's; `Function` holds what the business adds to the framework's function: `Environment`
(variables, name -> value) and `Policies` (IAM statements for the function's role); `Package` holds what the
build reads and the template never sees (`BudgetMb`, the business part's size budget). A fragment that redefines
a framework parameter, condition, resource, output, environment variable, setting or statement Sid is refused,
one line per clash, as is any other top-level section.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[3]
TEMPLATE = REPO / "template.yaml"
FRAGMENT = "stack.yaml"
FUNCTION = "McpFunction"
MERGED = ("Parameters", "Conditions", "Resources", "Outputs")
SECTIONS = (*MERGED, "Function", "Package")
FUNCTION_KEYS = ("Environment", "Policies")
PACKAGE_KEYS = ("BudgetMb",)
# Parameters and resources share one namespace of logical ids; conditions and outputs have their own.
NAMESPACE = {"Parameters": "ids", "Resources": "ids", "Conditions": "Conditions", "Outputs": "Outputs"}
VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# Lambda refuses these names in a function's environment (AWS_ is its own prefix).
RESERVED_VARIABLE = re.compile(r"(AWS_|_HANDLER$|_X_AMZN_|LAMBDA_)")
# A business's package budget when its fragment sets none (MB, without the framework).
DEFAULT_BUDGET_MB = 8.0


class ComposeError(Exception):
    """The fragment cannot be merged; the message has one line per problem."""


@dataclass(frozen=True)
class Tagged:
    """A CloudFormation short-form intrinsic (`!Ref x`, `!Sub ...`), kept as written through a load and a dump."""

    tag: str
    value: Any


class CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that keeps every `!Tag` as a Tagged value."""


class CloudFormationDumper(yaml.SafeDumper):
    """SafeDumper that writes Tagged values back as their `!Tag`."""


def _tagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Tagged:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return Tagged("!" + suffix, value)


def _represent(dumper: yaml.SafeDumper, tagged: Tagged) -> yaml.Node:
    if isinstance(tagged.value, list):
        return dumper.represent_sequence(tagged.tag, tagged.value)
    if isinstance(tagged.value, dict):
        return dumper.represent_mapping(tagged.tag, tagged.value)
    return dumper.represent_scalar(tagged.tag, str(tagged.value))


CloudFormationLoader.add_multi_constructor("!", _tagged)
CloudFormationDumper.add_representer(Tagged, _represent)


def load(path: Path) -> dict[str, Any]:
    """A CloudFormation YAML file, short-form intrinsics kept as Tagged.

    Args:
        path: The file.

    Returns:
        Its top-level mapping (empty for an empty file).

    Raises:
        ComposeError: The file is not YAML, or not a mapping.
    """
    try:
        loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=CloudFormationLoader)
    except yaml.YAMLError as exc:
        raise ComposeError(f"{path}: not valid YAML: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ComposeError(f"{path}: must be a mapping of sections ({', '.join(SECTIONS)})")
    return loaded


def dump(template: dict[str, Any]) -> str:
    """The template as YAML, in its own key order, short-form intrinsics as written."""
    return yaml.dump(template, Dumper=CloudFormationDumper, sort_keys=False, width=120, allow_unicode=True)


def fragment_path(business: str, source: Path = REPO / "src") -> Path:
    """Where the business keeps its stack fragment: `source/businesses/<business>/stack.yaml`."""
    return source / "businesses" / business / FRAGMENT


def framework_variables(template: dict[str, Any]) -> set[str]:
    """The environment variables the framework sets or reads: its function's and its settings' names."""
    from mcp_lambda.settings import Settings

    variables = template["Resources"][FUNCTION]["Properties"]["Environment"]["Variables"]
    return set(variables) | set(Settings.variables())


def _statements(template: dict[str, Any]) -> list[Any]:
    policies = template["Resources"][FUNCTION]["Properties"]["Policies"]
    statements: list[Any] = policies[0]["Statement"]
    return statements


def _sids(statements: Iterable[Any]) -> list[str]:
    return [
        statement["Sid"] for statement in statements if isinstance(statement, dict) and "Sid" in statement
    ]


def problems(template: dict[str, Any], fragment: dict[str, Any], where: str) -> list[str]:
    """What keeps `fragment` from being merged into `template` (empty when nothing does).

    Args:
        template: The framework's template.
        fragment: The business's fragment.
        where: The fragment's path, for the messages.

    Returns:
        One line per problem.
    """
    found = [
        f"{where}: unknown section '{section}' (a fragment has {', '.join(SECTIONS)})"
        for section in fragment
        if section not in SECTIONS
    ]
    taken: dict[str, set[str]] = {"ids": set(), "Conditions": set(), "Outputs": set()}
    for section in MERGED:
        taken[NAMESPACE[section]] |= set(template.get(section) or {})
    for section in MERGED:
        entries = fragment.get(section) or {}
        if not isinstance(entries, dict):
            found.append(f"{where}: {section} must be a mapping of logical ids")
            continue
        found += [
            f"{where}: {section}.{name} redefines the framework's {name}: give it a name of the business's own"
            for name in entries
            if name in taken[NAMESPACE[section]]
        ]
    function = fragment.get("Function") or {}
    if not isinstance(function, dict):
        return [*found, f"{where}: Function must be a mapping ({', '.join(FUNCTION_KEYS)})"]
    found += [
        f"{where}: unknown key 'Function.{key}' (Function has {', '.join(FUNCTION_KEYS)})"
        for key in function
        if key not in FUNCTION_KEYS
    ]
    environment = function.get("Environment") or {}
    if not isinstance(environment, dict):
        found.append(f"{where}: Function.Environment must be a mapping of variable names to values")
        environment = {}
    framework = framework_variables(template)
    for name in environment:
        if not isinstance(name, str) or not VARIABLE.fullmatch(name):
            found.append(f"{where}: Function.Environment.{name} is not an environment variable name")
        elif name in framework:
            found.append(
                f"{where}: Function.Environment.{name} redefines the framework's variable {name}: "
                "prefix the business's variables with its name (a prefixed settings model, docs/configuration.md)"
            )
        elif RESERVED_VARIABLE.match(name):
            found.append(f"{where}: Function.Environment.{name} is reserved by Lambda")
    policies = function.get("Policies") or []
    if not isinstance(policies, list) or not all(isinstance(item, dict) for item in policies):
        found.append(
            f"{where}: Function.Policies must be a list of IAM statements (Effect, Action, Resource)"
        )
    else:
        framework_sids = set(_sids(_statements(template)))
        found += [
            f"{where}: Function.Policies statement Sid '{sid}' redefines the framework's statement {sid}"
            for sid in _sids(policies)
            if sid in framework_sids
        ]
    package = fragment.get("Package") or {}
    if not isinstance(package, dict) or any(key not in PACKAGE_KEYS for key in package):
        found.append(f"{where}: Package may hold only {', '.join(PACKAGE_KEYS)}")
    elif "BudgetMb" in package and not (
        isinstance(package["BudgetMb"], int | float) and not isinstance(package["BudgetMb"], bool)
    ):
        found.append(f"{where}: Package.BudgetMb must be a number of megabytes")
    return found


def compose(template: dict[str, Any], fragment: dict[str, Any], where: str = FRAGMENT) -> dict[str, Any]:
    """The framework's template with the fragment's sections, variables and statements added.

    Args:
        template: The framework's template (not changed).
        fragment: The business's fragment.
        where: The fragment's path, for the messages.

    Returns:
        A new template.

    Raises:
        ComposeError: The fragment redefines something of the framework's, or is malformed.
    """
    found = problems(template, fragment, where)
    if found:
        raise ComposeError("\n".join(found))
    composed = yaml.load(dump(template), Loader=CloudFormationLoader)  # a deep copy, tags and all
    for section in MERGED:
        entries = fragment.get(section) or {}
        if entries:
            composed[section] = {**(composed.get(section) or {}), **entries}
    function = fragment.get("Function") or {}
    properties = composed["Resources"][FUNCTION]["Properties"]
    properties["Environment"]["Variables"].update(function.get("Environment") or {})
    _statements(composed).extend(function.get("Policies") or [])
    return composed


def budget_mb(business: str, source: Path = REPO / "src") -> float:
    """The business part's package budget: its fragment's `Package.BudgetMb`, else DEFAULT_BUDGET_MB."""
    path = fragment_path(business, source)
    fragment = load(path) if path.is_file() else {}
    return float((fragment.get("Package") or {}).get("BudgetMb", DEFAULT_BUDGET_MB))


def business_template(
    business: str, source: Path = REPO / "src", template: Path = TEMPLATE
) -> dict[str, Any]:
    """The stack template of `business`: template.yaml, composed with the business's fragment when it has one.

    Args:
        business: The business.
        source: The source tree (holds businesses/).
        template: The framework's template.

    Returns:
        The template.

    Raises:
        ComposeError: The fragment cannot be merged.
    """
    framework = load(template)
    path = fragment_path(business, source)
    if not path.is_file():
        return framework
    return compose(framework, load(path), str(path.relative_to(source.parent)))


def with_fragments(source: Path = REPO / "src") -> list[str]:
    """The businesses of `source/businesses/` that have a stack fragment, sorted."""
    return sorted(path.parent.name for path in (source / "businesses").glob(f"*/{FRAGMENT}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business", nargs="?", help="the business (without --all)")
    parser.add_argument("out", type=Path, help="the template to write, or the directory with --all")
    parser.add_argument("--all", action="store_true", help="every business with a fragment, into OUT/")
    parser.add_argument("--source", type=Path, default=REPO / "src")
    args = parser.parse_args(argv)
    if args.all == bool(args.business):
        parser.error("give BUSINESS OUT, or --all DIR")
    targets = (
        {name: args.out / f"{name}.template.yaml" for name in with_fragments(args.source)}
        if args.all
        else {args.business: args.out}
    )
    failed = False
    for business, out in targets.items():
        try:
            composed = business_template(business, args.source)
        except ComposeError as exc:
            for line in str(exc).splitlines():
                print(f"stack_compose: {line}", file=sys.stderr)
            failed = True
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(dump(composed), encoding="utf-8")
        print(f"stack_compose: {out} (template.yaml + businesses/{business}/{FRAGMENT})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
