"""`make fleet`: the deployed fleet on one machine — DynamoDB Local with the template's four tables, and several
`make run` servers (separate processes, like separate Lambda containers) whose every store is DynamoDB.

What one container learns, the others see through the tables, as in AWS: legacy sessions, exactly-once records,
tasks, the downstream circuit breakers and the per-caller quota counters. Each server keeps what a container keeps
to itself: its caches, its per-container `rate_limit` counters, its module-level state.

    make fleet BUSINESS=demo SERVERS=2 PORT=8080   # http://127.0.0.1:8080/mcp and :8081/mcp; Ctrl-C stops all

Used by the integration tests (`fleet_env`, `running_fleet`) on a DynamoDB Local they already run.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[3]
if str(REPO_ROOT / "dev") not in sys.path:  # run as a file: the dev folder holds this package
    sys.path.insert(0, str(REPO_ROOT / "dev"))
    sys.path.insert(0, str(REPO_ROOT))

from mcp_lambda_dev import services  # noqa: E402

# Fake credentials for DynamoDB Local (which accepts any); the servers never see real ones.
LOCAL_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
# kind → (the settings naming its backend and table, the creator of template.yaml's schema)
TABLES: dict[str, tuple[str, str, Callable[[Any, str], None]]] = {
    "sessions": ("SESSION_STORE", "SESSIONS_TABLE", services.create_sessions_table),
    "idempotency": ("IDEMPOTENCY_STORE", "IDEMPOTENCY_TABLE", services.create_idempotency_table),
    "tasks": ("TASKS_STORE", "TASKS_TABLE", services.create_tasks_table),
    "protection": ("PROTECTION_STORE", "PROTECTION_TABLE", services.create_protection_table),
}


def table_names(prefix: str) -> dict[str, str]:
    """The fleet's table per kind: `<prefix>-sessions`, `<prefix>-idempotency`, ...

    Args:
        prefix: What every table name starts with (`mcp-<business>-local` for `make fleet`).

    Returns:
        The table name of each kind in `TABLES`.
    """
    return {kind: f"{prefix}-{kind}" for kind in TABLES}


def create_tables(dynamodb_client: Any, names: Mapping[str, str]) -> None:
    """Create the tables that do not exist yet, each with template.yaml's key schema and TTL attribute.

    Args:
        dynamodb_client: A boto3 DynamoDB client (DynamoDB Local).
        names: The table of each kind, as `table_names` gives them.
    """
    existing = set(dynamodb_client.list_tables().get("TableNames", []))
    for kind, name in names.items():
        if name not in existing:
            TABLES[kind][2](dynamodb_client, name)


def fleet_env(endpoint_url: str, names: Mapping[str, str]) -> dict[str, str]:
    """The environment that puts a server's every store in DynamoDB Local's tables.

    Args:
        endpoint_url: DynamoDB Local's URL.
        names: The table of each kind.

    Returns:
        Variables to start each server with (fake AWS credentials included).
    """
    env = {**LOCAL_AWS_ENV, "AWS_ENDPOINT_URL_DYNAMODB": endpoint_url}
    for kind, name in names.items():
        backend, table, _ = TABLES[kind]
        env[backend] = "dynamodb"
        env[table] = name
    return env


@contextlib.contextmanager
def running_fleet(
    business: str,
    count: int,
    env: Mapping[str, str],
    ports: Sequence[int] | None = None,
    *,
    echo: bool = False,
) -> Iterator[list[str]]:
    """`count` local servers of `business`, each its own process on the environment `env`; stopped on exit.

    Args:
        business: The business to serve.
        count: How many servers.
        env: Their environment (`fleet_env`, plus any setting).
        ports: Their ports (default: free ones).
        echo: Copy each server's log lines to stdout, prefixed `[n]` (the `make fleet` command).

    Returns:
        A context manager giving the servers' `/mcp` URLs, in order.
    """
    from mcp_lambda_dev.local.process import server_process

    with contextlib.ExitStack() as stack:
        urls = []
        for index in range(count):
            port = ports[index] if ports else None
            prefix = f"[{index + 1}] " if echo else None
            url, _process = stack.enter_context(
                server_process(business, 60.0, port=port, echo=prefix, **env)  # type: ignore[arg-type]  # names of variables only
            )
            urls.append(url)
        yield urls


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--business", default="demo")
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080, help="the first server's port; the others follow")
    parser.add_argument(
        "--ddb-port", type=int, default=None, help="DynamoDB Local's port (default: a free one)"
    )
    args = parser.parse_args(argv)
    if args.servers < 1:
        parser.error("--servers must be at least 1")
    import boto3

    from mcp_lambda_dev.inventory import HELP as INVENTORY_HELP
    from mcp_lambda_dev.inventory import demo_inventory

    signal.signal(signal.SIGTERM, _interrupt)
    # One stand-in inventory for the whole fleet (the servers inherit DEMO_INVENTORY_URL): one host, one circuit.
    with services.dynamodb_local(args.ddb_port) as ddb, demo_inventory(args.business) as inventory:
        names = table_names(f"mcp-{args.business}-local")
        client = boto3.client("dynamodb", endpoint_url=ddb.endpoint_url, **_boto_credentials())
        create_tables(client, names)
        ports = [args.port + index for index in range(args.servers)]
        env = fleet_env(ddb.endpoint_url, names)
        try:
            with running_fleet(args.business, args.servers, env, ports, echo=True) as urls:
                print(f"dynamodb-local: {ddb.endpoint_url} (tables: {', '.join(names.values())})", flush=True)
                for index, url in enumerate(urls, 1):
                    print(f"server {index}: {url}", flush=True)
                if inventory is not None:
                    print(
                        f"check_stock asks a stand-in inventory at {inventory} ({INVENTORY_HELP})", flush=True
                    )
                print("Ctrl-C stops them all", flush=True)
                with contextlib.suppress(KeyboardInterrupt):
                    while ddb.running:
                        time.sleep(1)
        except RuntimeError as exc:  # a server that would not start: its lines are above
            print(f"fleet: {exc}", file=sys.stderr)
            return 1
    return 0


def _boto_credentials() -> dict[str, str]:
    return {
        "region_name": LOCAL_AWS_ENV["AWS_REGION"],
        "aws_access_key_id": LOCAL_AWS_ENV["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": LOCAL_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
    }


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
