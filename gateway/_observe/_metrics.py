"""
Metrics: what a gateway counts and times, through the OpenTelemetry metrics API only.

Beside `gateway._observe._telemetry`, the only other module that imports OpenTelemetry,
and it never imports the SDK. The meter provider is injected into each
`Gateway` (the global one otherwise: a no-op unless the host installed an
SDK). Every instrument is declared once, in `METRICS`, with its unit and the
attributes it is recorded with; docs/observability.md and the Grafana
dashboard there are checked against that table. Attribute values are few by
construction: decisions, rule ids, approver names, failure kinds and
unmeasured kinds — never a sentence, a command or a call id.

As with traces, metrics are for watching, never for deciding: nothing an
instrument raises gets out.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from types import MappingProxyType
from typing import Any, Final, Literal, NamedTuple

from opentelemetry import metrics
from opentelemetry.metrics import MeterProvider, NoOpMeterProvider, _internal as _metrics_api

from gateway._observe._telemetry import (
    ATTR_APPROVER_DECISION,
    ATTR_APPROVER_NAME,
    ATTR_APPROVER_ROLE,
    ATTR_DECISION,
    ATTR_ERROR_TYPE,
    ATTR_MODE,
    ATTR_RULE,
    ATTR_UNMEASURED_KIND,
    TRACER_NAME,
)

__all__ = [
    "ATTR_AUDIT_OUTCOME",
    "METER_NAME",
    "METRICS",
    "METRIC_APPROVER_DURATION",
    "METRIC_APPROVER_FAILURES",
    "METRIC_AUDIT_WRITE",
    "METRIC_HUMAN_WAIT",
    "METRIC_HUMAN_WAITING",
    "METRIC_REVIEW_DURATION",
    "METRIC_UNMEASURED",
    "METRIC_VERDICTS",
    "Metric",
    "Metrics",
    "metric_table",
    "prometheus_names",
]

METER_NAME: Final = TRACER_NAME

ATTR_AUDIT_OUTCOME: Final = "agent_gateway.audit.outcome"
"""A metric attribute only: ``written`` or ``failed`` (the verdict was then declined)."""

Instrument = Literal["histogram", "counter", "updowncounter"]


class Metric(NamedTuple):
    """One instrument: its name, kind, unit, attributes and meaning."""

    name: str
    instrument: Instrument
    unit: str
    attributes: tuple[str, ...]
    description: str
    buckets: tuple[float, ...] = ()


_LATENCY: Final = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
    300.0,
)
_PERSON: Final = (1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

METRIC_REVIEW_DURATION: Final = Metric(
    "agent_gateway.review.duration",
    "histogram",
    "s",
    (ATTR_DECISION, ATTR_MODE),
    "How long a review took, from the call to its verdict released (a person's wait included).",
    _LATENCY,
)
METRIC_VERDICTS: Final = Metric(
    "agent_gateway.verdicts",
    "counter",
    "{verdict}",
    (ATTR_DECISION, ATTR_RULE, ATTR_APPROVER_NAME, ATTR_MODE),
    "Verdicts released, by decision, the rule that decided and the approver that did (empty when none did).",
)
METRIC_HUMAN_WAITING: Final = Metric(
    "agent_gateway.human.waiting",
    "updowncounter",
    "{question}",
    (),
    "Questions waiting for a person now (a gauge: the asks on the board).",
)
METRIC_HUMAN_WAIT: Final = Metric(
    "agent_gateway.human.wait.duration",
    "histogram",
    "s",
    (ATTR_APPROVER_DECISION,),
    "How long a question waited for a person, by what they answered (`decline` when nobody did in time).",
    _PERSON,
)
METRIC_APPROVER_DURATION: Final = Metric(
    "agent_gateway.approver.duration",
    "histogram",
    "s",
    (ATTR_APPROVER_NAME, ATTR_APPROVER_ROLE),
    "How long one approver took to answer one question.",
    _LATENCY,
)
METRIC_APPROVER_FAILURES: Final = Metric(
    "agent_gateway.approver.failures",
    "counter",
    "{failure}",
    (ATTR_APPROVER_NAME, ATTR_ERROR_TYPE),
    "Approvers that failed (each one a decline), by kind: `timeout`, `late`, `exception`, `wrong_type`, `malformed`.",
)
METRIC_UNMEASURED: Final = Metric(
    "agent_gateway.plan.unmeasured",
    "counter",
    "{call}",
    (ATTR_UNMEASURED_KIND,),
    "Shell calls whose text could not be measured, by kind of reason (never allowed without a person).",
)
METRIC_AUDIT_WRITE: Final = Metric(
    "agent_gateway.audit.write.duration",
    "histogram",
    "s",
    (ATTR_AUDIT_OUTCOME,),
    "How long a verdict waited for the required sinks to write it durably before it was released.",
    _LATENCY,
)

METRICS: Final[tuple[Metric, ...]] = (
    METRIC_REVIEW_DURATION,
    METRIC_VERDICTS,
    METRIC_HUMAN_WAITING,
    METRIC_HUMAN_WAIT,
    METRIC_APPROVER_DURATION,
    METRIC_APPROVER_FAILURES,
    METRIC_UNMEASURED,
    METRIC_AUDIT_WRITE,
)
"""Every instrument a gateway records."""

_UNIT_SUFFIXES: Final[Mapping[str, str]] = {"s": "seconds", "ms": "milliseconds", "By": "bytes"}


def prometheus_names(metric: Metric) -> tuple[str, ...]:
    """
    The series names Prometheus gives a metric exported over OTLP.

    As OpenTelemetry's Prometheus compatibility rules translate them (the
    Collector's Prometheus exporter, Prometheus's own OTLP receiver): dots
    become underscores, a unit becomes a suffix (``{…}`` annotations are
    dropped), a monotonic counter ends in ``_total``, and a histogram is
    ``_bucket``, ``_sum`` and ``_count``.
    """
    base = metric.name.replace(".", "_")
    suffix = _UNIT_SUFFIXES.get(metric.unit)
    if suffix and not base.endswith("_" + suffix):
        base = f"{base}_{suffix}"
    if metric.instrument == "histogram":
        return (f"{base}_bucket", f"{base}_sum", f"{base}_count")
    if metric.instrument == "counter":
        return (f"{base}_total",)
    return (base,)


def metric_table() -> str:
    """The metrics table of docs/observability.md (Markdown), made from `METRICS`."""
    lines = [
        "| metric | instrument | unit | attributes | in Prometheus | meaning |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for metric in METRICS:
        attributes = ", ".join(f"`{name}`" for name in metric.attributes) or "—"
        series = ", ".join(f"`{name}`" for name in prometheus_names(metric))
        lines.append(
            f"| `{metric.name}` | {metric.instrument} | `{metric.unit}` | {attributes} | {series} | {metric.description} |"
        )
    return "\n".join(lines) + "\n"


_ATTRIBUTE_SETS: Final = 4096
"""How many distinct attribute sets `Metrics` keeps built (rule ids and decisions repeat)."""


_PROXY_PROVIDER: Final[type | None] = getattr(_metrics_api, "_ProxyMeterProvider", None)
"""The class of the API's proxy provider (what `metrics.get_meter_provider` gives while none is set)."""

