"""The stand-in inventory `make run` and `make simulate` give the demo's check_stock: catalogue stock, 404 for
other ids, and the scripted ids that fail, fail every other time or answer too slowly."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from mcp_lambda_dev import inventory
from mcp_lambda_dev.inventory import INVENTORY_VARIABLE, demo_inventory, running_inventory


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_inventory() as base:
        yield base


def _get(url: str, timeout: float = 5) -> tuple[int, object]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def test_a_catalogue_product_has_its_stock_and_an_out_of_stock_one_none(url: str) -> None:
    assert _get(f"{url}/stock/p-1001") == (200, {"product_id": "p-1001", "quantity": 18})
    assert _get(f"{url}/stock/p-1004") == (200, {"product_id": "p-1004", "quantity": 0})


def test_an_unknown_product_or_path_is_404(url: str) -> None:
    assert _get(f"{url}/stock/p-0000")[0] == 404
    assert _get(f"{url}/stock/p-1001/x")[0] == 404
    assert _get(f"{url}/other")[0] == 404


def test_the_failing_id_always_fails_and_the_flaky_one_every_other_time(url: str) -> None:
    assert [_get(f"{url}/stock/{inventory.FAILING}")[0] for _ in range(3)] == [503, 503, 503]
    flaky = [_get(f"{url}/stock/{inventory.FLAKY}")[0] for _ in range(4)]
    assert sorted(flaky) == [200, 200, 503, 503] and flaky[0] != flaky[1]


def test_the_slow_id_answers_after_the_callers_timeout(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inventory, "SLOW_SECONDS", 1.0)
    with pytest.raises(TimeoutError):
        _get(f"{url}/stock/{inventory.SLOW}", timeout=0.2)


def test_the_demo_gets_a_stand_in_only_when_none_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INVENTORY_VARIABLE, raising=False)
    with demo_inventory("demo") as started:
        assert started is not None and os.environ[INVENTORY_VARIABLE] == started
        assert _get(f"{started}/stock/p-1001")[0] == 200
    assert INVENTORY_VARIABLE not in os.environ
    with demo_inventory("conformance") as other:
        assert other is None and INVENTORY_VARIABLE not in os.environ
    monkeypatch.setenv(INVENTORY_VARIABLE, "http://inventory.example")
    with demo_inventory("demo") as kept:
        assert kept is None and os.environ[INVENTORY_VARIABLE] == "http://inventory.example"
