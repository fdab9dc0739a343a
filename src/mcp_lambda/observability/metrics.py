"""EMF metrics: one writer for every record the framework emits, and the handler's Powertools `Metrics`.

The framework's records (a tool call's, a counted event's) have names, units and dimensions fixed in code, so
each kind is rendered from a template (`EmfRecord`) instead of Powertools' per-call validation and dimension
bookkeeping; `test_the_emf_record_is_what_powertools_serializes` holds the tool call's to Powertools' own bytes.
Records follow Powertools' switch (`is_metrics_disabled`: POWERTOOLS_METRICS_DISABLED, or POWERTOOLS_DEV).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics.functions import is_metrics_disabled  # Powertools' own rule

from .formatter import dumps

DEFAULT_METRICS_NAMESPACE = "McpTools"
# Outcomes that mean the server, not the caller's business case, went wrong.
ERROR_OUTCOMES = frozenset({"system_error", "invalid_arguments"})

_METRICS: dict[str, Metrics] = {}
_CACHED_VALUES = 1024  # dimension values kept as JSON per record kind
_FLOATS = {0.0: "0.0", 1.0: "1.0"}  # what most metric values are, as Powertools writes them (floats)


def metrics_namespace() -> str:
    """Powertools' POWERTOOLS_METRICS_NAMESPACE, or our default."""
    return os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_METRICS_NAMESPACE


def get_metrics(service: str) -> Metrics:
    """The container's Powertools Metrics for the handler decorator (the ColdStart record)."""
    metrics = _METRICS.get(service)
    if metrics is None:
        metrics = Metrics(namespace=metrics_namespace(), service=service)
        _METRICS[service] = metrics
    return metrics


# The two variables as last read, and Powertools' answer for them: one tuple, which threads replace whole.
_UNSET: tuple[tuple[str | None, str | None], bool] = ((None, None), False)
_METRICS_SWITCH = _UNSET


def metrics_disabled() -> bool:
    """Powertools' own switch (`is_metrics_disabled`: POWERTOOLS_METRICS_DISABLED, or POWERTOOLS_DEV without it),
    asked again only when either variable has changed: the variables are read on every call, the rule is not."""
    global _METRICS_SWITCH
    seen = (os.environ.get("POWERTOOLS_METRICS_DISABLED"), os.environ.get("POWERTOOLS_DEV"))
    switch = _METRICS_SWITCH
    if seen != switch[0] or switch is _UNSET:
        switch = _METRICS_SWITCH = (seen, bool(is_metrics_disabled()))
    return switch[1]


class EmfRecord:
    """One kind of EMF record: its namespace, dimension names and metrics (name, unit) fixed, rendered once.

    Args:
        namespace: The CloudWatch namespace.
        dimensions: The dimension names, in order (their values are given per record).
        metrics: (name, unit) of each metric, in order (their values are given per record).
    """

    def __init__(self, namespace: str, dimensions: Sequence[str], metrics: Sequence[tuple[str, str]]) -> None:
        directive = [
            {
                "Namespace": namespace,
                "Dimensions": [list(dimensions)],
                "Metrics": [{"Name": name, "Unit": unit} for name, unit in metrics],
            }
        ]
        # The record after its properties, as one %-template: the timestamp, the dimensions' JSON, the values.
        fixed = [dumps(name).replace("%", "%%") for name in (*dimensions, *(name for name, _ in metrics))]
        self._template = (
            '"_aws":{"Timestamp":%d,"CloudWatchMetrics":'
            + dumps(directive).replace("%", "%%")
            + "}"
            + "".join(f",{name}:%s" for name in fixed[: len(dimensions)])
            + "".join(f",{name}:[%s]" for name in fixed[len(dimensions) :])
            + "}"
        )
        self._own_keys = frozenset({"_aws", *dimensions, *(name for name, _ in metrics)})
        self._values: dict[str, str] = {}  # dimension values as JSON (tool names, the service: a few)

    def render(
        self,
        dimension_values: Sequence[str],
        values: Sequence[float],
        properties: Mapping[str, Any] | None = None,
    ) -> str:
        """The record's JSON text (one line): `properties` first, then `_aws`, the dimensions and the metrics.

        Args:
            dimension_values: One value per dimension, in order.
            values: One value per metric, in order.
            properties: Fields the record carries beside them (searchable in Logs Insights, not dimensions).
        """
        head = "{"
        if properties:
            kept = {k: v for k, v in properties.items() if k not in self._own_keys}
            head = dumps(kept)[:-1] + "," if kept else "{"
        known, floats = self._values, _FLOATS
        fields = (
            int(time.time() * 1000),
            *[known.get(value) or self._json(value) for value in dimension_values],
            *[floats.get(number) or repr(float(number)) for number in values],
        )
        return head + self._template % fields

    def _json(self, value: str) -> str:
        text = self._values.get(value)
        if text is None:
            text = dumps(value)
            if len(self._values) < _CACHED_VALUES:
                self._values[value] = text
        return text


def write_emf(line: str) -> None:
    """Write one rendered EMF record to stdout, as Powertools' Metrics print theirs, in one write: print()
    writes the newline apart, and the records of two threads could run together on one line."""
    sys.stdout.write(line + "\n")


class ToolCallEmf:
    """The EMF record of one tool call, as Powertools' EphemeralMetrics would serialize it (dimensions `tool` and
    `service`; ToolCalls, ToolErrors, ToolBusinessErrors, ToolReplays, ToolLatency). It keeps no state between
    calls (one shared Powertools instance raced between threads: `Dimension 'tool' has already been added`)."""

    METRICS = (
        ("ToolCalls", "Count"),
        ("ToolErrors", "Count"),
        ("ToolBusinessErrors", "Count"),
        ("ToolReplays", "Count"),
        ("ToolLatency", "Milliseconds"),
    )

    def __init__(self, namespace: str, service: str) -> None:
        self.service = service
        self._record = EmfRecord(namespace, ("tool", "service"), self.METRICS)

    def blob(self, tool: str, outcome: str, latency_ms: float) -> str:
        """The record's JSON text for one call of `tool` that ended with `outcome` after `latency_ms`."""
        errors = 1.0 if outcome in ERROR_OUTCOMES else 0.0
        business = 1.0 if outcome == "business_error" else 0.0
        replays = 1.0 if outcome == "replayed" else 0.0
        return self._record.render((tool, self.service), (1.0, errors, business, replays, latency_ms))


_COUNT_RECORDS: dict[tuple[str, str], EmfRecord] = {}


def write_count_metric(metric: str, service: str, properties: Mapping[str, Any] | None = None) -> None:
    """One EMF record counting `metric` once (Count, dimension `service` only), switched off as Powertools' are.

    Args:
        metric: The metric's name, e.g. `QuotaRejections`.
        service: The business (the `service` dimension).
        properties: Fields the record carries beside it (searchable in Logs Insights, not dimensions).
    """
    if metrics_disabled():
        return
    key = (metrics_namespace(), metric)
    record = _COUNT_RECORDS.get(key)
    if record is None:
        record = _COUNT_RECORDS.setdefault(key, EmfRecord(key[0], ("service",), ((metric, "Count"),)))
    write_emf(record.render((service,), (1.0,), properties))
