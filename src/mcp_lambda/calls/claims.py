"""Powertools' `IdempotencyHandler`, stopped where it would call the function: the tool is a coroutine.

`handle()` keeps every rule of Powertools (claim with a conditional write, the stored answer of a completed key,
`IdempotencyAlreadyInProgressError`, `IdempotencyValidationError` for other arguments, its retries of an
inconsistent read); where Powertools would now call the function, it raises `Claimed` instead, the caller awaits
the tool on its own event loop, then `complete`s or `release`s the claim, as Powertools does after the function
(`save_success`, or `delete_record` on an exception). Imported on the first keyed call: it loads boto3.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer, IdempotencyConfig
from aws_lambda_powertools.utilities.idempotency.base import IdempotencyHandler
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyAlreadyInProgressError,
    IdempotencyValidationError,
)

from ..errors import McpLambdaError

__all__ = [
    "ClaimHandler",
    "Claimed",
    "IdempotencyAlreadyInProgressError",
    "IdempotencyValidationError",
]


class Claimed(McpLambdaError):
    """This call holds the key now: run the tool, then complete or release the claim."""


class NotStored(McpLambdaError):
    """The result is not final (a failure, an input_required round): the claim is released, a retry runs again."""


def _never(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(
        "Powertools called the function itself: ClaimHandler no longer matches IdempotencyHandler"
    )


class ClaimHandler(IdempotencyHandler):
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
        # The claim of an invocation that dies expires with it, not after the whole expiry.
        config.register_lambda_context(lambda_context)
        super().__init__(
            function=_never,
            function_payload=payload,
            config=config,
            persistence_store=layer,
            key_prefix=key_prefix,
            function_args=(),
            function_kwargs={},
        )

    def _get_function_response(self) -> Any:
        raise Claimed

    def complete(self, result_json: str) -> None:
        """Store the final result (kept as the JSON text sent, so a replay is byte-identical)."""
        self.persistence_store.save_success(data=self.data, result={"result": result_json})

    def release(self) -> None:
        self.persistence_store.delete_record(data=self.data, exception=NotStored())
