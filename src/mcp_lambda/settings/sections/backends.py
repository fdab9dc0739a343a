"""The settings of each store backend, one section per backend: a new backend adds its own without touching the
others (a Redis one would add its URL here).

What a backend needs is one rule, `needed_by`: for each kind whose backend is this one, a field of the backend's
section must be set. The store registry (`mcp_lambda.stores`) checks the names; these sections check the values.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, Field, model_validator

from .base import SECTION_CONFIG, conflict
from .state import STORE_FIELDS


def needed_by(settings: BaseModel, backend: str, fields: dict[str, str]) -> None:
    """The one rule for what a backend needs: each kind whose backend is `backend` has its field of `fields` set.

    Args:
        settings: The settings (every section's fields; the kinds' backend fields among them).
        backend: The backend's name (`dynamodb`).
        fields: kind -> the field that kind needs under this backend (`sessions` -> `sessions_table`).

    Raises:
        PydanticCustomError: A needed field is unset; the message names both variables.
    """
    for kind, field in fields.items():
        if getattr(settings, STORE_FIELDS[kind], None) == backend and not getattr(settings, field):
            store = STORE_FIELDS[kind].upper()
            raise conflict(f"{field.upper()} is required when {store}={backend}")


# kind -> its table's field
TABLES: dict[str, str] = {
    "sessions": "sessions_table",
    "exactly_once": "idempotency_table",
    "tasks": "tasks_table",
    "quotas": "protection_table",
    "circuits": "protection_table",
}


class DynamoDBSection(BaseModel):
    """DynamoDB stores.

    The table of each kind whose backend is `dynamodb`, shared by every container.
    """

    model_config = SECTION_CONFIG

    sessions_table: str | None = Field(
        None, description="the sessions table; required by `SESSION_STORE=dynamodb`"
    )
    idempotency_table: str | None = Field(
        None, description="the exactly-once table; required by `IDEMPOTENCY_STORE=dynamodb`"
    )
    tasks_table: str | None = Field(None, description="the tasks table; required by `TASKS_STORE=dynamodb`")
    protection_table: str | None = Field(
        None,
        description="the protection table (quotas and circuits); required by `PROTECTION_STORE=dynamodb`",
    )

    def table_of(self, kind: str) -> str:
        """The table of `kind`, which the settings hold whenever its backend is `dynamodb` (the rule below)."""
        table: str | None = getattr(self, TABLES[kind])
        assert table is not None, f"{TABLES[kind]} is unset"
        return table

    @model_validator(mode="after")
    def _a_table_for_each_dynamodb_store(self) -> Self:
        needed_by(self, "dynamodb", TABLES)
        return self


class SQLiteSection(BaseModel):
    """SQLite stores.

    One database file for the kinds whose backend is `sqlite`: shared by the processes of one machine (`make run
    WORKERS=n`), never by the containers of a fleet.
    """

    model_config = SECTION_CONFIG

    sqlite_path: str = Field(
        ".cache/mcp_lambda_stores.sqlite3",
        description="the SQLite database file of the `sqlite` stores (its folder is created; local use only)",
    )
