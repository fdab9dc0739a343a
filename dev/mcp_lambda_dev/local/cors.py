"""CORS as the deployed stack answers it: API Gateway's CorsConfiguration from template.yaml, for the origins of
ALLOWED_ORIGINS (the AllowedOrigins stack parameter in AWS).

API Gateway answers a preflight itself (the function never sees it) and adds Access-Control-Allow-Origin and
Access-Control-Expose-Headers to the function's answers to an allowed origin. The methods, headers, exposed
headers and max age are read from template.yaml, so local and deployed cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import yaml

TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"


class _TemplateLoader(yaml.SafeLoader):
    """Reads CloudFormation's short tags (!Ref, !If, ...) as plain values, which is all we need here."""


def _untagged(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_TemplateLoader.add_multi_constructor("!", _untagged)


@dataclass(frozen=True)
class CorsConfiguration:
    """The CorsConfiguration of the HTTP API, less AllowOrigins (that comes from ALLOWED_ORIGINS)."""

    allow_methods: tuple[str, ...]
    allow_headers: tuple[str, ...]
    expose_headers: tuple[str, ...]
    max_age: int | None

    @classmethod
    def from_template(cls, template: Path = TEMPLATE) -> CorsConfiguration:
        document = yaml.load(template.read_text(encoding="utf-8"), Loader=_TemplateLoader)
        branches = document["Resources"]["McpApi"]["Properties"]["CorsConfiguration"]
        config: Mapping[str, Any] = branches[1]  # !If [HasBrowserOrigins, <configuration>, !Ref AWS::NoValue]
        max_age = config.get("MaxAge")
        return cls(
            allow_methods=tuple(config.get("AllowMethods") or ()),
            allow_headers=tuple(config.get("AllowHeaders") or ()),
            expose_headers=tuple(config.get("ExposeHeaders") or ()),
            max_age=int(max_age) if max_age is not None else None,
        )


def allowed_origin(origin: str | None, allowed: Sequence[str]) -> str | None:
    """The Access-Control-Allow-Origin value for `origin`: itself, `*` when allowed by a bare `*`, else None."""
    if not origin:
        return None
    lowered = origin.strip().lower()
    for pattern in allowed:
        if pattern == "*":
            return "*"
        if fnmatchcase(lowered, pattern.lower()):
            return origin
    return None


def is_preflight(method: str, headers: Mapping[str, str]) -> bool:
    lowered = {name.lower() for name in headers}
    return method == "OPTIONS" and "origin" in lowered and "access-control-request-method" in lowered


def preflight_headers(
    config: CorsConfiguration, origin: str | None, allowed: Sequence[str]
) -> dict[str, str]:
    """The headers of API Gateway's 204 answer to a preflight; none for an origin that is not allowed."""
    allow_origin = allowed_origin(origin, allowed)
    if allow_origin is None:
        return {}
    headers = {
        "access-control-allow-origin": allow_origin,
        "access-control-allow-methods": ",".join(config.allow_methods),
        "access-control-allow-headers": ",".join(config.allow_headers),
    }
    if config.max_age is not None:
        headers["access-control-max-age"] = str(config.max_age)
    return headers


def response_headers(config: CorsConfiguration, origin: str | None, allowed: Sequence[str]) -> dict[str, str]:
    """What API Gateway adds to the function's answer to an allowed origin."""
    allow_origin = allowed_origin(origin, allowed)
    if allow_origin is None:
        return {}
    headers = {"access-control-allow-origin": allow_origin}
    if config.expose_headers:
        headers["access-control-expose-headers"] = ",".join(config.expose_headers)
    return headers
