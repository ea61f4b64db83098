"""
Traces: the only module that imports OpenTelemetry (the API only).

The tracer provider is injected into each `Gateway`; when none is given, the
global one is used, which is a no-op unless the host installed an SDK. Span
names are few and fixed; details go in attributes — the GenAI semantic
conventions where they exist, the ``agent_gateway.`` namespace for the rest.
Nothing secret is ever put in an attribute: only digests, counts, names and
redacted reasons.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode, Tracer, TracerProvider

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


class Telemetry:
    """Spans for one gateway, from its injected tracer provider."""

    def __init__(self, provider: TracerProvider | None) -> None:
        source = provider if provider is not None else trace.get_tracer_provider()
        self._tracer: Tracer = source.get_tracer(TRACER_NAME)

    @contextmanager
    def span(
        self, name: str, attributes: dict[str, str | int | bool] | None = None
    ) -> Iterator[Span]:
        """Open a span (a child of the current one, if any)."""
        with self._tracer.start_as_current_span(
            name, attributes=attributes or {}, end_on_exit=True
        ) as span:
            yield span

    @staticmethod
    def ids(span: Span) -> tuple[str | None, str | None]:
        """The hex trace and span ids of a span, or ``None`` when it is not recording."""
        context = span.get_span_context()
        if not context.is_valid:
            return None, None
        return format(context.trace_id, "032x"), format(context.span_id, "016x")

    @staticmethod
    def set(span: Span, attributes: dict[str, str | int | bool | None]) -> None:
        """Set the attributes that are not ``None``, when the span records."""
        if span.is_recording():
            for key, value in attributes.items():
                if value is not None:
                    span.set_attribute(key, value)

    @staticmethod
    def error(span: Span, message: str) -> None:
        """Mark a span as failed."""
        span.set_status(Status(StatusCode.ERROR, message))
