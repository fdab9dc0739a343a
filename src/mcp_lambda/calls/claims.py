"""A keyed call's claim, driven through the public API of a Powertools Idempotency persistence layer.

Powertools' `@idempotent_function` calls the function itself, synchronously; the tool is a coroutine awaited on the
caller's event loop. So the claim takes the decorator's steps itself, on the layer's public methods
(`configure`, `save_inprogress`, `get_record`, `save_success`, `delete_record`) and Powertools' public exceptions:

1. `take()`: `save_inprogress` claims the key with a conditional write. When the key is held, the record that holds
   it (from the refused write, as DynamoDB's `ReturnValuesOnConditionCheckFailure` returns it, or from
   `get_record`, which checks the arguments) decides: a completed record is answered, an in-progress one is
   `IdempotencyAlreadyInProgressError`, other arguments are `IdempotencyValidationError`; a record that changed
   between the two steps is tried again, twice, as Powertools does.
2. The caller runs the tool, then `complete()`s the claim (`save_success`) or `release()`s it (`delete_record`).

Imported on the first keyed call: it loads boto3.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer, IdempotencyConfig
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyInconsistentStateError,
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
    IdempotencyKeyError,
    IdempotencyPersistenceLayerError,
    IdempotencyValidationError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from ..errors import McpLambdaError

__all__ = [
    "CLAIMED",
    "Claim",
    "IdempotencyAlreadyInProgressError",
    "IdempotencyValidationError",
]

# Tries of a claim after the record changed between the refused write and the read (Powertools' handler: 2).
RETRIES = 2


class _Claimed:
    """`take()`'s answer when this call holds the key now: run the tool, then complete or release the claim."""

    def __repr__(self) -> str:
        return "CLAIMED"


CLAIMED: Any = _Claimed()


class NotStored(McpLambdaError):
    """The result is not final (a failure, an input_required round): the claim is released, a retry runs again."""


class Claim:
    """One keyed call's claim on its key.

    Args:
        payload: `{"key": ..., "arguments": ...}`: Powertools hashes `key` into the record's id and `arguments`
            into the hash a retry must match.
        expires_after_seconds: How long a completed record is kept (the layer's, fixed when it is configured).
        layer: The persistence layer (DynamoDB, or the embedded one).
        key_prefix: The record ids' prefix (`mcp-<business>`).
        lambda_context: What gives the invocation's remaining time: a claim left behind expires with it.
    """

    def __init__(
        self,
        payload: dict[str, Any],
        expires_after_seconds: int,
        layer: BasePersistenceLayer,
        key_prefix: str,
        lambda_context: Any,
    ) -> None:
        config = IdempotencyConfig(
            event_key_jmespath="key",
            payload_validation_jmespath="arguments",
            raise_on_no_idempotency_key=True,
            expires_after_seconds=expires_after_seconds,
            hash_function="sha256",
        )
        layer.configure(config=config, key_prefix=key_prefix)
        self.layer = layer
        self.data = copy.deepcopy(payload)
        self.lambda_context = lambda_context

    def take(self) -> Any:
        """Claim the key.

        Returns:
            `CLAIMED` when this call holds the key now; else the stored answer of the call that completed it.

        Raises:
            IdempotencyValidationError: The key was used with other arguments.
            IdempotencyAlreadyInProgressError: A call holding the key is still running.
            IdempotencyPersistenceLayerError: The store failed (its error is the cause).
            IdempotencyInconsistentStateError: The record kept changing under the claim.
        """
        for attempt in range(RETRIES + 1):
            try:
                return self._try()
            except IdempotencyInconsistentStateError:
                if attempt == RETRIES:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _try(self) -> Any:
        try:
            self.layer.save_inprogress(
                data=self.data, remaining_time_in_millis=self.lambda_context.get_remaining_time_in_millis()
            )
        except (IdempotencyKeyError, IdempotencyValidationError):
            raise
        except IdempotencyItemAlreadyExistsError as exc:
            record = exc.old_data_record or self._stored_record()
            if record is not None:
                return _answer(record)
        except Exception as exc:
            raise IdempotencyPersistenceLayerError("Failed to save in progress record", exc) from exc
        return CLAIMED

    def _stored_record(self) -> DataRecord | None:
        try:
            return self.layer.get_record(data=self.data)  # checks the arguments against the record's
        except IdempotencyItemNotFoundError:  # deleted between the refused write and this read
            raise IdempotencyInconsistentStateError(
                "the record went away between the claim and the read"
            ) from None
        except IdempotencyValidationError:
            raise
        except Exception as exc:
            raise IdempotencyPersistenceLayerError("Failed to get record", exc) from exc

    def complete(self, result_json: str, first: dict[str, Any] | None = None) -> None:
        """Store the final result (kept as the JSON text sent, so a replay is identical) and, as `first`, what
        a replay tells about the run that made it (its execution id, request id, trace id, when it finished)."""
        stored: dict[str, Any] = {"result": result_json}
        if first is not None:
            stored["first"] = first
        self.layer.save_success(data=self.data, result=stored)

    def release(self) -> None:
        """Give the key back: the result is not final, so a retry runs the tool again."""
        self.layer.delete_record(data=self.data, exception=NotStored())


def _answer(record: DataRecord) -> Any:
    """What a record that holds the key answers: its stored response, or why there is none yet."""
    if record.status == STATUS_CONSTANTS["EXPIRED"]:
        raise IdempotencyInconsistentStateError("the record expired between the claim and the read")
    if record.status == STATUS_CONSTANTS["INPROGRESS"]:
        ends = record.in_progress_expiry_timestamp
        if ends is not None and ends < int(time.time() * 1000):
            raise IdempotencyInconsistentStateError("the in-progress record has outlived its invocation")
        raise IdempotencyAlreadyInProgressError("a call with this key is still running")
    return record.response_json_as_dict() or None
