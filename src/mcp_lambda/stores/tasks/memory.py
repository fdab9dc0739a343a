"""In-memory TaskStore: the embedded default for `make run` and unit tests (one process only).

`make run` hands a task's worker invocation to a thread of the same process, so they share this store.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .base import Task, TaskIdTaken

if TYPE_CHECKING:
    from .. import StoreConfig


class MemoryTaskStore:
    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def create(self, task: Task) -> None:
        with self._lock:
            if task.task_id in self._tasks:
                raise TaskIdTaken("task id already exists")
            self._tasks[task.task_id] = task

    def get(self, task_id: str) -> Task | None:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is not None and task.is_expired():
                del self._tasks[task_id]  # what DynamoDB's TTL does, eventually
                return None
            return task

    def replace(self, task: Task, expected_version: int) -> bool:
        with self._lock:
            current = self._tasks.get(task.task_id)
            if current is None or current.version != expected_version:
                return False
            self._tasks[task.task_id] = task
            return True


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("tasks", settings)`)."""
    return MemoryTaskStore()
