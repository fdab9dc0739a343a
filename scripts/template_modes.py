"""What CloudFormation would deploy from template.yaml in each auth mode: SAM's transform, then the conditions.

    env -u PYTHONPATH AWS_DEFAULT_REGION=us-east-1 .venv-sam/bin/python scripts/template_modes.py OLD.yaml NEW.yaml

Runs with SAM CLI's Python (.venv-sam: SAM's translator and YAML loader). Each template is transformed by SAM's
translator (the function's CodeUri set to an S3 location, as `sam deploy` packages it), then, for each auth mode
(MODES: the AuthMode and JwtIssuer parameters; the others keep their defaults), every Fn::If is replaced by the
branch its condition takes, every AWS::NoValue removed and every resource whose condition is false dropped: what
CloudFormation creates. With two templates, it prints the differences per mode and exits 1 if there is one; with
one, it prints the resolved HTTP API body of each mode as JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

ISSUER = "https://issuer.example.com/"
MODES = {
    "no issuer (none)": {"AuthMode": "", "JwtIssuer": ""},
    "issuer, AuthMode empty (apigateway)": {"AuthMode": "", "JwtIssuer": ISSUER},
    "AuthMode=apigateway": {"AuthMode": "apigateway", "JwtIssuer": ISSUER},
    "AuthMode=jwt": {"AuthMode": "jwt", "JwtIssuer": ISSUER},
    "AuthMode=none": {"AuthMode": "none", "JwtIssuer": ISSUER},
}
NO_VALUE = {"Ref": "AWS::NoValue"}


class _Loader:
    """No managed policy names to look up: the template names its policies by ARN or SAM policy template."""

    def load(self) -> dict[str, str]:
        return {}


def transformed(path: str) -> dict[str, Any]:
    """The template at `path` after SAM's transform (as `sam deploy` would send it, code on S3)."""
    from samcli.yamlhelper import yaml_parse
    from samtranslator.translator.transform import transform

    with open(path, encoding="utf-8") as handle:
        template = yaml_parse(handle.read())
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = "s3://bucket/code.zip"
    result: dict[str, Any] = transform(template, {}, _Loader())
    return result


def parameter_values(template: dict[str, Any], overrides: dict[str, str]) -> dict[str, Any]:
    """Every parameter's value: its default, or the override."""
    values = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()}
    return {**values, **overrides}


def condition_values(template: dict[str, Any], parameters: dict[str, Any]) -> dict[str, bool]:
    """Every condition of the template, evaluated with `parameters`."""
    conditions = template.get("Conditions", {})
    values: dict[str, bool] = {}

    def value(node: Any) -> Any:
        if isinstance(node, dict) and len(node) == 1:
            [(function, arguments)] = node.items()
            if function == "Ref":
                return parameters[arguments]
            if function == "Condition":
                return evaluate(arguments)
            if function == "Fn::Equals":
                return str(value(arguments[0])) == str(value(arguments[1]))
            if function == "Fn::Not":
                return not value(arguments[0])
            if function == "Fn::And":
                return all(value(argument) for argument in arguments)
            if function == "Fn::Or":
                return any(value(argument) for argument in arguments)
        if isinstance(node, list):
            return ",".join(str(value(item)) for item in node)
        return node

    def evaluate(name: str) -> bool:
        if name not in values:
            values[name] = bool(value(conditions[name]))
        return values[name]

    for name in conditions:
        evaluate(name)
    return values


def resolved(node: Any, conditions: dict[str, bool]) -> Any:
    """`node` with each Fn::If replaced by its branch and each AWS::NoValue removed."""
    if isinstance(node, dict):
        if len(node) == 1 and "Fn::If" in node:
            name, when_true, when_false = node["Fn::If"]
            return resolved(when_true if conditions[name] else when_false, conditions)
        out = {}
        for key, value in node.items():
            value = resolved(value, conditions)
            if value != NO_VALUE:
                out[key] = value
        return out
    if isinstance(node, list):
        return [item for item in (resolved(item, conditions) for item in node) if item != NO_VALUE]
    return node


def deployed(template: dict[str, Any], overrides: dict[str, str]) -> dict[str, Any]:
    """The resources and outputs CloudFormation would create from a transformed template with `overrides`."""
    conditions = condition_values(template, parameter_values(template, overrides))
    kept = {
        section: {
            name: resolved({k: v for k, v in body.items() if k != "Condition"}, conditions)
            for name, body in template.get(section, {}).items()
            if conditions.get(body.get("Condition"), True)
        }
        for section in ("Resources", "Outputs")
    }
    return kept


def differences(old: Any, new: Any, path: str = "$") -> list[str]:
    """Where two JSON values differ, one line per place."""
    if isinstance(old, dict) and isinstance(new, dict):
        lines = []
        for key in sorted(set(old) | set(new)):
            if key not in new:
                lines.append(f"{path}.{key}: removed")
            elif key not in old:
                lines.append(f"{path}.{key}: added")
            else:
                lines.extend(differences(old[key], new[key], f"{path}.{key}"))
        return lines
    if old != new:
        return [f"{path}: {json.dumps(old)[:120]} -> {json.dumps(new)[:120]}"]
    return []


def main(argv: list[str]) -> int:
    templates = [transformed(path) for path in argv]
    if len(templates) == 1:
        bodies = {
            mode: deployed(templates[0], values)["Resources"]["McpApi"]["Properties"]["Body"]
            for mode, values in MODES.items()
        }
        print(json.dumps(bodies, indent=1, sort_keys=True))
        return 0
    old, new = templates
    changed = 0
    for mode, values in MODES.items():
        found = differences(deployed(old, values), deployed(new, values))
        print(f"{mode}: {'identical' if not found else f'{len(found)} differences'}")
        for line in found:
            print(f"  {line}")
        changed += len(found)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
