"""Task workers inside the serving process, for `make stdio`: where Lambda would queue an asynchronous invocation
of the function (`mcp_lambda.stores.tasks.LambdaInvoker`), each worker runs on a thread of its own, with an event loop of
its own, on the same protocol server, while the process goes on answering the client (`tasks/get` polls it).

A stdio process is one client's server, started and ended by that client: a worker still running when the input
ends stops with the process (its task is then gone with the process's memory store, or reaped as overdue in a
shared one). Nothing here is in the Lambda package.
"""

from __future__ import annotations

import asyncio
import threading
import uuid

from mcp_lambda.calls.task_invoke import TaskStartFailed
from mcp_lambda.observability import ToolLogger, log_internal_error
from mcp_lambda.protocol import McpServer


class ThreadTaskWorkers:
    """A `TaskInvoker` that runs each task's worker on a daemon thread of this process.

    Build it first, give it to `build_server` as the invoker, then `bind` it to the server that was built: the
    server needs the invoker and the workers need the server.

    Args:
        logger: Where a worker that fails outside the tool is logged (with its stack and an error id).
    """

    def __init__(self, logger: ToolLogger) -> None:
        self.logger = logger
        self._server: McpServer | None = None

    def bind(self, server: McpServer) -> None:
        """Run the workers on `server`.

        Args:
            server: The protocol server whose task methods created the tasks.
        """
        self._server = server

    def start(self, task_id: str, run: int) -> None:
        """Start the worker for `run` of the task on a thread, and return at once.

        Args:
            task_id: The task.
            run: The run number the worker may work on.

        Raises:
            TaskStartFailed: `bind` was never called (a wiring mistake, not retryable).
        """
        server = self._server
        if server is None:
            raise TaskStartFailed("the local task workers are not bound to a server", retryable=False)
        thread = threading.Thread(
            target=self._work, args=(server, task_id, run), name=f"task-worker-{task_id[:8]}", daemon=True
        )
        thread.start()

    def _work(self, server: McpServer, task_id: str, run: int) -> None:
        # A request id per run, as each Lambda invocation has one (it shows on the worker's log lines).
        invocation_id = f"local-{uuid.uuid4()}"
        try:
            asyncio.run(server.run_task(task_id, run, invocation_id))
        except Exception as exc:  # what Lambda would log for a failed asynchronous invocation
            log_internal_error(self.logger, "task_worker_failed", exc, task_id=task_id, run=run)
