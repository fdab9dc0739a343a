"""The settings in groups of related fields, each group with the rules that tie its fields together.

`Settings` inherits every group, so a field is still read as `settings.session_store`; a group is where a reader
(and the generated configuration table, one table per group) finds its neighbours. Each cross-field rule is a
`model_validator` of its group, so `Settings(...)`, `Settings.from_env()` and the test kit's `make_settings`
refuse the same things with the same message, which names the variables.
"""

from __future__ import annotations

from pydantic import BaseModel

from .backends import DynamoDBSection, SQLiteSection
from .calls import OutboundSection, TimeoutsSection
from .keys import SecretsSection
from .service import DEFAULT_ALLOWED_ORIGINS, EMPTY_IS_A_VALUE, AuthSection, RequestsSection, ServiceSection
from .state import STORE_FIELDS, StoresSection, TasksSection

SECTIONS: tuple[type[BaseModel], ...] = (
    ServiceSection,
    RequestsSection,
    AuthSection,
    StoresSection,
    DynamoDBSection,
    SQLiteSection,
    TasksSection,
    TimeoutsSection,
    OutboundSection,
    SecretsSection,
)

__all__ = [
    "DEFAULT_ALLOWED_ORIGINS",
    "EMPTY_IS_A_VALUE",
    "SECTIONS",
    "STORE_FIELDS",
    "AuthSection",
    "DynamoDBSection",
    "OutboundSection",
    "RequestsSection",
    "SQLiteSection",
    "SecretsSection",
    "ServiceSection",
    "StoresSection",
    "TasksSection",
    "TimeoutsSection",
]
