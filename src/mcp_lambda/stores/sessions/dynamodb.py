"""DynamoDB SessionStore: legacy sessions shared by every container of the function.

One item per session, keyed by `session_id`; `expires_at` (epoch seconds) is the table's TTL attribute, but TTL
deletes lazily, so expiry is always checked here. Every read is strongly consistent, so a session minted a
moment ago on another container, or deleted a moment ago, is seen as such. Every call goes through
`DynamoDBTable.call` (mcp_lambda/stores/table.py): a sick table answers 503 quickly, and never after the request
deadline.
"""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING, Any

from ...settings import seconds
from ..table import ConditionFailed, DynamoDBTable
from .base import MAX_CANCELLED, Session, SessionIdTaken, SessionStoreUnavailable

if TYPE_CHECKING:
    from ...aws import AwsBudget
    from .. import StoreConfig


# The table's shape (template.yaml's table and the local tables are made from these; a test pins the template).
KEY_ATTRIBUTE = "session_id"
TTL_ATTRIBUTE = "expires_at"


class DynamoDBSessionStore(DynamoDBTable):
    store_name = "session store"
    key_attribute = KEY_ATTRIBUTE
    unavailable_error = SessionStoreUnavailable

    def __init__(
        self,
        table_name: str,
        ttl_seconds: int = 3600,
        *,
        client: Any = None,
        retry_after_seconds: int = 1,
        budget: AwsBudget | None = None,
    ) -> None:
        # The client is made on first use: a container serving only stateless (2026-07-28) requests never pays.
        super().__init__(table_name, client=client, budget=budget, retry_after_seconds=retry_after_seconds)
        self.ttl_seconds = ttl_seconds

    def create(self, session: Session) -> None:
        try:
            self.put_new(_to_item(session))
        except ConditionFailed:
            raise SessionIdTaken("session id already exists") from None

    def get(self, session_id: str) -> Session | None:
        return self.read_live(session_id, _from_item)

    def touch(self, session: Session) -> Session:
        now = time.time()
        if not session.needs_refresh(self.ttl_seconds, now):
            return session
        refreshed = session.model_copy(
            update={"last_seen": now, "expires_at": float(math.ceil(now + self.ttl_seconds))}
        )
        try:
            self.call(
                "update_item",
                Key=self.key(session.session_id),
                UpdateExpression="SET expires_at = :expires_at, last_seen = :last_seen",
                # Never resurrect a session deleted between our read and this write.
                ConditionExpression="attribute_exists(session_id)",
                ExpressionAttributeValues={
                    ":expires_at": {"N": str(int(refreshed.expires_at))},
                    ":last_seen": {"N": repr(now)},
                },
            )
        except ConditionFailed:
            return session
        return refreshed

    def set_log_level(self, session_id: str, level: str) -> None:
        try:
            self.call(
                "update_item",
                Key=self.key(session_id),
                UpdateExpression="SET log_level = :level",
                ConditionExpression="attribute_exists(session_id)",
                ExpressionAttributeValues={":level": {"S": level}},
            )
        except ConditionFailed:
            return  # deleted meanwhile: nothing to remember it for

    def cancel_request(self, session_id: str, request_key: str) -> None:
        try:
            self.call(
                "update_item",
                Key=self.key(session_id),
                UpdateExpression="ADD cancelled_requests :key",
                ConditionExpression="attribute_exists(session_id) AND "
                "(attribute_not_exists(cancelled_requests) OR size(cancelled_requests) < :max)",
                ExpressionAttributeValues={":key": {"SS": [request_key]}, ":max": {"N": str(MAX_CANCELLED)}},
            )
        except ConditionFailed:
            return  # deleted meanwhile, or already as many as a session keeps

    def delete(self, session_id: str) -> bool:
        response = self.call("delete_item", Key=self.key(session_id), ReturnValues="ALL_OLD")
        return bool(response.get("Attributes"))


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
    if session.cancelled_requests:  # a string set, never empty
        item["cancelled_requests"] = {"SS": sorted(session.cancelled_requests)}
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
        cancelled_requests=frozenset(item.get("cancelled_requests", {}).get("SS", ())),
        created_at=number("created_at"),
        last_seen=number("last_seen"),
        expires_at=number("expires_at"),
    )


NEEDS_TABLE = True  # the registry's one rule: built only with the kind's table setting


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("sessions", settings)`)."""
    return DynamoDBSessionStore(
        config.required_table(), ttl_seconds=seconds(config.settings.session_ttl), budget=config.budget
    )
