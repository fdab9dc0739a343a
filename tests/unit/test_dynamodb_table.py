"""The DynamoDB store base (mcp_lambda.stores.table): every call through the AWS budget, every failure mapped one way
(throttled -> the store's unavailable error with the short Retry-After, any other failure of the table -> the
long one, a failed condition -> ConditionFailed, a bug of ours -> itself), logged once by failure class."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from mcp_lambda import deadlines
from mcp_lambda.aws import THROTTLE_CODES, AwsBudget, AwsCallTimedOut
from mcp_lambda.deadlines import Deadline
from mcp_lambda.stores.sessions import SessionStoreUnavailable
from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore
from mcp_lambda.stores.table import ConditionFailed, DeadlineBoundClient, DynamoDBTable
from mcp_lambda.stores.tasks import TaskStoreUnavailable, TaskTooLarge
from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore

SECRET_KEY = "key-that-must-not-be-logged"


def client_error(code: str, message: str = "the message") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": message}}, "GetItem")


class FakeClient:
    """Answers every item operation with `answer` (a response, or an exception raised), recording the calls."""

    def __init__(self, answer: Any = None, delay: float = 0.0) -> None:
        self.answer = {} if answer is None else answer
        self.delay = delay
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, operation: str) -> Any:
        def call(**params: Any) -> Any:
            self.calls.append((operation, params))
            time.sleep(self.delay)
            if isinstance(self.answer, BaseException):
                raise self.answer
            return self.answer

        return call


class ThingUnavailable(Exception):
    def __init__(self, message: str, retry_after_seconds: int = 1) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class ThingTable(DynamoDBTable):
    store_name = "thing store"
    unavailable_error = ThingUnavailable


def table(answer: Any = None, *, delay: float = 0.0, retry_after_seconds: int = 1) -> ThingTable:
    return ThingTable("things", client=FakeClient(answer, delay), retry_after_seconds=retry_after_seconds)


def store_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if getattr(r, "event", None) == "store_unavailable"]


def test_a_call_goes_to_the_table_and_is_counted() -> None:
    things = table({"Item": {"id": {"S": "a"}}})

    assert things.call("get_item", Key={"id": {"S": "a"}}) == {"Item": {"id": {"S": "a"}}}
    things.call("put_item", Item={"id": {"S": "b"}})
    things.call("delete_item", Key={"id": {"S": "b"}})

    assert things.client.calls[0] == ("get_item", {"TableName": "things", "Key": {"id": {"S": "a"}}})
    assert (things.reads, things.writes) == (1, 2)
    things.reset_counters()
    assert (things.reads, things.writes) == (0, 0)


@pytest.mark.parametrize("code", sorted(THROTTLE_CODES))
def test_throttling_is_unavailable_with_the_short_retry_after(
    code: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(ThingUnavailable) as raised:
        table(client_error(code), retry_after_seconds=3).call("get_item", Key={"id": {"S": SECRET_KEY}})

    assert raised.value.retry_after_seconds == 3
    assert str(raised.value) == f"thing store unavailable: {code}"
    [line] = store_lines(caplog)
    assert (line.store, line.operation, line.reason) == ("thing store", "get_item", code)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "failure, reason",
    [
        (client_error("InternalServerError"), "InternalServerError"),
        (client_error("ResourceNotFoundException"), "ResourceNotFoundException"),
        (ClientError({}, "GetItem"), "Unknown"),
        (EndpointConnectionError(endpoint_url="http://127.0.0.1:9"), "EndpointConnectionError"),
        (AwsCallTimedOut("no answer"), "AwsCallTimedOut"),
    ],
)
def test_any_other_failure_of_the_table_is_unavailable_with_the_long_retry_after(
    failure: BaseException, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(ThingUnavailable) as raised:
        table(failure).call("put_item", Item={"id": {"S": SECRET_KEY}})

    assert raised.value.retry_after_seconds == 2
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    [line] = store_lines(caplog)
    assert line.reason == reason  # type: ignore[attr-defined]
    assert SECRET_KEY not in caplog.text and "the message" not in caplog.text


def test_a_call_with_no_answer_before_the_deadline_is_cut_at_it() -> None:
    things = table(delay=2.0)

    started = time.monotonic()
    with deadlines.active(Deadline.after_ms(150)), pytest.raises(ThingUnavailable, match="AwsCallTimedOut"):
        things.call("get_item", Key={"id": {"S": "a"}})

    assert time.monotonic() - started < 1.0


def test_a_failed_condition_is_condition_failed_and_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(ConditionFailed):
        table(client_error("ConditionalCheckFailedException")).call("put_item", Item={})

    assert store_lines(caplog) == []


def test_a_bug_of_ours_is_not_mistaken_for_the_table_failing() -> None:
    with pytest.raises(KeyError):
        table(KeyError("oops")).call("get_item", Key={})


def test_each_store_raises_its_own_unavailable_error() -> None:
    sessions = DynamoDBSessionStore("s", client=FakeClient(client_error("ThrottlingException")))
    tasks = DynamoDBTaskStore("t", client=FakeClient(client_error("InternalServerError")))

    with pytest.raises(SessionStoreUnavailable, match="session store unavailable: ThrottlingException"):
        sessions.get("abc")
    with pytest.raises(TaskStoreUnavailable, match="task store unavailable: InternalServerError") as raised:
        tasks.get("abc")
    assert raised.value.retry_after_seconds == 2


def test_the_task_store_names_a_record_over_the_item_size_limit_too_large() -> None:
    too_big = client_error("ValidationException", "Item size has exceeded the maximum allowed size")
    other = client_error("ValidationException", "One or more parameter values were invalid")

    with pytest.raises(TaskTooLarge):
        DynamoDBTaskStore("t", client=FakeClient(too_big)).get("abc")
    with pytest.raises(TaskStoreUnavailable, match="ValidationException"):
        DynamoDBTaskStore("t", client=FakeClient(other)).get("abc")


def test_a_deadline_bound_client_cuts_item_operations_and_passes_the_rest_through() -> None:
    fake = FakeClient(delay=2.0)
    bound = DeadlineBoundClient(fake, AwsBudget())

    with deadlines.active(Deadline.after_ms(100)), pytest.raises(AwsCallTimedOut):
        bound.put_item(TableName="t", Item={})
    assert bound.calls is fake.calls  # not an item operation: the client's own attribute


def _condition_failed(item: dict[str, Any] | None) -> ClientError:
    response: dict[str, Any] = {"Error": {"Code": "ConditionalCheckFailedException", "Message": "failed"}}
    if item is not None:
        response["Item"] = item
    return ClientError(response, "PutItem")  # type: ignore[arg-type]


def test_put_new_that_finds_its_own_item_succeeds() -> None:
    """A first attempt that wrote but whose answer was lost is retried by the budget: the retry finds the item it
    wrote, which is this write succeeding, not the id being taken."""
    item = {"id": {"S": "a"}, "n": {"N": "1"}}
    things = table(_condition_failed(item))

    things.put_new(item)

    assert things.client.calls[0][1]["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"


@pytest.mark.parametrize("existing", [{"id": {"S": "a"}, "n": {"N": "2"}}, None])
def test_put_new_over_another_item_is_refused(existing: dict[str, Any] | None) -> None:
    things = table(_condition_failed(existing))

    with pytest.raises(ConditionFailed) as refused:
        things.put_new({"id": {"S": "a"}, "n": {"N": "1"}})
    assert refused.value.item == existing
