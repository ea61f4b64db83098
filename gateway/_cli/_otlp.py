"""
OTLP export for the ``gateway`` command: the OpenTelemetry SDK, set up from ``[telemetry]``.

The only module that imports the OpenTelemetry SDK and its OTLP exporters
(the ``otlp`` extra; ``otlp-grpc`` for ``protocol = "grpc"``): the library
uses the API alone, and its providers are handed to the `Gateway` the command
runs, never installed as the process's globals.

Every review is recorded, whatever the caller's ``traceparent`` says about
sampling: a caller cannot switch the tracing of its own reviews off. Leaving
`open_exporters` flushes what is still buffered (bounded by the export
timeout) and stops the exporters.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, NamedTuple

from gateway._calls._version import VERSION
from gateway._cli._common import CommandError, needs_extra
from gateway._settings._config import TelemetrySection

__all__ = ["Exporters", "export_headers", "open_exporters"]


class Exporters(NamedTuple):
    """The providers to hand a gateway (``None`` where nothing is exported)."""

    tracer_provider: Any
    meter_provider: Any


def export_headers(section: TelemetrySection) -> dict[str, str]:
    """
    The headers of every export: ``headers``, then the lines of ``headers-file``.

    Raises:
        CommandError: The file cannot be read, others may read it, or a line is not ``name=value``.
    """
    headers = dict(section.headers)
    if not section.headers_file:
        return headers
    path = Path(section.headers_file).expanduser()
    try:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            raise CommandError(
                f"The telemetry headers file {str(path)!r} may be read by others; run 'chmod 600' on it."
            )
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CommandError(
            f"Cannot read the telemetry headers file {str(path)!r} ({error.strerror})."
        ) from None
    except UnicodeDecodeError:
        raise CommandError(f"The telemetry headers file {str(path)!r} is not UTF-8 text.") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, equals, value = line.partition("=")
        name, value = name.strip(), value.strip()
        if not equals or not name or not line.isprintable():
            raise CommandError(
                f"Line {number} of the telemetry headers file {str(path)!r} is not 'name=value'."
            )
        headers[name.lower()] = value
    return headers


def _target(section: TelemetrySection, own: str, path: str) -> str | None:
    if own == "off":
        return None
    if own:
        return own
    if not section.endpoint:
        return None
    if section.protocol == "grpc":
        return section.endpoint
    return section.endpoint.rstrip("/") + path


@contextmanager
def open_exporters(section: TelemetrySection) -> Iterator[Exporters]:
    """
    Tracer and meter providers exporting over OTLP as ``[telemetry]`` says, shut down on leaving.

    Yields ``Exporters(None, None)`` when nothing is to be exported.

    Raises:
        CommandError: The exporters are not installed, or the headers file is unusable.
    """
    traces = _target(section, section.traces_endpoint, "/v1/traces")
    metrics_to = _target(section, section.metrics_endpoint, "/v1/metrics")
    if traces is None and metrics_to is None:
        yield Exporters(None, None)
        return
    headers = export_headers(section)
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased

        if section.protocol == "grpc":
            from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (
                OTLPMetricExporter,
            )
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        else:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (  # type: ignore[assignment]  # the other protocol's exporter of the same shape
                OTLPMetricExporter,
            )
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[assignment]  # as above
                OTLPSpanExporter,
            )
    except ImportError:
        extra = "otlp-grpc" if section.protocol == "grpc" else "otlp"
        raise CommandError(needs_extra("Exporting telemetry", extra)) from None
    resource = Resource.create(
        {
            "service.name": section.service_name,
            "service.version": VERSION,
            "service.instance.id": f"{os.uname().nodename}-{os.getpid()}",
        }
    )
    interval = section.export_interval * 1000
    timeout = section.timeout * 1000
    tracer_provider = None
    meter_provider = None
    options: dict[str, Any] = {"headers": headers, "timeout": section.timeout}
    if traces is not None:
        # A caller's traceparent may say "not sampled": its reviews are recorded all the same.
        tracer_provider = TracerProvider(
            resource=resource,
            sampler=ParentBased(
                ALWAYS_ON, remote_parent_not_sampled=ALWAYS_ON, local_parent_not_sampled=ALWAYS_ON
            ),
        )
        tracer_provider.add_span_processor(
            BatchSpanProcessor(
                OTLPSpanExporter(endpoint=traces, **options),
                schedule_delay_millis=interval,
                export_timeout_millis=timeout,
            )
        )
    if metrics_to is not None:
        reader = PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=metrics_to, **options),
            export_interval_millis=interval,
            export_timeout_millis=timeout,
        )
        meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    try:
        yield Exporters(tracer_provider, meter_provider)
    finally:
        # What is still buffered is sent now, each provider bounded by the export timeout.
        for provider in (tracer_provider, meter_provider):
            if provider is not None:
                with suppress(Exception):
                    provider.force_flush(int(timeout))
                with suppress(Exception):
                    provider.shutdown()
