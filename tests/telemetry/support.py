"""Helpers of the telemetry tests: private SDK providers, never the process's globals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

BOUND: Final = 10.0
"""Seconds any one step of a test may wait before the test fails."""


def tracing() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A private tracer provider that keeps finished spans in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def metering() -> tuple[MeterProvider, InMemoryMetricReader]:
    """A private meter provider read in memory."""
    reader = InMemoryMetricReader()
    return MeterProvider(metric_readers=[reader]), reader


def points(reader: InMemoryMetricReader) -> dict[str, list[Any]]:
    """Every data point collected so far, by metric name."""
    data = reader.get_metrics_data()
    found: dict[str, list[Any]] = {}
    if data is None:
        return found
    for resource in data.resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                found.setdefault(metric.name, []).extend(metric.data.data_points)
    return found


def attributes(span: ReadableSpan) -> dict[str, Any]:
    """A span's attributes as a plain dict."""
    return dict(span.attributes or {})


def named(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    """The spans of one name."""
    return [span for span in spans if span.name == name]
