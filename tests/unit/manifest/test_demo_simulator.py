"""The demo business as the seed's four cases, seen through the simulator (the real handler, in-process)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_lambda_dev.simulate import evaluate, main

REPORT_KEYS = {
    "tool_result",
    "verdict",
    "valid",
    "violations",
    "server_log",
    "scopes",
    "model_view",
    "cards",
    "modifiable_lists",
}
HISTORY = {"enabled": True, "scope": "same_conversation", "refresh_to": "fixed_style"}


@pytest.fixture(autouse=True)
def a_current_event_loop() -> Iterator[None]:
    """The simulator calls the handler as Lambda does, on the thread's current event loop; an earlier test's
    asyncio.run() may have left the thread without one."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield
    asyncio.set_event_loop(None)
    loop.close()


def simulate(tool: str, arguments: dict[str, Any], tool_call_id: str | None = None) -> dict[str, Any]:
    report, detail = evaluate("demo", tool, arguments, tool_call_id)
    assert set(report) == (REPORT_KEYS | {"replay"} if tool_call_id else REPORT_KEYS)
    assert detail["http_status"] == 200 and detail["result_type"] == "complete"
    return report


def test_case_1_search_routes_gives_one_route_card_with_refresh_key_and_history_refresh() -> None:
    report = simulate("search_routes", {"origin": "guomao", "destination": "capital_airport_t3",
                                        "travel_mode": "transit", "departure_date": "2026-08-01"})  # fmt: skip
    assert report["valid"] is True and report["violations"] == []
    [route] = report["tool_result"]["structuredContent"]["entities"]
    route_id = "route_guomao_capital_airport_t3_transit_2026-08-01"
    assert route["route_id"] == route_id and route["entity_type"] == "route"
    assert route["map_image_url"].endswith(".png")  # card-only field passes through untouched
    assert report["tool_result"]["content"][0]["text"].startswith("Found 1 route")
    [seen] = report["model_view"]["entities"]
    assert set(seen) == {"route_id", "title", "travel_mode", "duration_minutes", "distance_km", "price_yuan",
                         "summary", "departure_date", "steps"}  # fmt: skip
    assert seen["steps"][1] == {
        "instruction": "Subway from Guomao to Terminal 3",
        "minutes": seen["steps"][1]["minutes"],
    }
    assert report["cards"] == [{"entity_index": 0, "entity_type": "route", "entity_id": route_id,
                                "widget_id": "route_result_card", "refresh_key": route_id,
                                "history_card_refresh": HISTORY}]  # fmt: skip
    assert report["modifiable_lists"] == []


def test_case_2_routes_for_reference_are_for_the_model_only() -> None:
    report = simulate(
        "search_routes_for_reference", {"origin": "zhongguancun", "destination": "beijing_south_station"}
    )
    assert report["valid"] is True
    modes = [entity["travel_mode"] for entity in report["model_view"]["entities"]]
    assert modes == ["taxi", "transit", "driving"]
    assert all("deeplink" not in entity for entity in report["model_view"]["entities"])
    assert report["cards"] == [] and report["modifiable_lists"] == []
    assert "fastest is" in report["model_view"]["text"]


def test_case_3_search_products_gives_a_list_card_whose_items_the_model_may_narrow() -> None:
    report = simulate("search_products", {"keyword": "thermos cup", "sort": "price_asc"})
    assert report["valid"] is True
    [product_list] = report["tool_result"]["structuredContent"]["entities"]
    assert [p["product_id"] for p in product_list["products"]] == ["p-1001", "p-1002"]
    [card] = report["cards"]
    assert card == {"entity_index": 0, "entity_type": "product_list", "entity_id": product_list["list_id"],
                    "widget_id": "product_list_widget", "refresh_key": None, "history_card_refresh": None}  # fmt: skip
    [listed] = report["modifiable_lists"]
    assert listed["field"] == "products" and listed["entity_id"] == product_list["list_id"]
    assert listed["items"][0] == {"index": 0, "item": {"product_id": "p-1001", "name": "Light thermos cup 350 ml",
                                  "selling_point": "Fits a commuter bag", "price_yuan": 99, "rating": 4.7,
                                  "in_stock": True}}  # fmt: skip
    [seen] = report["model_view"]["entities"]
    assert "entity_type" not in seen and "detail_url" not in seen["products"][0]


def test_case_4_subscribe_product_is_an_execution_result_without_cards() -> None:
    report = simulate("subscribe_product", {"product_id": "p-1004", "alert": "restock"})
    structured = report["tool_result"]["structuredContent"]
    assert (
        report["valid"] is True and structured["success"] is True and "isError" not in report["tool_result"]
    )
    assert structured["subscription_id"] in report["tool_result"]["content"][0]["text"]
    again = simulate("subscribe_product", {"product_id": "p-1004", "alert": "restock"})
    # A fresh subscription per execution: only a retry with the same tool_call_id shows the same one.
    assert again["tool_result"]["structuredContent"]["subscription_id"] != structured["subscription_id"]
    assert report["model_view"]["result"] == structured
    assert report["cards"] == [] and report["modifiable_lists"] == []


