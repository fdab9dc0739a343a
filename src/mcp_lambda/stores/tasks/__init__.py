"""Tasks (the 2026-07-28 `io.modelcontextprotocol/tasks` extension): the TaskStore contract, its memory and
DynamoDB implementations (the self-invocation that runs a task's worker is `mcp_lambda.calls.task_invoke`)."""

from __future__ import annotations

from .base import (
    TERMINAL,
    Task,
    TaskIdTaken,
    TaskStatus,
    TaskStore,
    TaskStoreUnavailable,
    TaskTooLarge,
    change,
    new_task_id,
    open_task,
)
from .identity import MAX_STORED_CALLER_BYTES, StoredCaller
from .memory import MemoryTaskStore

__all__ = [
    "MAX_STORED_CALLER_BYTES",
    "TERMINAL",
    "MemoryTaskStore",
    "StoredCaller",
    "Task",
    "TaskIdTaken",
    "TaskStatus",
    "TaskStore",
    "TaskStoreUnavailable",
    "TaskTooLarge",
    "change",
    "new_task_id",
    "open_task",
]
