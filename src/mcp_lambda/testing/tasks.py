"""A tool run as a task (2026-07-28 tasks extension), with its worker invocation run in-process."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import KitError
from .results import ToolCallResult
from .runtime import InProcessLambda

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})


class TaskRequester(Protocol):
    """What a TaskHandle needs of its client: a task method request, and the function it talks to."""

    function: InProcessLambda | None

    def task_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of one tasks/* request declaring the tasks extension."""
        ...


@dataclass(frozen=True)
class TaskState:
    """A task as `tasks/get` answers it.

    Attributes:
        raw: The `tasks/get` result.
        name: The tool the task runs.
        arguments: Its arguments.
    """

    raw: dict[str, Any]
    name: str = ""
    arguments: Mapping[str, Any] | None = None

    @property
    def status(self) -> str:
        """`working`, `input_required`, `completed`, `failed` or `cancelled`."""
        return str(self.raw.get("status"))

    @property
    def status_message(self) -> str | None:
        """The task's status message (a tool's progress message while it works)."""
        return self.raw.get("statusMessage")

    @property
    def terminal(self) -> bool:
        """Whether the task is finished (completed, failed or cancelled)."""
        return self.status in TERMINAL

    @property
    def result(self) -> ToolCallResult | None:
        """The tool's result once the task completed (its error branch included); None otherwise."""
        result = self.raw.get("result")
        if not isinstance(result, dict):
            return None
        message = {"jsonrpc": "2.0", "id": None, "result": result}
        return ToolCallResult(raw=message, name=self.name, arguments=dict(self.arguments or {}))

    @property
    def error(self) -> dict[str, Any] | None:
        """The JSON-RPC error (`code`, `message`, `data`) of a failed task; None otherwise."""
        error = self.raw.get("error")
        return error if isinstance(error, dict) else None

    @property
    def input_requests(self) -> dict[str, dict[str, Any]]:
        """What an `input_required` task asks for, by the server's request id (answer with `TaskHandle.answer`)."""
        return dict(self.raw.get("inputRequests") or {})


class TaskHandle:
    """A task the client created: poll it, run its worker, wait for it, answer it, cancel it.

    The worker invocation Lambda would run later is queued in the function's `InProcessInvoker`; `wait()` runs
    it through the handler (or `run_in_background()` does, on a thread, so a test can cancel it mid-run).

    Args:
        client: The client that created the task.
        created: The CreateTaskResult.
        name: The tool.
        arguments: Its arguments.
    """

    def __init__(
        self, client: TaskRequester, created: dict[str, Any], name: str, arguments: Mapping[str, Any]
    ) -> None:
        self.client = client
        self.created = created
        self.task_id: str = created["taskId"]
        self.name = name
        self.arguments = dict(arguments)
        self._threads: list[threading.Thread] = []
        self.outcomes: list[dict[str, Any]] = []

    def status(self) -> TaskState:
        """The task now (`tasks/get`).

        Returns:
            Its state.

        Raises:
            ProtocolError: The server refused the request (an unknown or expired task: -32602).
        """
        raw = self.client.task_request("tasks/get", {"taskId": self.task_id})
        return TaskState(raw, self.name, self.arguments)

    def run_worker(self) -> list[dict[str, Any]]:
        """Run this task's queued worker invocations now, on this thread.

        Returns:
            Each invocation's outcome (`{"taskId", "run", "ran", "status"}`).
        """
        if self.client.function is None:
            raise KitError("a server at a URL runs its task workers itself: poll status() instead")
        outcomes = self.client.function.run_workers(self.task_id)
        self.outcomes.extend(outcomes)
        return outcomes

    def run_in_background(self) -> TaskHandle:
        """Run this task's queued worker invocations on a thread, as Lambda runs them beside the requests.

        Returns:
            This handle (`wait()` joins the thread).
        """
        thread = threading.Thread(target=self.run_worker, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def wait(self, timeout: float = 30.0, poll_seconds: float = 0.05) -> TaskState:
        """Run the task's workers until it is finished or waits for input.

        Args:
            timeout: Seconds to wait at most.
            poll_seconds: Pause between polls while a background worker runs.

        Returns:
            Its final (or input_required) state.

        Raises:
            KitError: It is still working after `timeout`.
        """
        give_up = time.monotonic() + timeout
        while True:
            self.run_worker()
            state = self.status()
            if state.terminal or state.status == "input_required":
                self._join(give_up)
                return state
            if time.monotonic() > give_up:
                raise KitError(f"task {self.task_id} is still {state.status} after {timeout} s")
            time.sleep(poll_seconds)

    def wait_for(
        self, predicate: Callable[[TaskState], bool], timeout: float = 30.0, poll_seconds: float = 0.02
    ) -> TaskState:
        """Poll until `predicate(state)` holds (e.g. a progress message while a background worker runs).

        Args:
            predicate: A function of a `TaskState` returning a bool.
            timeout: Seconds to wait at most.
            poll_seconds: Pause between polls.

        Returns:
            The first state it holds for.

        Raises:
            KitError: It did not hold within `timeout`.
        """
        give_up = time.monotonic() + timeout
        while True:
            state = self.status()
            if predicate(state):
                return state
            if time.monotonic() > give_up:
                raise KitError(f"task {self.task_id}: the condition did not hold within {timeout} s")
            time.sleep(poll_seconds)

    def answer(self, input_responses: Mapping[str, Any]) -> None:
        """Answer an `input_required` task (`tasks/update`); the task resumes once nothing is pending.

        Args:
            input_responses: Answers by the ids of `TaskState.input_requests`.

        Raises:
            ProtocolError: The server refused the request.
        """
        self.client.task_request(
            "tasks/update", {"taskId": self.task_id, "inputResponses": dict(input_responses)}
        )

    def cancel(self) -> TaskState:
        """Cancel the task (`tasks/cancel`); a running worker sees `ctx.cancelled()` and its outcome is dropped.

        Returns:
            The task's state after the cancellation.

        Raises:
            ProtocolError: The server refused the request.
        """
        self.client.task_request("tasks/cancel", {"taskId": self.task_id})
        return self.status()

    def _join(self, give_up: float) -> None:
        for thread in self._threads:
            thread.join(max(0.0, give_up - time.monotonic()))
        self._threads = [thread for thread in self._threads if thread.is_alive()]
