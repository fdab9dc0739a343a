"""The sections of state: where each kind lives, and how long tasks are kept and may run."""

from __future__ import annotations

from datetime import timedelta
from typing import Self

from pydantic import BaseModel, Field, model_validator

from ..durations import DurationMs, DurationSeconds
from .base import SECTION_CONFIG, conflict

# kind -> the field naming its backend (quotas and circuits share one). A backend's own section reads this map.
STORE_FIELDS: dict[str, str] = {
    "sessions": "session_store",
    "exactly_once": "idempotency_store",
    "tasks": "tasks_store",
    "quotas": "protection_store",
    "circuits": "protection_store",
}
BACKEND_NAMES = "a backend of `mcp_lambda.stores.BACKENDS` (`memory`, `dynamodb`, ...)"


class StoresSection(BaseModel):
    """Where state lives.

    Each kind names its backend: `memory` (one process), `dynamodb` (shared by every container) or another the
    store registry knows; each backend's own settings are in its section below.
    """

    model_config = SECTION_CONFIG

    session_store: str = Field(
        "memory",
        description="where legacy sessions live: `dynamodb` in AWS (`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB "
        "Local), `sqlite` for several local processes (`make run WORKERS=n`)",
    )
    session_ttl: DurationSeconds = Field(
        timedelta(hours=1),
        validation_alias="session_ttl_seconds",
        ge=timedelta(minutes=1),
        description="idle session lifetime (sliding; refreshed when under half remains)",
    )
    idempotency_store: str = Field(
        "memory",
        description="where the results of exactly-once (keyed) tool calls live: `dynamodb` in AWS (the "
        "template's `IdempotencyTable`)",
    )
    idempotency_ttl: DurationSeconds = Field(
        timedelta(minutes=10),
        validation_alias="idempotency_ttl_seconds",
        ge=timedelta(seconds=1),
        description="how long a keyed call's result is replayed to its retries",
    )
    tasks_store: str = Field(
        "memory",
        description="where tasks (2026-07-28 `io.modelcontextprotocol/tasks`) live: `dynamodb` in AWS "
        "(`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local)",
    )
    protection_store: str = Field(
        "memory",
        description="where the downstream circuit breakers and the per-caller `quota` counters live: `memory` "
        "(one process), `dynamodb` in AWS (shared by every container; the template's `ProtectionTable`)",
    )

    def backend_of(self, kind: str) -> str:
        """The backend the settings name for `kind` (`sessions`, `exactly_once`, `tasks`, `quotas`, `circuits`)."""
        backend: str = getattr(self, STORE_FIELDS[kind])
        return backend


class TasksSection(BaseModel):
    """Tasks.

    How long a task is kept, how often clients poll it, how long its worker may run.
    """

    model_config = SECTION_CONFIG

    task_ttl: DurationMs = Field(
        timedelta(days=1),
        validation_alias="task_ttl_ms",
        ge=timedelta(minutes=1),
        description="a task's `ttlMs`: readable this long after its creation (the table's TTL); longer than "
        "the worker timeout",
    )
    task_poll_interval: DurationMs = Field(
        timedelta(seconds=1),
        validation_alias="task_poll_interval_ms",
        ge=timedelta(milliseconds=100),
        description="the `pollIntervalMs` suggested to clients",
    )
    task_worker_timeout: DurationSeconds = Field(
        timedelta(seconds=900),
        validation_alias="task_worker_timeout_seconds",
        ge=timedelta(seconds=1),
        le=timedelta(seconds=900),
        description="the function's timeout in AWS (`TaskWorkerTimeoutSeconds`): a task not finished this long "
        "after its worker started reads as failed",
    )

    @model_validator(mode="after")
    def _tasks_outlive_their_worker(self) -> Self:
        if self.task_ttl <= self.task_worker_timeout:
            raise conflict("TASK_TTL_MS must be longer than TASK_WORKER_TIMEOUT_SECONDS")
        return self
