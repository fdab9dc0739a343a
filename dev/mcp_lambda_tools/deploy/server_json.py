"""A business's listing for agent platforms, as the MCP Registry's `server.json`: `make server-json BUSINESS=x`.

Generated from what the business already declares: its `Business` (name, title, version, tools, skills), the
settings classes of its package (required configuration: `DEMO_INVENTORY_URL`, ...), the secrets its code reads
(`ctx.secret("name")`), the downstream interfaces its `ctx.http` calls name (`interface="inventory.get_stock"`),
and `src/businesses/<x>/listing.yaml` for what only the business can know (namespace, a one-line description,
category, icons, website, repository, the hosts its calls go to, the public URL). Validated against the registry's
published schema, kept in `schemas/` (its `$id` is its source URL); written to `build/<x>.server.json`. Exits 1,
naming each problem, when the document is not valid.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import pkgutil
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from pydantic import BaseModel

from mcp_lambda.settings import EnvironmentSettings
from mcp_lambda.settings.environment import variable_of
from mcp_lambda.tools import Business
from mcp_lambda.wire import REVISIONS
from mcp_lambda_dev.businesses import load_business
from mcp_lambda_tools.lint.skill_lint import package_dir

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = ROOT / "schemas" / "server.schema.2025-12-11.json"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"
LISTING = "listing.yaml"
DEFAULT_NAMESPACE = "com.example"  # a listing.yaml `namespace` replaces it: the registry checks who owns it
FRAMEWORK_SECRETS = ("log_fingerprint_key", "request_state_key")  # optional, read by the framework itself


def listing_of(name: str) -> dict[str, Any]:
    """The business's own listing fields (`listing.yaml` beside its code), or {}."""
    path = package_dir(name) / LISTING
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise SystemExit(f"server-json: {path} must be a mapping")
    return data


def _calls(name: str) -> list[ast.Call]:
    calls = []
    for path in sorted(package_dir(name).rglob("*.py")):
        calls += [
            node
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call)
        ]
    return calls


def _constants(name: str) -> dict[str, str]:
    """Module-level `NAME = "text"` constants of the business's package (a secret's name is often one)."""
    found: dict[str, str] = {}
    for path in sorted(package_dir(name).rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                        found[target.id] = node.value.value
    return found


def secret_names(name: str) -> list[str]:
    """The names the business's code passes to `ctx.secret(...)`, constants resolved."""
    constants, names = _constants(name), set()
    for call in _calls(name):
        if isinstance(call.func, ast.Attribute) and call.func.attr == "secret" and call.args:
            argument = call.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                names.add(argument.value)
            elif isinstance(argument, ast.Name) and argument.id in constants:
                names.add(constants[argument.id])
    return sorted(names)


def interfaces(name: str) -> list[str]:
    """The downstream interfaces the business's `ctx.http` calls name (`interface="..."`)."""
    return sorted(
        {
            keyword.value.value
            for call in _calls(name)
            for keyword in call.keywords
            if keyword.arg == "interface" and isinstance(keyword.value, ast.Constant)
        }
    )


def settings_bases() -> tuple[type[BaseModel], ...]:
    """The bases of a business's settings classes: the framework's, and pydantic-settings' when installed (a
    business may bring it in its own requirements, for its dotenv files or secret directories)."""
    try:
        from pydantic_settings import BaseSettings
    except ImportError:
        return (EnvironmentSettings,)
    return (EnvironmentSettings, BaseSettings)


def variables_of(settings: type[BaseModel]) -> dict[str, str]:
    """Field name -> its environment variable, for a settings class of either base."""
    if issubclass(settings, EnvironmentSettings):
        return {
            name: variable_of(name, field, settings.env_prefix)
            for name, field in settings.model_fields.items()
        }
    prefix = str(settings.model_config.get("env_prefix") or "")
    return {name: f"{prefix}{name}".upper() for name in settings.model_fields}


def settings_of(name: str) -> list[dict[str, Any]]:
    """The environment variables of the settings classes (`EnvironmentSettings`, or pydantic-settings'
    `BaseSettings`) of the business's package."""
    package = importlib.import_module(f"businesses.{name}")
    bases = settings_bases()
    found = []
    for module_info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        module = importlib.import_module(module_info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, bases) and value.__module__ == module.__name__:
                for field_name, variable in variables_of(value).items():
                    field = value.model_fields[field_name]
                    entry = {"name": variable, "isRequired": field.is_required()}
                    if field.description:
                        entry["description"] = field.description
                    found.append(entry)
    return found


def server_json(
    name: str, business: Business, listing: dict[str, Any], url: str | None = None
) -> dict[str, Any]:
    """The `server.json` document of the business."""
    remote: dict[str, Any] = {
        "type": "streamable-http",
        "url": url or listing.get("url") or "https://{host}/mcp",
    }
    if "{host}" in remote["url"]:
        remote["variables"] = {
            "host": {
                "description": "The API Gateway host of the business's stack (make deploy prints its endpoint)",
                "isRequired": True,
            }
        }
    if listing.get("auth") == "oauth":
        remote["headers"] = [
            {
                "name": "Authorization",
                "description": "Bearer access token from the business's authorization server",
                "isRequired": True,
                "isSecret": True,
            }
        ]
    description = listing.get("description") or f"{business.title or name}: tools for agents on AWS Lambda"
    document: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "name": f"{listing.get('namespace', DEFAULT_NAMESPACE)}/{name.replace('_', '-')}",
        "description": description,
        "version": business.version,
        "remotes": [remote],
    }
    if business.title:
        document["title"] = business.title
    for key in ("websiteUrl", "repository", "icons"):
        if key in listing:
            document[key] = listing[key]
    skills = []
    if business.skills is not None:
        skills = [
            f"skill://{folder.name}/SKILL.md"
            for folder in sorted(business.skills.iterdir())
            if (folder / "SKILL.md").is_file()
        ]
    document["_meta"] = {
        PUBLISHER: {
            "category": listing.get("category", "uncategorized"),
            "transports": ["streamable-http", "stdio"],
            "protocolVersions": list(reversed(REVISIONS)),
            "configuration": {
                "settings": settings_of(name),
                "secrets": [secret for secret in secret_names(name) if secret not in FRAMEWORK_SECRETS],
            },
            "network": {"interfaces": interfaces(name), "hosts": list(listing.get("hosts", []))},
            "tools": [{"name": spec.name, "readOnly": spec.read_only} for spec in business.tools],
            "skills": skills,
        }
    }
    return document


def problems_of(document: dict[str, Any], schema_path: Path = SCHEMA) -> list[str]:
    """Every way the document breaks the registry's schema, one line each (`path: message`)."""
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(str(part) for part in error.absolute_path) or '<root>'}: {error.message}"
        for error in sorted(validator.iter_errors(document), key=lambda error: list(error.absolute_path))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business")
    parser.add_argument(
        "--url", default=None, help="the deployed endpoint (default: listing.yaml's url, else a template)"
    )
    parser.add_argument("--out", type=Path, default=None, help="default: build/<business>.server.json")
    args = parser.parse_args(argv)
    document = server_json(args.business, load_business(args.business), listing_of(args.business), args.url)
    problems = problems_of(document)
    for problem in problems:
        print(f"server-json: {problem}", file=sys.stderr)
    if problems:
        return 1
    out = args.out or ROOT / "build" / f"{args.business}.server.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"server-json: {out} is valid against {SCHEMA_URL}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
