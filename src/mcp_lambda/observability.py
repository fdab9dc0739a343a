"""Logging set-up and redaction. Tool-call log lines follow doubao-protocol.md §5."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any

from aws_lambda_powertools import Logger

_LOGGERS: dict[str, Logger] = {}


def get_logger(service: str) -> Logger:
    """One JSON Powertools Logger per service (= business), created once per container."""
    logger = _LOGGERS.get(service)
    if logger is None:
        logger = Logger(service=service, level=os.environ.get("POWERTOOLS_LOG_LEVEL", "INFO"))
        _LOGGERS[service] = logger
    return logger


def summarize_arguments(arguments: Mapping[str, Any], safe_fields: Iterable[str] = ()) -> dict[str, Any]:
    """A redacted argument summary: keys, types and sizes; values only for fields declared safe."""
    safe = set(safe_fields)
    summary: dict[str, Any] = {}
    for key, value in arguments.items():
        if (
            key in safe and isinstance(value, str | int | float | bool) and not isinstance(value, str | bytes)
        ) or (key in safe and isinstance(value, str) and len(value) <= 64):
            summary[key] = value
        else:
            summary[key] = _shape(value)
    return summary


def _shape(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return type(value).__name__
    if isinstance(value, str):
        return f"str[{len(value)}]"
    if isinstance(value, list | tuple):
        return f"array[{len(value)}]"
    if isinstance(value, dict):
        return f"object[{len(value)}]"
    return type(value).__name__


def quiet_libraries() -> None:
    """Keep third-party debug chatter (and any bodies it might print) out of the logs."""
    for name in ("botocore", "boto3", "urllib3", "mangum"):
        logging.getLogger(name).setLevel(logging.WARNING)
