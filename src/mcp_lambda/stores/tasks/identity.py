"""What a task keeps of the caller who created it, so its worker invocation runs as that caller.

The worker is a separate invocation with no request and no token: it rebuilds `ctx.caller` from this record.
Only what `Caller` holds is kept (kind, subject, issuer, scopes, the AUTH_CALLER_CLAIMS claims, client, binding),
never the bearer token.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from ...caller import Caller

# A task record is one DynamoDB item (400 KB in all): a caller larger than this is refused, never truncated.
MAX_STORED_CALLER_BYTES = 16 * 1024


class StoredCaller(BaseModel):
    """The creating request's `Caller`, as a task record holds it (`Task.caller`)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    kind: str
    subject: str
    issuer: str | None = None
    scopes: tuple[str, ...] = ()
    claims: dict[str, Any] = {}
    client: str | None = None
    binds_client: bool = False

    @classmethod
    def of(cls, caller: Caller) -> StoredCaller:
        """What a task keeps of `caller`.

        Args:
            caller: The authenticated caller of the request creating the task.

        Returns:
            The record (scopes sorted, claims copied).
        """
        return cls(
            kind=caller.kind,
            subject=caller.subject,
            issuer=caller.issuer,
            scopes=tuple(sorted(caller.scopes)),
            claims=dict(caller.claims),
            client=caller.client,
            binds_client=caller.binds_client,
        )

    def rebuild(self) -> Caller:
        """The `Caller` the creating request had, for the worker's `ctx.caller`."""
        return Caller(
            kind=self.kind,
            subject=self.subject,
            issuer=self.issuer,
            scopes=frozenset(self.scopes),
            claims=self.claims,
            client=self.client,
            binds_client=self.binds_client,
        )

    def to_json(self) -> str:
        """Compact ASCII JSON: a lone surrogate in a claim (valid JSON) stays an escape, as UTF-8 cannot encode it."""
        return json.dumps(self.model_dump(), separators=(",", ":"))

    @property
    def too_large(self) -> bool:
        return len(self.to_json()) > MAX_STORED_CALLER_BYTES
