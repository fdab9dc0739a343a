"""DynamoDB TaskStore: tasks shared by every container of the function, and by its worker invocations.

One item per task, keyed by `task_id`; `expires_at` (creation + ttlMs, epoch seconds) is the table's TTL
attribute, but TTL deletes lazily, so expiry is always checked here. Reads are strongly consistent (a task
created a moment ago on another container is found: the extension's durable-create rule) and every write but
the first is conditional on the version read (`version = :expected`), so a concurrent cancel is never lost.
Every call goes through `DynamoDBTable.call` (mcp_lambda/aws/table.py): held to the AWS budget and the request
deadline, a sick table answers 503 with Retry-After.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ...aws import failure_reason
from ..table import ConditionFailed, DynamoDBTable
from .base import Task, TaskIdTaken, TaskStoreUnavailable, TaskTooLarge

if TYPE_CHECKING:
    from .. import StoreConfig

TEXT_FIELDS = ("business", "tool", "status")
OPTIONAL_TEXT_FIELDS = ("principal", "status_message", "traceparent", "tracestate")
NUMBER_FIELDS = ("created_at", "updated_at", "ttl_ms", "run", "claimed_run", "version")
# Client- and tool-made JSON kept as text: arbitrary shapes and floats survive without DynamoDB type mapping.
JSON_FIELDS = ("arguments", "client_capabilities", "pending", "answers")
OPTIONAL_JSON_FIELDS = ("result", "error", "state")
# The creating request's caller (`StoredCaller.to_json`); absent from tasks stored before it was kept.
CALLER_FIELD = "caller"


# The table's shape (template.yaml's table and the local tables are made from these; a test pins the template).
KEY_ATTRIBUTE = "task_id"
TTL_ATTRIBUTE = "expires_at"


class DynamoDBTaskStore(DynamoDBTable):
    store_name = "task store"
    key_attribute = KEY_ATTRIBUTE
    unavailable_error = TaskStoreUnavailable

    def create(self, task: Task) -> None:
        try:
            self.put_new(to_item(task))
        except ConditionFailed:
            raise TaskIdTaken("task id already exists") from None

    def get(self, task_id: str) -> Task | None:
        return self.read_live(task_id, from_item)

    def replace(self, task: Task, expected_version: int) -> bool:
        try:
            self.call(
                "put_item",
                Item=to_item(task),
                ConditionExpression="version = :expected",
                ExpressionAttributeValues={":expected": {"N": str(expected_version)}},
            )
        except ConditionFailed:
            return False
        return True

    def failure(self, exc: BaseException, operation: str) -> Exception:
        """A record over DynamoDB's item size limit is `TaskTooLarge`; any other failure is unavailable."""
        if failure_reason(exc) == "ValidationException" and "size" in str(exc).lower():
            return TaskTooLarge("the task record exceeds the DynamoDB item size limit")
        return super().failure(exc, operation)


def _json(value: Any) -> dict[str, str]:
    return {"S": json.dumps(value, separators=(",", ":"), ensure_ascii=False)}


def to_item(task: Task) -> dict[str, Any]:
    item: dict[str, Any] = {
        "task_id": {"S": task.task_id},
        # Whole epoch seconds, as DynamoDB TTL expects (rounded up: TTL never deletes a live task early).
        "expires_at": {"N": str(int(task.expires_at))},
    }
    for name in TEXT_FIELDS:
        item[name] = {"S": getattr(task, name)}
    for name in OPTIONAL_TEXT_FIELDS:
        if getattr(task, name) is not None:
            item[name] = {"S": getattr(task, name)}
    for name in NUMBER_FIELDS:
        item[name] = {"N": repr(getattr(task, name))}
    if task.deadline is not None:
        item["deadline"] = {"N": repr(task.deadline)}
    for name in JSON_FIELDS:
        item[name] = _json(getattr(task, name))
    for name in OPTIONAL_JSON_FIELDS:
        if getattr(task, name) is not None:
            item[name] = _json(getattr(task, name))
    if task.caller is not None:
        item[CALLER_FIELD] = {"S": task.caller.to_json()}
    return item


def from_item(item: dict[str, Any]) -> Task:
    values: dict[str, Any] = {"task_id": item["task_id"]["S"]}
    for name in (*TEXT_FIELDS, *OPTIONAL_TEXT_FIELDS):
        if name in item:
            values[name] = item[name]["S"]
    for name in NUMBER_FIELDS:
        number = float(item[name]["N"])
        values[name] = number if name in ("created_at", "updated_at") else int(number)
    if "deadline" in item:
        values["deadline"] = float(item["deadline"]["N"])
    for name in (*JSON_FIELDS, *OPTIONAL_JSON_FIELDS, CALLER_FIELD):
        if name in item:
            values[name] = json.loads(item[name]["S"])
    return Task(**values)


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("tasks", settings)`)."""
    return DynamoDBTaskStore(config.settings.table_of(config.kind), budget=config.budget)
