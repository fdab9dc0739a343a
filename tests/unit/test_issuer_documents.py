"""Property: whatever JSON the issuer's JWKS URL serves, it is a usable key set or a 503 — never another error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_lambda.auth import AuthFailure
from mcp_lambda.auth.jwks import usable_key_set

RSA_KEY = {
    "kty": "RSA",
    "kid": "k1",
    "use": "sig",
    "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHH"
    "yXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA"
    "84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQ"
    "B0GaDWFLN-aEAw3vRw",
    "e": "AQAB",
}
# Key-ish values: every JWK member a key set names, with any JSON in it.
members = st.sampled_from(["kty", "kid", "use", "alg", "n", "e", "crv", "x", "y", "k", "key_ops"])
json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.text(max_size=12), st.sampled_from(["RSA", "EC", "oct"])
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
jwks = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "keys": st.one_of(
                json_values, st.lists(st.dictionaries(members, json_values, max_size=6), max_size=3)
            )
        }
    ),
    st.lists(st.dictionaries(members, json_values, max_size=6), max_size=2).map(lambda keys: {"keys": keys}),
)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(document=jwks)
def test_any_jwks_document_is_a_usable_key_set_or_503(document: Any) -> None:
    try:
        key_set = usable_key_set(document)
    except AuthFailure as failure:
        assert failure.status == 503 and failure.retry_after_seconds
        assert "retry later" in failure.reason
    else:
        assert any(key.key_id for key in key_set.keys)


def test_a_jwks_with_one_signing_key_is_usable() -> None:
    assert [key.key_id for key in usable_key_set({"keys": [RSA_KEY]}).keys] == ["k1"]


@pytest.mark.parametrize(
    ("document", "why"),
    [
        ({"keys": []}, "no usable signing key"),
        ([RSA_KEY], 'not {"keys": [...]}'),
        ({"keys": {"k1": RSA_KEY}}, 'not {"keys": [...]}'),
        ({"keys": [{**RSA_KEY, "use": "enc"}]}, "no usable signing key"),
        ({"keys": [{k: v for k, v in RSA_KEY.items() if k != "kid"}]}, "no usable signing key"),
        ({"keys": [{**RSA_KEY, "n": 5}]}, "no usable signing key"),
    ],
)
def test_a_jwks_without_a_usable_signing_key_is_503_saying_why(document: Any, why: str) -> None:
    with pytest.raises(AuthFailure) as refused:
        usable_key_set(document)

    assert refused.value.status == 503 and why in refused.value.reason
