"""Tasks (the 2026-07-28 `io.modelcontextprotocol/tasks` extension): the TaskStore contract, its memory and
DynamoDB implementations, and the asynchronous self-invocation that runs a task's worker."""

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
from .invoke import (
    TASK_EVENT_KEY,
    LambdaInvoker,
    TaskInvoker,
    TaskStartFailed,
    parse_task_event,
    task_event,
)
from .memory import MemoryTaskStore

__all__ = [
    "MAX_STORED_CALLER_BYTES",
    "TASK_EVENT_KEY",
    "TERMINAL",
    "LambdaInvoker",
    "MemoryTaskStore",
    "StoredCaller",
    "Task",
    "TaskIdTaken",
    "TaskInvoker",
    "TaskStartFailed",
    "TaskStatus",
    "TaskStore",
    "TaskStoreUnavailable",
    "TaskTooLarge",
    "change",
    "new_task_id",
    "open_task",
    "parse_task_event",
    "task_event",
]
