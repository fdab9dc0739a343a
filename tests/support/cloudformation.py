"""Reading template.yaml in tests: a YAML loader for CloudFormation's short intrinsic tags, and a walk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"


class CloudFormationLoader(yaml.SafeLoader):
    """SafeLoader that reads the short intrinsic tags (!Ref, !GetAtt, !Sub ...) as their long JSON forms."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


CloudFormationLoader.add_multi_constructor("!", _intrinsic)


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    """The template at `path` (default: the repository's template.yaml), intrinsics in their long forms."""
    return yaml.load(path.read_text(), Loader=CloudFormationLoader)


def walk(node: Any) -> Iterator[Any]:
    """`node` and every dict, list and scalar inside it, depth first."""
    yield node
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        yield from walk(child)
