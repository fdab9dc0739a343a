"""Start and stop the real local stand-ins: DynamoDB Local (AWS's jar), moto server (Secrets Manager) and an
OAuth 2.0 / OpenID Connect authorization server (oauth2-mock-server from npm, dev/mcp_lambda_dev/oauth_server.mjs).

Used by the integration-test fixtures and, as a command, to run one service in the foreground for
`sam local` (`python -m mcp_lambda_dev.services dynamodb --port 8000`). Everything binds or talks to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_lambda.stores.exactly_once import base as exactly_once_table
from mcp_lambda.stores.quotas import dynamodb as protection_table
from mcp_lambda.stores.sessions import dynamodb as sessions_table
from mcp_lambda.stores.tasks import dynamodb as tasks_table
from mcp_lambda.testing.local_services import (
    HOST,
    LocalService,
    ServiceError,
    dynamodb_local,
    free_port,
)

# The tables' key schemas and TTL attributes are the stores' own (defined once, in each DynamoDB backend).
REPO_ROOT = Path(__file__).resolve().parents[2]
SESSIONS_PARTITION_KEY = sessions_table.KEY_ATTRIBUTE
SESSIONS_TTL_ATTRIBUTE = sessions_table.TTL_ATTRIBUTE
# Powertools Idempotency's DynamoDB item shape (mcp_lambda.stores.exactly_once.base; template.yaml's IdempotencyTable).
IDEMPOTENCY_PARTITION_KEY = exactly_once_table.PARTITION_KEY
IDEMPOTENCY_TTL_ATTRIBUTE = exactly_once_table.EXPIRY_ATTRIBUTE
# The tasks table (mcp_lambda.stores.tasks; template.yaml's TasksTable).
TASKS_PARTITION_KEY = tasks_table.KEY_ATTRIBUTE
TASKS_TTL_ATTRIBUTE = tasks_table.TTL_ATTRIBUTE
# The protection table: circuit breakers (Powertools' item shape) and quota counters (template.yaml's ProtectionTable).
PROTECTION_PARTITION_KEY = protection_table.KEY_ATTRIBUTE
PROTECTION_TTL_ATTRIBUTE = protection_table.TTL_ATTRIBUTE


def moto_server(port: int | None = None, host: str = HOST) -> LocalService:
    """moto's HTTP server (all services on one port); the tests use it for Secrets Manager.

    `host` other than 127.0.0.1 is only for `sam local`, whose container reaches the host's address.
    """
    executable = Path(sys.executable).parent / "moto_server"
    if not executable.exists():
        found = shutil.which("moto_server")
        if found is None:
            raise ServiceError("moto_server not found; install the dev dependencies (`make venv`)")
        executable = Path(found)
    chosen = port or free_port()
    return LocalService("moto-server", [str(executable), "-H", host, "-p", str(chosen)], chosen)


def oauth_server_dir(install_dir: Path | None = None) -> Path:
    """Where `make services-install` put oauth2-mock-server (a node_modules tree)."""
    root = install_dir or Path(os.environ.get("MCP_OAUTH_DIR") or REPO_ROOT / ".cache" / "oauth")
    if not (root / "node_modules" / "oauth2-mock-server" / "dist" / "index.mjs").is_file():
        raise ServiceError(f"oauth2-mock-server is not installed under {root}; run `make services-install`")
    return root


def oauth_server(port: int | None = None, install_dir: Path | None = None) -> LocalService:
    """A local authorization server: OIDC discovery, JWKS, /authorize, /token; issuer http://127.0.0.1:<port>."""
    node = shutil.which("node")
    if node is None:
        raise ServiceError("node (20.19+) is not on PATH; the OAuth test server needs it")
    home = oauth_server_dir(install_dir)
    chosen = port or free_port()
    script = Path(__file__).resolve().parent / "oauth_server.mjs"
    return LocalService(
        "oauth-server", [node, str(script), "--port", str(chosen), "--dir", str(home)], chosen
    )


def create_sessions_table(dynamodb_client: Any, table_name: str) -> None:
    """Create the sessions table with the key schema and TTL attribute of template.yaml, and wait for it."""
    _create_table(dynamodb_client, table_name, SESSIONS_PARTITION_KEY, SESSIONS_TTL_ATTRIBUTE)


def create_tasks_table(dynamodb_client: Any, table_name: str) -> None:
    """Create the tasks table with the key schema and TTL attribute of template.yaml, and wait for it."""
    _create_table(dynamodb_client, table_name, TASKS_PARTITION_KEY, TASKS_TTL_ATTRIBUTE)


def create_protection_table(dynamodb_client: Any, table_name: str) -> None:
    """Create the protection table with the key schema and TTL attribute of template.yaml, and wait for it."""
    _create_table(dynamodb_client, table_name, PROTECTION_PARTITION_KEY, PROTECTION_TTL_ATTRIBUTE)


def _create_table(dynamodb_client: Any, table_name: str, key: str, ttl_attribute: str) -> None:
    dynamodb_client.create_table(
        TableName=table_name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": key, "AttributeType": "S"}],
        KeySchema=[{"AttributeName": key, "KeyType": "HASH"}],
    )
    dynamodb_client.get_waiter("table_exists").wait(
        TableName=table_name, WaiterConfig={"Delay": 0.2, "MaxAttempts": 50}
    )
    dynamodb_client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"AttributeName": ttl_attribute, "Enabled": True}
    )


def create_idempotency_table(dynamodb_client: Any, table_name: str) -> None:
    """Create the exactly-once table with the key schema and TTL attribute of template.yaml, and wait for it."""
    _create_table(dynamodb_client, table_name, IDEMPOTENCY_PARTITION_KEY, IDEMPOTENCY_TTL_ATTRIBUTE)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("service", choices=["dynamodb", "moto", "oauth"])
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument(
        "--host", default=HOST, help="moto only; DynamoDB Local always listens on all interfaces"
    )
    args = parser.parse_args(argv)
    factories = {
        "dynamodb": lambda: dynamodb_local(args.port),
        "moto": lambda: moto_server(args.port, args.host),
        "oauth": lambda: oauth_server(args.port),
    }
    service = factories[args.service]()
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops the child service too, like Ctrl-C
    with service:
        print(f"{service.name} listening on {service.endpoint_url} (Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while service.running:
                time.sleep(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
