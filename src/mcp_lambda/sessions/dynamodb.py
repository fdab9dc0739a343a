"""DynamoDB SessionStore: legacy sessions shared by every container of the function.

One item per session, keyed by `session_id`; `expires_at` (epoch seconds) is the table's TTL attribute, but TTL
deletes lazily, so expiry is always checked here. Every read is strongly consistent, so a session minted a
moment ago on another container, or deleted a moment ago, is seen as such. Reads and writes are counted
(`reads`, `writes`) for `make bench`. Timeouts and retries come from `AwsBudget` (mcp_lambda/aws.py): a sick
table answers 503 quickly, and never after the request deadline.
"""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from ..aws import THROTTLE_CODES, AwsBudget, AwsCallTimedOut, BudgetedClient, failure_reason
from .base import Session, SessionIdTaken, SessionStoreUnavailable

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
else:
    DynamoDBClient = Any

# Every failure of the table (an error, no answer in time, no answer before the deadline): answer 503.
STORE_FAILURES = (ClientError, BotoCoreError, AwsCallTimedOut)


class DynamoDBSessionStore(BudgetedClient):
    aws_service = "dynamodb"

    def __init__(
        self,
        table_name: str,
        ttl_seconds: int = 3600,
        *,
        client: DynamoDBClient | None = None,
        retry_after_seconds: int = 1,
        budget: AwsBudget | None = None,
    ) -> None:
        self.table_name = table_name
        self.ttl_seconds = ttl_seconds
        self.retry_after_seconds = retry_after_seconds
        self.reads = 0
        self.writes = 0
        # Made on first use: a container serving only stateless (2026-07-28) requests never pays for it.
        self._own_client(client, budget)

    def reset_counters(self) -> None:
        self.reads = self.writes = 0

    def create(self, session: Session) -> None:
        self.writes += 1
        try:
            self.budget.call(
                self.client.put_item,
                TableName=self.table_name,
                Item=_to_item(session),
                ConditionExpression="attribute_not_exists(session_id)",
            )
        except ClientError as exc:
            if failure_reason(exc) == "ConditionalCheckFailedException":
                raise SessionIdTaken("session id already exists") from None
            raise self._unavailable(exc) from None
        except (BotoCoreError, AwsCallTimedOut) as exc:
            raise self._unavailable(exc) from None

    def get(self, session_id: str) -> Session | None:
        self.reads += 1
        try:
            response = self.budget.call(
                self.client.get_item,
                TableName=self.table_name,
                Key={"session_id": {"S": session_id}},
                ConsistentRead=True,
            )
        except STORE_FAILURES as exc:
            raise self._unavailable(exc) from None
        item = response.get("Item")
        if item is None:
            return None
        session = _from_item(item)
        return None if session.is_expired() else session

    def touch(self, session: Session) -> Session:
        now = time.time()
        if not session.needs_refresh(self.ttl_seconds, now):
            return session
        refreshed = session.model_copy(
            update={"last_seen": now, "expires_at": float(math.ceil(now + self.ttl_seconds))}
        )
        self.writes += 1
        try:
            self.budget.call(
                self.client.update_item,
                TableName=self.table_name,
                Key={"session_id": {"S": session.session_id}},
                UpdateExpression="SET expires_at = :expires_at, last_seen = :last_seen",
                # Never resurrect a session deleted between our read and this write.
                ConditionExpression="attribute_exists(session_id)",
                ExpressionAttributeValues={
                    ":expires_at": {"N": str(int(refreshed.expires_at))},
                    ":last_seen": {"N": repr(now)},
                },
            )
        except ClientError as exc:
            if failure_reason(exc) == "ConditionalCheckFailedException":
                return session
            raise self._unavailable(exc) from None
        except (BotoCoreError, AwsCallTimedOut) as exc:
            raise self._unavailable(exc) from None
        return refreshed

    def set_log_level(self, session_id: str, level: str) -> None:
        self.writes += 1
        try:
            self.budget.call(
                self.client.update_item,
                TableName=self.table_name,
                Key={"session_id": {"S": session_id}},
                UpdateExpression="SET log_level = :level",
                ConditionExpression="attribute_exists(session_id)",
                ExpressionAttributeValues={":level": {"S": level}},
            )
        except ClientError as exc:
            if failure_reason(exc) == "ConditionalCheckFailedException":
                return  # deleted meanwhile: nothing to remember it for
            raise self._unavailable(exc) from None
        except (BotoCoreError, AwsCallTimedOut) as exc:
            raise self._unavailable(exc) from None

    def delete(self, session_id: str) -> bool:
        self.writes += 1
        try:
            response = self.budget.call(
                self.client.delete_item,
                TableName=self.table_name,
                Key={"session_id": {"S": session_id}},
                ReturnValues="ALL_OLD",
            )
        except STORE_FAILURES as exc:
            raise self._unavailable(exc) from None
        return bool(response.get("Attributes"))

    def _unavailable(self, exc: Exception) -> SessionStoreUnavailable:
        # The message names the failure class only; the caller answers 503 and logs nothing from DynamoDB.
        reason = failure_reason(exc)
        retry_after = self.retry_after_seconds if reason in THROTTLE_CODES else self.retry_after_seconds * 2
        return SessionStoreUnavailable(
            f"session store unavailable: {reason}", retry_after_seconds=retry_after
        )


def _to_item(session: Session) -> dict[str, Any]:
    item: dict[str, Any] = {
        "session_id": {"S": session.session_id},
        # Whole epoch seconds, as DynamoDB TTL expects; rounded up so TTL never deletes a live session early.
        "expires_at": {"N": str(math.ceil(session.expires_at))},
        "created_at": {"N": repr(session.created_at)},
        "last_seen": {"N": repr(session.last_seen)},
        "protocol_version": {"S": session.protocol_version},
        "business": {"S": session.business},
        # Client-sent JSON kept as text: arbitrary shapes and floats survive without DynamoDB type mapping.
        "client_info": {"S": json.dumps(session.client_info, separators=(",", ":"))},
        "client_capabilities": {"S": json.dumps(session.client_capabilities, separators=(",", ":"))},
    }
    if session.principal is not None:
        item["principal"] = {"S": session.principal}
    if session.log_level is not None:
        item["log_level"] = {"S": session.log_level}
    return item


def _from_item(item: dict[str, Any]) -> Session:
    def text(name: str) -> str | None:
        value = item.get(name)
        return value["S"] if value and "S" in value else None

    def number(name: str) -> float:
        return float(item[name]["N"])

    return Session(
        session_id=item["session_id"]["S"],
        protocol_version=text("protocol_version") or "",
        business=text("business") or "",
        client_info=json.loads(text("client_info") or "{}"),
        client_capabilities=json.loads(text("client_capabilities") or "{}"),
        principal=text("principal"),
        log_level=text("log_level"),
        created_at=number("created_at"),
        last_seen=number("last_seen"),
        expires_at=number("expires_at"),
    )
