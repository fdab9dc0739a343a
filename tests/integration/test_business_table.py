"""The test kit's business_table: the table a business's stack.yaml declares, made on DynamoDB Local under a
fresh name with its keys and indexes, deleted afterwards; a missing stack or table is named."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import businesses
from mcp_lambda.testing import KitError, business_table
from mcp_lambda_dev.services import LocalService

STACK = """
Resources:
  TableBookings:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: slot_id, AttributeType: S}
        - {AttributeName: owner, AttributeType: S}
      KeySchema: [{AttributeName: slot_id, KeyType: HASH}]
      GlobalSecondaryIndexes:
        - IndexName: by_owner
          KeySchema: [{AttributeName: owner, KeyType: HASH}]
          Projection: {ProjectionType: ALL}
      SSESpecification:
        SSEEnabled: true
        KMSMasterKeyId: !If [UseKmsKey, !Ref KmsKeyArn, !Ref AWS::NoValue]
  TableQueue:
    Type: AWS::SQS::Queue
"""


@pytest.fixture
def tablebiz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService) -> Iterator[str]:
    package = tmp_path / "businesses" / "tablebiz"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "stack.yaml").write_text(STACK)
    monkeypatch.setattr(businesses, "__path__", [*businesses.__path__, str(package.parent)])
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_local.endpoint_url)
    yield "tablebiz"
    sys.modules.pop("businesses.tablebiz", None)


def test_the_table_of_the_stack_is_made_with_its_keys_and_indexes_then_deleted(tablebiz: str) -> None:
    with business_table(tablebiz, "TableBookings") as table:
        described = table.client.describe_table(TableName=table.name)["Table"]
        assert table.name.startswith("tablebiz-TableBookings-")
        assert described["KeySchema"] == [{"AttributeName": "slot_id", "KeyType": "HASH"}]
        assert [index["IndexName"] for index in described["GlobalSecondaryIndexes"]] == ["by_owner"]
        assert table.environment["AWS_ENDPOINT_URL_DYNAMODB"] == table.endpoint_url
    assert table.name not in table.client.list_tables()["TableNames"]


def test_a_missing_table_or_stack_is_named(tablebiz: str, tmp_path: Path) -> None:
    queue = r"stack.yaml has no DynamoDB table 'TableQueue'; its tables: TableBookings"
    with pytest.raises(KitError, match=queue), business_table(tablebiz, "TableQueue"):
        pass
    (tmp_path / "businesses" / "tablebiz" / "stack.yaml").unlink()
    with (
        pytest.raises(KitError, match=r"business 'tablebiz' has no stack\.yaml"),
        business_table(tablebiz, "TableBookings"),
    ):
        pass
