"""A secret source of fixed values, for tests that run a business through the handler (`build_handler(secrets=)`)."""

from __future__ import annotations

from collections.abc import Mapping

from mcp_lambda.tools import SecretUnavailable


class StaticSecrets:
    """The business secret as Secrets Manager or `.env.local` would hold it; a name it lacks is `missing`."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)

    def get(self, name: str) -> str:
        value = self.values.get(name)
        if not value:
            raise SecretUnavailable(name, "missing")
        return value