_SEES_GLOBAL_METER: Final = _PROXY_PROVIDER is not None and hasattr(_metrics_api, "_METER_PROVIDER")
"""Whether this version of the API keeps its global provider where `_no_global_meter` looks."""


def _no_global_meter() -> bool:
    """Whether no global meter provider is set yet (until then the API's proxy instruments drop everything)."""
    return _metrics_api._METER_PROVIDER is None  # noqa: SLF001 -- the proxy's own state, read without a call


def _attributes(metric: Metric, values: tuple[str | None, ...]) -> dict[str, str]:
    return {name: value or "" for name, value in zip(metric.attributes, values, strict=True)}


class Metrics:
    """
    The instruments of one gateway, from its injected meter provider.

    Args:
        provider: Where measurements go (default: the global provider).
    """

    def __init__(self, provider: MeterProvider | None) -> None:
        self._instruments: dict[str, Any] = {}
        self._built: dict[tuple[str, tuple[str | None, ...]], Mapping[str, str]] = {}
        # Quiet, as for `Telemetry.quiet`: the no-op provider forever, the
        # proxy until a provider is set globally (its instruments then follow).
        self._silent = False
        self._waiting = False
        try:
            source = provider if provider is not None else metrics.get_meter_provider()
            self._silent = isinstance(source, NoOpMeterProvider)
            self._waiting = (
                _SEES_GLOBAL_METER
                and _PROXY_PROVIDER is not None
                and isinstance(source, _PROXY_PROVIDER)
            )
            meter = source.get_meter(METER_NAME)
            for metric in METRICS:
                if metric.instrument == "histogram":
                    made: Any = meter.create_histogram(
                        metric.name,
                        unit=metric.unit,
                        description=metric.description,
                        explicit_bucket_boundaries_advisory=list(metric.buckets) or None,
                    )
                elif metric.instrument == "counter":
                    made = meter.create_counter(
                        metric.name, unit=metric.unit, description=metric.description
                    )
                else:
                    made = meter.create_up_down_counter(
                        metric.name, unit=metric.unit, description=metric.description
                    )
                self._instruments[metric.name] = made
        except Exception:  # noqa: BLE001 -- a broken provider means no metrics, never no reviews
            self._instruments = {}

    @property
    def quiet(self) -> bool:
        """Whether every measurement would be dropped: the API's no-op provider, or its proxy while no provider is set."""
        if self._waiting:
            if _no_global_meter():
                return True
            self._waiting = False
        return self._silent

    def _record(self, metric: Metric, amount: float, *values: str | None) -> None:
        instrument = self._instruments.get(metric.name)
        if instrument is None or self.quiet:
            return
        with suppress(Exception):  # metrics never break a review
            key = (metric.name, values)
            attributes = self._built.get(key)
            if attributes is None:
                if len(self._built) >= _ATTRIBUTE_SETS:
                    self._built.clear()
                attributes = self._built[key] = MappingProxyType(_attributes(metric, values))
            if metric.instrument == "histogram":
                instrument.record(amount, attributes)
            else:
                instrument.add(amount, attributes)

    def reviewed(
        self,
        seconds: float,
        decision: str,
        rule: str | None,
        approver: str | None,
        mode: str,
    ) -> None:
        """A verdict was released after ``seconds``."""
        if self.quiet:
            return
        self._record(METRIC_REVIEW_DURATION, seconds, decision, mode)
        self._record(METRIC_VERDICTS, 1, decision, rule, approver, mode)

    def answered(
        self, name: str, role: str, seconds: float, decision: str, failure: str | None
    ) -> None:
        """An approver answered (or failed, with the kind of failure) after ``seconds``."""
        self._record(METRIC_APPROVER_DURATION, seconds, name, role)
        if failure is not None:
            self._record(METRIC_APPROVER_FAILURES, 1, name, failure)
        if role == "person":
            self._record(METRIC_HUMAN_WAIT, seconds, decision)

    def waiting(self, delta: int) -> None:
        """Questions started (``+1``) or stopped (``-1``) waiting for a person."""
        self._record(METRIC_HUMAN_WAITING, delta)

    def unmeasured(self, kind: str) -> None:
        """A shell call could not be measured."""
        self._record(METRIC_UNMEASURED, 1, kind)

    def audit_written(self, seconds: float, *, written: bool) -> None:
        """A verdict waited ``seconds`` for its audit write (which succeeded or failed)."""
        self._record(METRIC_AUDIT_WRITE, seconds, "written" if written else "failed")
