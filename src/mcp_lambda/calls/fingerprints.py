"""Identity fingerprints for log lines: HMAC-SHA256 under a per-deployment key, so a log line correlates one
caller's requests (and one keyed call's retries) without letting a reader of the logs test a guessed subject.

The key is `LOG_FINGERPRINT_KEY`, else the business secret `log_fingerprint_key` (Secrets Manager in AWS,
`.env.local` locally), else a random key of this container's own (outside ENVIRONMENT=local with one
`log_fingerprint_key_missing` warning: fingerprints then do not correlate across containers). It is read once per
container, on the first fingerprint (an unreachable secret service is asked again a minute later, the random key
standing in meanwhile), and is never logged. Nothing stored depends on it: principals, sessions,
tasks and exactly-once records are keyed by the principal itself, so a new key only makes new lines stop
correlating with older ones.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from typing import Any

from ..observability import register_secret_value
from ..secrets import SecretSource, SecretUnavailable
from ..settings import Settings

SECRET_NAME = "log_fingerprint_key"
CALLER_CHARS = 16
MIN_KEY_CHARS = 16  # as LOG_FINGERPRINT_KEY: the setting refuses a shorter one
# An unreachable secret service is asked again this often (meanwhile the random key stands in).
RETRY_SECONDS = 60.0


class LogFingerprints:
    """Keyed fingerprints of identity-derived values (a principal, an exactly-once record's hash).

    Args:
        key: The HMAC key; None resolves it on first use from `secrets_source` (else a random key).
        secrets_source: Where the business secret `log_fingerprint_key` is looked up.
        environment: The ENVIRONMENT setting: a missing key is warned about everywhere but `local`.
        logger: Where the `log_fingerprint_key_missing` warning goes.
    """

    def __init__(
        self,
        key: str | None = None,
        secrets_source: SecretSource | None = None,
        environment: str = "local",
        logger: Any = None,
    ) -> None:
        self._key = key.encode("utf-8", "surrogatepass") if key else None
        if key:
            register_secret_value(key)
        self._secrets = secrets_source
        self._environment = environment
        self._warnings_to = logger
        self._lock = threading.Lock()
        # The random key used while no key could be read, and when to try reading one again.
        self._fallback: bytes | None = None
        self._retry_at = 0.0

    @classmethod
    def from_settings(cls, settings: Settings, secrets_source: SecretSource, logger: Any) -> LogFingerprints:
        """The container's fingerprints: LOG_FINGERPRINT_KEY, else the business secret, else a random key.

        Args:
            settings: The container's settings.
            secrets_source: The business's secret source.
            logger: The business's logger, for the warning a missing key gives.

        Returns:
            Fingerprints whose key is resolved on first use.
        """
        return cls(settings.log_fingerprint_key, secrets_source, settings.environment, logger)

    def of(self, value: str, length: int = CALLER_CHARS) -> str:
        """The first `length` hex digits of HMAC-SHA256(key, value).

        Args:
            value: What to fingerprint (a principal; any text, lone surrogates included).
            length: How many hex digits to keep (at most 64).

        Returns:
            The fingerprint: stable under one key, unrelated under another.
        """
        digest = hmac.new(self._resolved(), value.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return digest.hexdigest()[:length]

    def _resolved(self) -> bytes:
        if self._key is not None:
            return self._key
        with self._lock:
            if self._key is not None:
                return self._key
            if self._fallback is not None and time.monotonic() < self._retry_at:
                return self._fallback
            try:
                self._key = self._looked_up()
                return self._key
            except SecretUnavailable as missing:
                if self._fallback is None:
                    self._fallback = secrets.token_bytes(32)
                    self._warn(missing)
                if missing.reason != "unavailable":  # missing or unusable: asking again will not change it
                    self._key = self._fallback
                self._retry_at = time.monotonic() + RETRY_SECONDS
                return self._fallback

    def _looked_up(self) -> bytes:
        if self._secrets is None:
            raise SecretUnavailable(SECRET_NAME, "not configured", "nowhere: no secret source")
        key = self._secrets.get(SECRET_NAME)  # registered for redaction by the source
        if len(key) < MIN_KEY_CHARS:
            reason = f"too short (fewer than {MIN_KEY_CHARS} characters)"
            raise SecretUnavailable(SECRET_NAME, reason, f"the business secret '{SECRET_NAME}'")
        return key.encode("utf-8", "surrogatepass")

    def _warn(self, missing: SecretUnavailable) -> None:
        if self._environment == "local" or self._warnings_to is None:
            return  # one process on a developer's machine: nothing to correlate across
        self._warnings_to.warning(
            "log_fingerprint_key_missing",
            extra={
                "event": "log_fingerprint_key_missing",
                "secret_reason": missing.reason,
                "looked_in": missing.looked_in,
                "effect": "a random key for this container: fingerprints do not correlate across containers",
            },
        )


__all__ = ["CALLER_CHARS", "SECRET_NAME", "LogFingerprints"]
