"""Point a Lambda alias back at an earlier published version: the emergency rollback after a failed smoke check.

Usage: `make rollback STACK=mcp-demo` (the stack's `McpFunction`) or `make rollback FUNCTION=mcp-demo-mcp`,
with `ALIAS=live` (the default) and `TO=41` (a published version; default: the highest one below the alias's).
Prints one line saying from which version to which. Exit codes: 0 rolled back, 1 AWS refused or could not be
asked, 2 nothing to roll back to (the first deploy, an unknown `--to`, or, with `--published-after`, an alias
whose version is older than the deploy that failed). `$LATEST` is never a target.

The alias then drifts from the stack: CloudFormation still records the version it set, and the next deploy that
publishes a version moves the alias again. That is the point of an emergency rollback: the previous code serves
at once, and the fix (or a revert) goes through the pipeline as usual.
"""

from __future__ import annotations

import argparse
import datetime
import re
import sys
from typing import Any

FUNCTION_LOGICAL_ID = "McpFunction"  # template.yaml
# Lambda's LastModified: 2026-12-02T06:10:00.000+0000 (moto: nanoseconds and Z).
_LAST_MODIFIED = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d):?(\d\d)?$")


class RollbackFailed(Exception):
    """AWS refused a call or could not be asked (no region, no credentials, no such stack or function)."""


class NothingToRollBack(Exception):
    """There is no version to move the alias to (or, with `published_after`, no reason to)."""


def aws_error(call: str, error: Exception) -> RollbackFailed:
    """A RollbackFailed naming the call; botocore's messages hold no credentials."""
    return RollbackFailed(f"{call}: {error}")


def stack_function(stack: str, client: Any) -> str:
    """The physical name of a stack's `McpFunction`.

    Args:
        stack: The stack name (`mcp-demo`).
        client: A CloudFormation client.

    Returns:
        The function's name (`mcp-demo-mcp`).

    Raises:
        RollbackFailed: AWS refused or could not be asked (no such stack, no such resource in it).
    """
    import botocore.exceptions

    try:
        found = client.describe_stack_resource(StackName=stack, LogicalResourceId=FUNCTION_LOGICAL_ID)
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        raise aws_error(f"describe_stack_resource {stack} {FUNCTION_LOGICAL_ID}", error) from None
    return str(found["StackResourceDetail"]["PhysicalResourceId"])


def published_versions(function: str, client: Any) -> dict[int, str]:
    """The function's published versions (`$LATEST` left out), each with its LastModified."""
    versions: dict[int, str] = {}
    for page in client.get_paginator("list_versions_by_function").paginate(FunctionName=function):
        for version in page["Versions"]:
            if version["Version"].isdigit():
                versions[int(version["Version"])] = str(version.get("LastModified", ""))
    return versions


def _published_at(text: str) -> datetime.datetime | None:
    match = _LAST_MODIFIED.match(text)
    if not match:
        return None
    whole, fraction, hours, minutes = match.groups()
    zone = "+00:00" if hours == "Z" else f"{hours}:{minutes or '00'}"
    return datetime.datetime.fromisoformat(f"{whole}.{(fraction or '').ljust(6, '0')[:6]}{zone}")


def choose_target(
    current: int,
    versions: dict[int, str],
    to: int | None = None,
    published_after: datetime.datetime | None = None,
) -> int:
    """The version to move the alias to.

    Args:
        current: The alias's version now.
        versions: The published versions, each with its LastModified (`published_versions`).
        to: An explicit target, which must be published; None: the highest published version below `current`.
        published_after: Roll back only when `current` was published after this (the deploy that failed made
            it); None: always.

    Returns:
        The target version.

    Raises:
        NothingToRollBack: No earlier version, `to` is not published, or `current` predates `published_after`.
    """
    if published_after is not None:
        made = _published_at(versions.get(current, ""))
        if made is None or made <= published_after:
            raise NothingToRollBack(
                f"version {current} was published before {published_after.isoformat()}: "
                "this deploy published no version, so there is nothing of it to roll back"
            )
    if to is not None:
        if to not in versions:
            known = ", ".join(str(version) for version in sorted(versions)) or "none"
            raise NothingToRollBack(f"version {to} is not published (published: {known})")
        return to
    earlier = [version for version in versions if version < current]
    if not earlier:
        raise NothingToRollBack(
            f"no published version below {current}: the first deploy has nothing to roll back to"
        )
    return max(earlier)


def roll_back(
    function: str,
    alias: str,
    client: Any,
    to: int | None = None,
    published_after: datetime.datetime | None = None,
) -> tuple[int, int]:
    """Move `alias` of `function` to an earlier published version (all of its traffic, no weighted routing).

    Args:
        function: The function's name or ARN.
        alias: The alias (`live`).
        client: A Lambda client.
        to: The version to move to; None: the highest published version below the alias's.
        published_after: See `choose_target`.

    Returns:
        (from version, to version).

    Raises:
        RollbackFailed: AWS refused or could not be asked.
        NothingToRollBack: See `choose_target`; also when the alias points at `$LATEST` and `to` is None.
    """
    import botocore.exceptions

    try:
        current_alias = client.get_alias(FunctionName=function, Name=alias)
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        raise aws_error(f"get_alias {function}:{alias}", error) from None
    pointed = str(current_alias["FunctionVersion"])
    if not pointed.isdigit():
        raise NothingToRollBack(f"alias {alias} points at {pointed}, not a published version")
    current = int(pointed)
    try:
        versions = published_versions(function, client)
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        raise aws_error(f"list_versions_by_function {function}", error) from None
    target = choose_target(current, versions, to, published_after)
    try:
        # RevisionId: a deploy that moved the alias meanwhile makes this fail instead of being overwritten.
        client.update_alias(
            FunctionName=function,
            Name=alias,
            FunctionVersion=str(target),
            RoutingConfig={"AdditionalVersionWeights": {}},
            RevisionId=current_alias["RevisionId"],
        )
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        raise aws_error(f"update_alias {function}:{alias}", error) from None
    return current, target


def _version(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a published version number ($LATEST is never one)")
    return int(text)


def _instant(text: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def main(argv: list[str] | None = None, cloudformation: Any = None, lambda_client: Any = None) -> int:
    """The command line; `cloudformation` and `lambda_client` replace the boto3 clients (default region)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stack", help=f"a CloudFormation stack whose {FUNCTION_LOGICAL_ID} is the function")
    where.add_argument("--function", help="the function's name or ARN")
    parser.add_argument("--alias", default="live", help="the alias to move (default live)")
    parser.add_argument("--to", type=_version, help="the version to move to (default: the one before)")
    parser.add_argument(
        "--published-after",
        type=_instant,
        help="roll back only when the alias's version was published after this ISO 8601 time",
    )
    options = parser.parse_args(argv)
    import boto3
    import botocore.exceptions

    try:
        if options.stack:
            function = stack_function(options.stack, cloudformation or boto3.client("cloudformation"))
        else:
            function = options.function
        before, after = roll_back(
            function,
            options.alias,
            lambda_client or boto3.client("lambda"),
            options.to,
            options.published_after,
        )
    except RollbackFailed as reason:
        print(f"rollback: {reason}", file=sys.stderr)
        return 1
    except NothingToRollBack as reason:
        print(f"rollback: nothing rolled back: {reason}", file=sys.stderr)
        return 2
    except botocore.exceptions.BotoCoreError as error:  # boto3.client() itself: no region configured
        print(f"rollback: {error}", file=sys.stderr)
        return 1
    print(f"ROLLED BACK  {function}:{options.alias} from version {before} to version {after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