def test_a_tool_call_id_shows_the_retry_replayed_with_the_same_subscription() -> None:
    arguments = {"product_id": "p-1004", "alert": "restock"}
    report = simulate("subscribe_product", arguments, tool_call_id=f"call-{uuid.uuid4()}")
    replay = report["replay"]

    assert replay["exactly_once"] is True and replay["replayed"] is True and replay["identical"] is True
    assert replay["tool_result"] == report["tool_result"]
    assert set(replay["marker"]) == {"firstFinishedAt"} and replay["same_execution_id"] is True
    read_only = simulate("search_routes", {"origin": "guomao"}, tool_call_id=f"call-{uuid.uuid4()}")["replay"]
    assert read_only["exactly_once"] is False and read_only["replayed"] is False
    # Ran again, so no marker; but one logical call: the same execution id.
    assert read_only["marker"] is None and read_only["same_execution_id"] is True


def test_simulate_prints_the_retry_with_tool_call_id(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--tool", "subscribe_product", "--args", '{"product_id": "p-1004", "alert": "restock"}']
    assert main([*argv, "--tool-call-id", f"call-{uuid.uuid4()}"]) == 0
    out = capsys.readouterr().out
    assert "replayed: the tool did not run again" in out and "the result is identical" in out
    assert '_meta marks it a replay: {"firstFinishedAt": ' in out and ": the same as the first" in out


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("search_routes", {"origin": "guomao"}, 40001),
        ("search_routes", {"origin": "guomao", "destination": "guomao"}, 40002),
        ("subscribe_product", {"product_id": "p-1001", "alert": "price_drop"}, 40003),
        (
            "subscribe_product",
            {"product_id": "p-1001", "alert": "price_drop", "target_price_yuan": 120},
            40004,
        ),
        ("subscribe_product", {"product_id": "p-9999", "alert": "restock"}, 40401),
        ("subscribe_product", {"product_id": "p-1001", "alert": "restock"}, 40901),
        ("search_routes", {"origin": "guomao", "departure_date": "2026-02-30"}, 40000),
        ("search_routes", {"origin": "the moon", "destination": "guomao"}, 40000),
        ("search_products", {"keyword": "cup", "limit": 50}, 40000),
        ("subscribe_product", {"product_id": "1001", "alert": "restock"}, 40000),
    ],
)
def test_business_errors_and_strict_inputs_are_valid_error_results(
    tool: str, arguments: dict[str, Any], code: int
) -> None:
    report = simulate(tool, arguments)
    assert report["valid"] is True
    assert report["tool_result"]["isError"] is True
    assert report["tool_result"]["structuredContent"]["code"] == code
    assert report["model_view"]["error"]["code"] == code and report["cards"] == []


def test_json_format_prints_one_object_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert (
        main(
            [
                "--business",
                "demo",
                "--tool",
                "search_products",
                "--args",
                '{"keyword": "lamp"}',
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert set(json.loads(capsys.readouterr().out)) == REPORT_KEYS


def test_an_unknown_tool_exits_2_naming_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--business", "demo", "--tool", "no_such_tool"]) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.startswith(
        "simulate: business 'demo' has no tool 'no_such_tool'; known: search_routes, "
    )


def test_a_result_that_breaks_the_manifest_is_reported_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dataclasses
    import json

    from businesses.demo import products

    broken = dataclasses.replace(products.CATALOGUE[0], price_yuan=99.5)  # type: ignore[arg-type]
    monkeypatch.setattr(products, "CATALOGUE", (broken, *products.CATALOGUE[1:]))
    assert (
        main(
            [
                "--business",
                "demo",
                "--tool",
                "search_products",
                "--args",
                '{"keyword": "thermos"}',
                "--format",
                "json",
            ]
        )
        == 1
    )
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert report["violations"] == [
        "search_products: entities[0].products[0].price_yuan: expected int, got float"
    ]
    assert report["tool_result"]["isError"] is True
    assert report["tool_result"]["structuredContent"]["code"] == 50010
    assert report["cards"] == [] and report["modifiable_lists"] == []


def test_simulate_shows_a_scoped_field_only_to_a_caller_granted_its_scope() -> None:
    granted, _ = evaluate("demo", "search_products", {"keyword": "cup"}, scopes=["catalogue:costs"])
    anonymous, detail = evaluate("demo", "search_products", {"keyword": "cup"})

    assert "supplier_cost_yuan" not in str(detail["raw_result"])  # not even the tool's own result, as shown

    assert granted["scopes"] == ["catalogue:costs"] and anonymous["scopes"] == []
    for report, shown in ((granted, True), (anonymous, False)):
        [entity] = report["tool_result"]["structuredContent"]["entities"]
        [seen] = report["model_view"]["entities"]
        assert all(("supplier_cost_yuan" in item) is shown for item in entity["products"])
        assert all(("supplier_cost_yuan" in item) is shown for item in seen["products"])
        assert report["valid"] is True
