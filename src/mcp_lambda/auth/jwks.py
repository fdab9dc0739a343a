"""The issuer's signing keys: PyJWT's `PyJWKClient` (its cache, its unknown-`kid` refresh) fetching through
`issuer.fetch_json`, so that every way the JWKS can fail is a 503 and only a usable key set is ever cached.

Imported only in AUTH_MODE=jwt (it imports PyJWT).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from jwt import PyJWKClient, PyJWKSet, PyJWTError

from .errors import AuthFailure, unavailable
from .issuer import fetch_json

if TYPE_CHECKING:
    import urllib3

KEYS = "the issuer's signing keys"


def usable_key_set(document: Any) -> PyJWKSet:
    """The key set of a JWKS document that holds at least one key a token can name.

    Args:
        document: The parsed JSON the JWKS URL served.

    Returns:
        The parsed key set.

    Raises:
        AuthFailure: 503 when the document is not a JWKS (`{"keys": [...]}`) or holds no usable signing key.
    """
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise unavailable(f'{KEYS} could not be fetched (the JWKS is not {{"keys": [...]}}); retry later')
    try:
        key_set = PyJWKSet.from_dict(document)
    except (PyJWTError, ValueError, TypeError, KeyError, AttributeError):  # what a malformed key raises
        key_set = None
    # As PyJWKClient picks signing keys: `use` "sig" or absent, and a `kid`.
    if key_set is None or not any(key.public_key_use in ("sig", None) and key.key_id for key in key_set.keys):
        raise unavailable(f"{KEYS} could not be fetched (the JWKS holds no usable signing key); retry later")
    return key_set


class IssuerKeyClient(PyJWKClient):
    """A `PyJWKClient` that fetches with `fetch_json` and, after a failure, answers 503 at once for
    `retry_seconds` instead of asking the issuer again on every request."""

    def __init__(
        self,
        uri: str,
        http: urllib3.PoolManager,
        *,
        lifespan: float,
        cooldown_duration: float,
        retry_seconds: float,
    ) -> None:
        super().__init__(uri, lifespan=lifespan, cooldown_duration=cooldown_duration)
        self._http = http
        self._retry_seconds = retry_seconds
        self._failed_at = -float("inf")

    def fetch_data(self) -> PyJWKSet:
        """The issuer's current key set (PyJWKClient caches what this returns).

        Raises:
            AuthFailure: 503 when it cannot be fetched or is not usable, or a fetch failed moments ago.
        """
        if time.monotonic() - self._failed_at < self._retry_seconds:
            raise unavailable(f"{KEYS} could not be fetched moments ago; retry later")
        try:
            return usable_key_set(fetch_json(self._http, self.uri, KEYS))
        except AuthFailure:
            self._failed_at = time.monotonic()
            raise
