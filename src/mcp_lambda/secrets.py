"""Where a business's secrets come from: Secrets Manager in AWS, a git-ignored `.env.local` file locally.

Tools read them only through `ctx.secret(name)`; a missing secret or an unreachable service raises
SecretUnavailable, which the executor turns into one SECRET_UNAVAILABLE error result for that tool alone.
Every value of a secret that was read is registered for log redaction the moment it is read (the platform AppSecret
among them, whichever key a tool asked for): masked in every log line, and a tool result carrying one is refused.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from . import restore
from .aws import AwsBudget, AwsCallTimedOut
from .errors import ToolFailure
from .observability import register_secret_value, register_secret_values
from .settings import Settings, seconds


class SecretUnavailable(ToolFailure, LookupError):
    """The named secret is missing, or the secret service cannot be reached.

    `looked_in` says where it was looked for (a file, a Secrets Manager secret id), for the log line that lets a
    person fix it; it never holds a value.
    """

    def __init__(self, name: str, reason: str = "unavailable", looked_in: str = "") -> None:
        super().__init__(f"secret '{name}' is {reason}")
        self.name = name
        self.reason = reason
        self.looked_in = looked_in


class SecretSource(Protocol):
    def get(self, name: str) -> str:
        """The secret's value; raises SecretUnavailable."""


class NoSecrets:
    """No secret store configured: every lookup fails with a clear reason."""

    def get(self, name: str) -> str:
        raise SecretUnavailable(
            name, "not configured", "nowhere: SECRET_ID is not set and there is no .env.local file"
        )


# In Lambda this resolves to /var, which holds no .env.local: the file source is local-only by construction.
ENV_FILE = Path(__file__).resolve().parents[2] / ".env.local"


class SecretsManagerSource:
    """One Secrets Manager secret holding a JSON object `{name: value}`, cached for `max_age_seconds`."""

    def __init__(
        self,
        secret_id: str,
        max_age_seconds: int = 300,
        provider: Any = None,
        budget: AwsBudget | None = None,
    ) -> None:
        self.secret_id = secret_id
        self.max_age_seconds = max_age_seconds
        self.budget = budget or AwsBudget()
        self._provider = provider
        if provider is None:
            restore.on_restore(self.forget_provider)

    @property
    def provider(self) -> Any:
        # Built on first use (boto3 and Powertools Parameters cost cold-start time); our own provider rather than
        # the module-level one behind `get_secret`, so the client has the shared timeouts and retry budget.
        if self._provider is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider

            self._provider = SecretsProvider(boto3_client=self.budget.client("secretsmanager"))
        return self._provider

    def forget_provider(self) -> None:
        """After a SnapStart restore: a client of this environment's own, and no secret value cached before."""
        self._provider = None

    def get(self, name: str) -> str:
        from aws_lambda_powertools.utilities.parameters.exceptions import (
            GetParameterError,
            TransformParameterError,
        )

        where = f"key '{name}' of the Secrets Manager secret SECRET_ID={self.secret_id}"
        try:
            values = self.budget.call(
                self.provider.get, self.secret_id, max_age=self.max_age_seconds, transform="json"
            )
        except AwsCallTimedOut:
            raise SecretUnavailable(name, "unavailable") from None
        except TransformParameterError:
            raise SecretUnavailable(name, "unreadable (the secret is not a JSON object)", where) from None
        except GetParameterError as exc:
            reason = "missing" if _not_found(exc) else "unavailable"
            raise SecretUnavailable(name, reason, where) from None
        if not isinstance(values, dict):
            raise SecretUnavailable(name, "unreadable (the secret is not a JSON object)", where)
        register_secret_values(values.values())
        return _checked(name, values.get(name), where)


class EnvFileSecretSource:
    """`NAME=value` lines of a dotenv file (`.env.local`), re-read when the file changes.

    A tool's `ctx.secret("maps_api_key")` finds `maps_api_key=` or, failing that, `MAPS_API_KEY=`.
    """

    def __init__(self, path: Path = ENV_FILE) -> None:
        self.path = path
        self._values: dict[str, str] = {}
        self._stamp: tuple[float, int] | None = None

    def get(self, name: str) -> str:
        values = self._load(name)
        where = f"{self.path} as {name}= or {name.upper()}="
        return _checked(name, values.get(name, values.get(name.upper())), where)

    def _load(self, name: str) -> dict[str, str]:
        try:
            stat = self.path.stat()
        except OSError:
            raise SecretUnavailable(
                name, f"missing ({self.path.name} not found)", f"{self.path} (not found)"
            ) from None
        if self._stamp != (stat.st_mtime, stat.st_size):
            self._values = parse_env_file(self.path.read_text(encoding="utf-8"))
            register_secret_values(self._values.values())
            self._stamp = (stat.st_mtime, stat.st_size)
        return self._values


def parse_env_file(text: str) -> dict[str, str]:
    """The dotenv subset we need: comments, blank lines, `export NAME=value`, single or double quotes."""
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        key = key.removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        if key:
            values[key] = value
    return values


def build_secret_source(settings: Settings, env_file: Path = ENV_FILE) -> SecretSource:
    """Secrets Manager when `SECRET_ID` is set; otherwise `.env.local` when it exists; otherwise none."""
    if settings.secret_id:
        return SecretsManagerSource(
            settings.secret_id,
            max_age_seconds=seconds(settings.secrets_max_age),
            budget=AwsBudget.from_settings(settings),
        )
    if env_file.is_file():
        return EnvFileSecretSource(env_file)
    return NoSecrets()


def missing_secrets(declared: Iterable[str], source: SecretSource) -> list[tuple[str, str]]:
    """The declared keys `source` cannot give, each with why (`missing`, `not configured`, ...).

    Args:
        declared: The keys a business declares (`Business(secrets=[...])`).
        source: Where the function would read them.

    Returns:
        (key, reason) pairs, in declaration order; empty when every key has a value. Never a value.
    """
    missing = []
    for name in declared:
        try:
            source.get(name)
        except SecretUnavailable as exc:
            missing.append((name, exc.reason))
    return missing


def _checked(name: str, value: object, looked_in: str) -> str:
    if value is None or value == "":
        raise SecretUnavailable(name, "missing", looked_in)
    if not isinstance(value, str):
        raise SecretUnavailable(name, "unreadable (not a string)", looked_in)
    register_secret_value(value)
    return value


def _not_found(exc: BaseException) -> bool:
    cause = exc.__cause__ or exc.__context__
    response = getattr(cause, "response", None)
    code = response.get("Error", {}).get("Code") if isinstance(response, dict) else None
    return code == "ResourceNotFoundException"


__all__ = [
    "ENV_FILE",
    "EnvFileSecretSource",
    "NoSecrets",
    "SecretSource",
    "SecretUnavailable",
    "SecretsManagerSource",
    "build_secret_source",
    "missing_secrets",
]
