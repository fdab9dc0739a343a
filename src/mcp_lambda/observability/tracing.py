"""A tracing subsegment and an EMF record per tool call (`ToolTelemetry`), and when tracing is on.

The Tracer is Powertools' (`Tracer`, `provider.in_subsegment`, `put_annotation`), created on the first traced tool
call and never when tracing is off: importing and patching the X-Ray SDK is a large part of a cold start, which
requests that call no tool (initialize, tools/list) should not pay.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any

from .metrics import ToolCallEmf, metrics_disabled, metrics_namespace, write_emf

_TRUTHY = ("1", "true", "yes", "on")


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether tool calls are traced: on in Lambda (or beside an X-Ray daemon), off locally, and off whenever
    Powertools' POWERTOOLS_TRACE_DISABLED or a local emulator (AWS_SAM_LOCAL, CHALICE_LOCAL) says so.

    Decided here, not by building a Tracer and asking it: that would import the X-Ray SDK to answer "no".
    """
    env = os.environ if env is None else env
    if env.get("POWERTOOLS_TRACE_DISABLED", "").lower() in _TRUTHY:
        return False
    if env.get("AWS_SAM_LOCAL") or env.get("CHALICE_LOCAL"):
        return False
    return bool(env.get("AWS_LAMBDA_FUNCTION_NAME") or env.get("AWS_XRAY_DAEMON_ADDRESS"))


@dataclass
class ToolCallRecord:
    """Filled in by the executor once the outcome is known."""

    tool_name: str
    outcome: str = "system_error"


class ToolTelemetry:
    """A tracing subsegment and EMF metrics per tool call.

    Args:
        service: The business (the `service` dimension, the Tracer's service).
        namespace: The metrics namespace (default: POWERTOOLS_METRICS_NAMESPACE, or ours).
        tracing: Trace tool calls (default: `tracing_enabled()`).
        tracer: A Tracer to use instead of creating one (tests).
        metrics: Write the EMF records (default: Powertools' switch, `metrics_disabled()`, read here once: a
            container's environment does not change between its calls).
    """

    def __init__(
        self,
        service: str,
        *,
        namespace: str | None = None,
        tracing: bool | None = None,
        tracer: Any = None,
        metrics: bool | None = None,
    ) -> None:
        self.service = service
        self.metrics = not metrics_disabled() if metrics is None else metrics
        self.namespace = namespace or metrics_namespace()
        self.tracing = tracing_enabled() if tracing is None else tracing
        self._tracer = tracer
        self._emf = ToolCallEmf(self.namespace, self.service)

    @property
    def tracer(self) -> Any:
        """The Powertools Tracer, created on first use; None when tracing is off."""
        if not self.tracing:
            return None
        if self._tracer is None:
            from aws_lambda_powertools import Tracer

            self._tracer = Tracer(service=self.service, patch_modules=("botocore",))
        return self._tracer

    def tool_call(
        self, tool_name: str, trace_id: str | None = None
    ) -> AbstractContextManager[ToolCallRecord]:
        """Measure one tool call (and trace it, when tracing is on).

        Args:
            tool_name: The tool.
            trace_id: The caller's W3C trace id, annotated on the subsegment (`caller_trace_id`) to find it by.

        Returns:
            A context manager yielding the record whose `outcome` the caller sets.
        """
        tracer = self.tracer
        if tracer is None:
            return _MeasuredCall(self, ToolCallRecord(tool_name))  # a plain class: no generator per call
        return self._traced_call(tracer, tool_name, trace_id)

    @contextmanager
    def _traced_call(self, tracer: Any, tool_name: str, trace_id: str | None) -> Iterator[ToolCallRecord]:
        record = ToolCallRecord(tool_name)
        started = time.perf_counter()
        with tracer.provider.in_subsegment(f"## tool {tool_name}") as subsegment:
            try:
                yield record
            finally:
                if subsegment is not None:
                    subsegment.put_annotation("tool", tool_name)
                    subsegment.put_annotation("outcome", record.outcome)
                    if trace_id is not None:
                        subsegment.put_annotation("caller_trace_id", trace_id)
                self.emit_metrics(record, started)

    def emit_metrics(self, record: ToolCallRecord, started: float) -> None:
        """Write the call's EMF record (unless metrics were switched off when the telemetry was made).

        Args:
            record: The finished call.
            started: `time.perf_counter()` when it started.
        """
        if not self.metrics:
            return
        latency = round((time.perf_counter() - started) * 1000, 3)
        write_emf(self._emf.blob(record.tool_name, record.outcome, latency))


class _MeasuredCall:
    """`ToolTelemetry.tool_call` without tracing: the call's EMF record when the block ends."""

    __slots__ = ("record", "started", "telemetry")

    def __init__(self, telemetry: ToolTelemetry, record: ToolCallRecord) -> None:
        self.telemetry, self.record = telemetry, record

    def __enter__(self) -> ToolCallRecord:
        self.started = time.perf_counter()
        return self.record

    def __exit__(self, *exc: object) -> None:
        self.telemetry.emit_metrics(self.record, self.started)


class NoTelemetry:
    """Tool calls without tracing or metrics (unit tests, and apps wired without telemetry)."""

    @contextmanager
    def tool_call(self, tool_name: str, trace_id: str | None = None) -> Iterator[ToolCallRecord]:
        """A record to fill in, measured by nobody."""
        yield ToolCallRecord(tool_name)
