"""
Traces: the only module that imports OpenTelemetry (the API only).

The tracer provider is injected into each `Gateway`; when none is given, the
global one is used, which is a no-op unless the host installed an SDK. Span
names are few and fixed; details go in attributes — the GenAI semantic
conventions where they exist, the ``agent_gateway.`` namespace for the rest.
Nothing secret is ever put in an attribute: only digests, counts, names and
redacted reasons.

Tracing is for watching, never for deciding: a tracer provider or span
processor that raises must not break a review. Every call into OpenTelemetry
is guarded; a span that cannot be started is replaced by a non-recording one,
and whatever it raises on the way out is dropped.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Final

from opentelemetry import context as otel_context, trace
from opentelemetry.trace import INVALID_SPAN, Span, Status, StatusCode, Tracer, TracerProvider

__all__ = [
    "ATTR_APPROVER",
    "ATTR_COMMANDS",
    "ATTR_CONVERSATION_ID",
    "ATTR_DECISION",
    "ATTR_HOLES",
    "ATTR_OPERATION",
    "ATTR_PLAN_DIGEST",
    "ATTR_PLAN_STATUS",
    "ATTR_QUESTION",
    "ATTR_RULE",
    "ATTR_TOOL_CALL_ID",
    "ATTR_TOOL_NAME",
    "ATTR_UNMEASURED_REASON",
    "SPAN_APPROVE",
    "SPAN_HOLE",
    "SPAN_PLAN",
    "SPAN_REVIEW",
    "TRACER_NAME",
    "Telemetry",
]

TRACER_NAME: Final = "agent_gateway"

SPAN_REVIEW: Final = "gateway.review"
SPAN_PLAN: Final = "gateway.plan"
SPAN_APPROVE: Final = "gateway.approve"
SPAN_HOLE: Final = "gateway.hole"

# GenAI semantic conventions.
ATTR_OPERATION: Final = "gen_ai.operation.name"
ATTR_TOOL_NAME: Final = "gen_ai.tool.name"
ATTR_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
ATTR_CONVERSATION_ID: Final = "gen_ai.conversation.id"
# The project's own namespace.
ATTR_PLAN_DIGEST: Final = "agent_gateway.plan.digest"
ATTR_PLAN_STATUS: Final = "agent_gateway.plan.status"
ATTR_UNMEASURED_REASON: Final = "agent_gateway.plan.unmeasured_reason"
ATTR_COMMANDS: Final = "agent_gateway.plan.commands"
ATTR_HOLES: Final = "agent_gateway.plan.holes"
ATTR_DECISION: Final = "agent_gateway.verdict.decision"
ATTR_APPROVER: Final = "agent_gateway.verdict.approver"
ATTR_RULE: Final = "agent_gateway.verdict.rule"
ATTR_QUESTION: Final = "agent_gateway.question"


class _SpanScope:
    """A span made current for a block; a span that records nothing is not even made current."""

    __slots__ = ("_attributes", "_name", "_span", "_token", "_tracer")

    def __init__(
        self, tracer: Tracer | None, name: str, attributes: dict[str, str | int | bool] | None
    ) -> None:
        self._tracer = tracer
        self._name = name
        self._attributes = attributes
        self._span: Span = INVALID_SPAN
        self._token: object = None

    def __enter__(self) -> Span:
        try:
            if self._tracer is not None:
                self._span = self._tracer.start_span(self._name, attributes=self._attributes or {})
            if self._span.get_span_context().is_valid:
                self._token = otel_context.attach(trace.set_span_in_context(self._span))
        except Exception:  # noqa: BLE001 -- a raising span processor must not break a review
            self._span = INVALID_SPAN
        return self._span

    def __exit__(self, *exc: object) -> None:
        try:
            if self._token is not None:
                otel_context.detach(self._token)  # type: ignore[arg-type]  # the token attach gave
            self._span.end()
        except Exception:  # noqa: BLE001, S110 -- as above, on the way out
            pass


class Telemetry:
    """Spans for one gateway, from its injected tracer provider."""

    def __init__(self, provider: TracerProvider | None) -> None:
        self._tracer: Tracer | None
        try:
            source = provider if provider is not None else trace.get_tracer_provider()
            self._tracer = source.get_tracer(TRACER_NAME)
        except Exception:  # noqa: BLE001 -- a broken provider means no traces, never no reviews
            self._tracer = None

    def span(self, name: str, attributes: dict[str, str | int | bool] | None = None) -> _SpanScope:
        """Open a span (a child of the current one, if any); nothing the tracer raises gets out."""
        return _SpanScope(self._tracer, name, attributes)

    @staticmethod
    def ids(span: Span) -> tuple[str | None, str | None]:
        """The hex trace and span ids of a span, or ``None`` when it is not recording."""
        try:
            context = span.get_span_context()
            if not context.is_valid:
                return None, None
            return format(context.trace_id, "032x"), format(context.span_id, "016x")
        except Exception:  # noqa: BLE001 -- a broken span has no ids
            return None, None

    @staticmethod
    def set(span: Span, attributes: dict[str, str | int | bool | None]) -> None:
        """Set the attributes that are not ``None``, when the span records."""
        try:
            if span.is_recording():
                for key, value in attributes.items():
                    if value is not None:
                        span.set_attribute(key, value)
        except Exception:  # noqa: BLE001, S110 -- tracing never breaks a review
            pass

    @staticmethod
    def error(span: Span, message: str) -> None:
        """Mark a span as failed."""
        with suppress(Exception):  # tracing never breaks a review
            span.set_status(Status(StatusCode.ERROR, message))
