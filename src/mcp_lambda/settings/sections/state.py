"""The sections of state: where each kind lives, and how long tasks are kept and may run."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal, Self

from pydantic import BaseModel, Field, model_validator

from ..durations import DurationMs, DurationSeconds
from .base import conflict


class StoresSection(BaseModel):
    """Where state lives.

    Each kind in memory (one process) or in its DynamoDB table (shared by every container).
    """

    session_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where legacy sessions live: `dynamodb` in AWS (`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB "
        "Local)",
    )
    sessions_table: str | None = Field(
        None, description="the sessions table; required by `SESSION_STORE=dynamodb`"
    )
    session_ttl: DurationSeconds = Field(
        timedelta(hours=1),
        validation_alias="session_ttl_seconds",
        ge=timedelta(minutes=1),
        description="idle session lifetime (sliding; refreshed when under half remains)",
    )
    idempotency_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the results of exactly-once (keyed) tool calls live: `dynamodb` in AWS (the "
        "template's `IdempotencyTable`)",
    )
    idempotency_table: str | None = Field(
        None, description="the exactly-once table; required by `IDEMPOTENCY_STORE=dynamodb`"
    )
    idempotency_ttl: DurationSeconds = Field(
        timedelta(minutes=10),
        validation_alias="idempotency_ttl_seconds",
        ge=timedelta(seconds=1),
        description="how long a keyed call's result is replayed to its retries",
    )
    tasks_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where tasks (2026-07-28 `io.modelcontextprotocol/tasks`) live: `dynamodb` in AWS "
        "(`AWS_ENDPOINT_URL_DYNAMODB` for DynamoDB Local)",
    )
    tasks_table: str | None = Field(None, description="the tasks table; required by `TASKS_STORE=dynamodb`")
    protection_store: Literal["memory", "dynamodb"] = Field(
        "memory",
        description="where the downstream circuit breakers and the per-caller `quota` counters live: `memory` "
        "(one process), `dynamodb` in AWS (shared by every container; the template's `ProtectionTable`)",
    )
    protection_table: str | None = Field(
        None, description="the protection table; required by `PROTECTION_STORE=dynamodb`"
    )

    @model_validator(mode="after")
    def _a_table_for_each_dynamodb_store(self) -> Self:
        for store, table in (
            ("session_store", "sessions_table"),
            ("idempotency_store", "idempotency_table"),
            ("tasks_store", "tasks_table"),
            ("protection_store", "protection_table"),
        ):
            if getattr(self, store) == "dynamodb" and not getattr(self, table):
                raise conflict(f"{table.upper()} is required when {store.upper()}=dynamodb")
        return self


class TasksSection(BaseModel):
    """Tasks.

    How long a task is kept, how often clients poll it, how long its worker may run.
    """

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
