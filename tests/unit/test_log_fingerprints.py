"""Identity fingerprints in log lines (`caller`, `key_fingerprint`): HMAC-SHA256 under a per-deployment key, so a
reader of the logs cannot confirm a guessed subject; the key comes from LOG_FINGERPRINT_KEY or the business secret,
is never logged, and nothing stored depends on it."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from typing import Any

import pytest
from tests.support.log_capture import captured_lines
from tests.support.principal_binding import ALL_SCOPES, Stores, demo_handler, reached

from mcp_lambda.caller import principal_of
from mcp_lambda.calls import fingerprints as fingerprints_module
from mcp_lambda.calls.fingerprints import LogFingerprints
from mcp_lambda.secrets import SecretUnavailable
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import MODERN, Identity, McpTestClient, authorizer_context

ISSUER = "https://issuer.example"
KEY = "fingerprint-key-" + "k" * 24
OTHER_KEY = "fingerprint-key-" + "o" * 24


class DictSecrets:
    """A business secret source holding the given values; `down` answers are "unavailable" first."""

    def __init__(self, values: dict[str, str], down: int = 0) -> None:
        self.values = values
        self.down = down
        self.lookups = 0

    def get(self, name: str) -> str:
        self.lookups += 1
        if self.lookups <= self.down:
            raise SecretUnavailable(name, "unavailable")
        if name not in self.values:
            raise SecretUnavailable(name, "missing", "the test's secrets")
        return self.values[name]


def keyed(key: str, value: str, length: int = 16) -> str:
    return hmac.new(key.encode(), value.encode(), hashlib.sha256).hexdigest()[:length]


def settings(**extra: Any) -> Settings:
    return Settings(business="demo", auth_mode="apigateway", auth_issuer=ISSUER, **extra)


def as_subject(handler: Any, subject: str) -> McpTestClient:
    return McpTestClient.over_handler(
        handler, authorizer=authorizer_context(Identity(subject, scopes=ALL_SCOPES), ISSUER)
    )


def callers(handler: Any, subject: str, calls: int = 1) -> tuple[list[str], list[dict[str, Any]]]:
    """The `caller` of each tool-call line `subject`'s searches log, and every line written meanwhile."""
    client = as_subject(handler, subject).clone(era=MODERN, capabilities={})
    with captured_lines("demo") as lines:
        for _ in range(calls):
            assert (
                client.rpc("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}).status
                == 200
            )
    return [line["caller"] for line in lines if line.get("event") == "mcp_tool_call_started"], lines


def test_the_caller_fingerprint_is_keyed_not_a_hash_anyone_can_recompute() -> None:
    subject = f"alice-{uuid.uuid4().hex[:6]}"
    principal = principal_of("jwt", ISSUER, subject)
    (logged,), _ = callers(demo_handler(settings(log_fingerprint_key=KEY)), subject)
    (other,), _ = callers(demo_handler(settings(log_fingerprint_key=OTHER_KEY)), subject)

    assert logged == keyed(KEY, principal)
    # What a reader of the logs could compute from a guessed subject, before: sha256 of iss + sub, or of the
    # principal.
    assert logged != hashlib.sha256((ISSUER + subject).encode()).hexdigest()[:16]
    assert logged != hashlib.sha256(principal.encode()).hexdigest()[:16]
    assert other != logged and other == keyed(OTHER_KEY, principal)


def test_the_key_comes_from_the_business_secret_when_the_setting_is_not_set() -> None:
    handler = demo_handler(settings(), secrets=DictSecrets({"log_fingerprint_key": KEY}))
    (logged,), _ = callers(handler, "bob")
    assert logged == keyed(KEY, principal_of("jwt", ISSUER, "bob"))


def test_the_setting_wins_over_the_secret() -> None:
    handler = demo_handler(
        settings(log_fingerprint_key=KEY), secrets=DictSecrets({"log_fingerprint_key": "x" * 32})
    )
    (logged,), _ = callers(handler, "bob")
    assert logged == keyed(KEY, principal_of("jwt", ISSUER, "bob"))


@pytest.mark.parametrize(
    ("secrets", "reason"),
    [({}, "missing"), ({"log_fingerprint_key": "k7Q9x"}, "too short (fewer than 16 characters)")],
)
def test_without_a_usable_key_each_container_has_its_own_and_says_so_once(
    secrets: dict[str, str], reason: str
) -> None:
    first = demo_handler(settings(environment="prod"), secrets=DictSecrets(secrets))
    second = demo_handler(settings(environment="prod"), secrets=DictSecrets(secrets))
    mine, lines = callers(first, "carol", calls=2)
    (theirs,), _ = callers(second, "carol")

    warnings = [line for line in lines if line.get("event") == "log_fingerprint_key_missing"]
    assert len(warnings) == 1 and warnings[0]["level"] == "WARNING"
    assert (
        warnings[0]["secret_reason"] == reason
        and "do not correlate across containers" in warnings[0]["effect"]
    )
    assert mine[0] == mine[1], "stable within one container"
    assert theirs != mine[0], "another container's random key"
    assert "k7Q9x" not in json.dumps(lines)


def test_a_missing_key_is_looked_up_once_an_unreachable_one_again_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = DictSecrets({})
    fingerprints = LogFingerprints(secrets_source=missing)
    assert fingerprints.of("p") == fingerprints.of("p") and missing.lookups == 1

    unreachable = DictSecrets({"log_fingerprint_key": KEY}, down=1)
    waiting = LogFingerprints(secrets_source=unreachable)
    stand_in = waiting.of("p")
    assert waiting.of("p") == stand_in and unreachable.lookups == 1, "not asked again within the minute"
    monkeypatch.setattr(fingerprints_module, "RETRY_SECONDS", 0.0)
    recovering = LogFingerprints(secrets_source=DictSecrets({"log_fingerprint_key": KEY}, down=1))
    assert recovering.of("p") != keyed(KEY, "p")
    assert recovering.of("p") == keyed(KEY, "p"), "the real key once the service answers"


def test_locally_a_missing_key_is_not_warned_about() -> None:
    _, lines = callers(demo_handler(settings()), "dave")
    assert not [line for line in lines if line.get("event") == "log_fingerprint_key_missing"]


def test_the_key_never_appears_in_any_log_line(capsys: pytest.CaptureFixture[str]) -> None:
    secret_key = "secret-fingerprint-key-" + uuid.uuid4().hex
    setting_key = "setting-fingerprint-key-" + uuid.uuid4().hex
    from_secret = demo_handler(
        settings(environment="prod"), secrets=DictSecrets({"log_fingerprint_key": secret_key})
    )
    from_setting = demo_handler(settings(environment="prod", log_fingerprint_key=setting_key))
    written: list[dict[str, Any]] = []
    for handler in (from_secret, from_setting):
        client = as_subject(handler, "erin").clone(era=MODERN, capabilities={})
        with captured_lines("demo") as lines:
            client.rpc("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}})
            client.rpc(
                "tools/call", {"name": "search_products", "arguments": {"keyword": 7}}
            )  # invalid arguments: the failed line
            client.rpc(
                "tools/call",
                {"name": "subscribe_product", "arguments": {"product_id": "p-1004", "alert": "restock"}},
                idempotency_key="k-1",
            )  # an exactly-once call: key_fingerprint
        written.extend(lines)

    events = {line.get("event") for line in written}
    assert {"mcp_tool_call_started", "mcp_tool_call_finished", "mcp_tool_call_failed"} <= events
    assert any("key_fingerprint" in line for line in written)
    out = json.dumps(written) + "".join(capsys.readouterr())
    assert secret_key not in out and setting_key not in out
    assert setting_key not in repr(settings(log_fingerprint_key=setting_key))


def test_the_key_fingerprint_is_keyed_too() -> None:
    handler = demo_handler(settings(log_fingerprint_key=KEY))
    stores_view = as_subject(handler, "frank").clone(era=MODERN, capabilities={})
    arguments = {"product_id": "p-1004", "alert": "restock"}
    with captured_lines("demo") as lines:
        stores_view.rpc(
            "tools/call", {"name": "subscribe_product", "arguments": arguments}, idempotency_key="order-1"
        )
    (fingerprint,) = {line["key_fingerprint"] for line in lines if "key_fingerprint" in line}
    key = [principal_of("jwt", ISSUER, "frank"), "subscribe_product", "Idempotency-Key", "order-1"]
    record_hash = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    assert fingerprint != record_hash[-12:], "a hash a reader of the logs could recompute from a guess"
    assert fingerprint == keyed(KEY, record_hash, 12)


def test_nothing_stored_depends_on_the_log_key() -> None:
    # Two containers with different log keys over the same stores (as containers share DynamoDB): one user's
    # state made on one is found on the other, and only the log fingerprints differ.
    stores = Stores()
    containers = {
        "app-a": demo_handler(settings(log_fingerprint_key=KEY), stores),
        "app-b": demo_handler(settings(log_fingerprint_key=OTHER_KEY), stores),
    }
    subject = f"gina-{uuid.uuid4().hex[:6]}"
    assert reached(lambda app: as_subject(containers[app], subject)) == {
        "session": True,
        "task": True,
        "exactly_once": True,
        "subscriptions": True,
    }
    (on_a,), _ = callers(containers["app-a"], subject)
    (on_b,), _ = callers(containers["app-b"], subject)
    assert on_a != on_b


def test_fingerprints_are_stable_bounded_and_accept_any_text() -> None:
    fingerprints = LogFingerprints(KEY)
    assert fingerprints.of("x") == fingerprints.of("x") == keyed(KEY, "x")
    assert len(fingerprints.of("x", 12)) == 12
    assert len(fingerprints.of("\ud800")) == 16  # a lone surrogate from a claim is fingerprinted, not a 500
    assert LogFingerprints().of("x") != LogFingerprints().of("x")  # no key: a random one each


def test_a_short_log_fingerprint_key_setting_is_refused() -> None:
    with pytest.raises(SettingsError, match="LOG_FINGERPRINT_KEY"):
        Settings.from_env({"LOG_FINGERPRINT_KEY": "short"})
    assert Settings.from_env({"LOG_FINGERPRINT_KEY": KEY}).log_fingerprint_key == KEY
