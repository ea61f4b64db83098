"""
Traces: the spans of a review and their attributes, through the OpenTelemetry API only.

With `gateway._observe._metrics` beside it, the only module that imports OpenTelemetry;
neither ever imports the SDK (the ``gateway`` command's entry points install
one, see ``gateway._cli._otlp``). The tracer provider is injected into each
`Gateway`; when none is given, the global one is used, which is a no-op unless
the host installed an SDK. Span names are few and fixed; details go in
attributes — the OpenTelemetry GenAI semantic conventions where they apply
(`SEMCONV`), the ``agent_gateway.`` namespace for the rest. Every attribute
name is declared once, here, with the spans that carry it and what it means:
`ATTRIBUTES` is the table docs/audit.md shows.

Nothing secret is ever put in an attribute: only digests, counts, names, kinds
and reasons as the audit log publishes them (secrets masked).

Tracing is for watching, never for deciding: a tracer provider or span
processor that raises must not break a review. Every call into OpenTelemetry
is guarded; a span that cannot be started is replaced by a non-recording one,
and whatever it raises on the way out is dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Final, Literal, NamedTuple

from opentelemetry import context as otel_context, trace
from opentelemetry.trace import (
    INVALID_SPAN,
    Link,
    NonRecordingSpan,
    NoOpTracerProvider,
    ProxyTracerProvider,
    Span,
    SpanContext,
    Status,
    StatusCode,
    Tracer,
    TracerProvider,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from gateway._calls._plans import ProgramPlan
from gateway._calls._verdicts import Abstain, Answer, Verdict

__all__ = [
    "ATTRIBUTES",
    "ATTR_APPROVER",
    "ATTR_APPROVER_DECISION",
    "ATTR_APPROVER_NAME",
    "ATTR_APPROVER_ROLE",
    "ATTR_APPROVER_RULE",
    "ATTR_COMMANDS",
    "ATTR_COMPONENT",
    "ATTR_CONVERSATION_ID",
    "ATTR_DECIDED_BY",
    "ATTR_DECISION",
    "ATTR_ERROR_TYPE",
    "ATTR_FOUNDED",
    "ATTR_HOLES",
    "ATTR_HOST_DECIDED_BY",
    "ATTR_HOST_DECISION",
    "ATTR_HOST_NAME",
    "ATTR_HUMAN_SCOPE",
    "ATTR_HUMAN_WAIT",
    "ATTR_MODE",
    "ATTR_OPERATION",
    "ATTR_OUTCOME",
    "ATTR_PLAN_DIGEST",
    "ATTR_PLAN_STATUS",
    "ATTR_POLICY_VERSION",
    "ATTR_PROVIDER",
    "ATTR_QUESTION",
    "ATTR_REASON",
    "ATTR_RESULT_TYPE",
    "ATTR_RULE",
    "ATTR_SOURCE",
    "ATTR_SPAN_KIND",
    "ATTR_TOOL_CALL_ID",
    "ATTR_TOOL_NAME",
    "ATTR_UNMEASURED_KIND",
    "ATTR_UNMEASURED_REASON",
    "COMPONENT",
    "OPERATION",
    "REVIEW_ATTRIBUTES",
    "SEMCONV",
    "SPANS",
    "SPAN_APPROVE",
    "SPAN_HOLE",
    "SPAN_HOST_DECISION",
    "SPAN_OUTCOME",
    "SPAN_PLAN",
    "SPAN_REVIEW",
    "TRACER_NAME",
    "Attribute",
    "Telemetry",
    "answer_attributes",
    "attribute_table",
    "plan_attributes",
    "trace_context",
    "trace_headers",
    "unmeasured_kind",
    "verdict_attributes",
]

TRACER_NAME: Final = "agent_gateway"

SEMCONV: Final = (
    "OpenTelemetry GenAI semantic conventions, guardrails page as of "
    "open-telemetry/semantic-conventions-genai commit f5e3733 "
    "(development status; built on semantic conventions v1.44.0)"
)
"""The version of the GenAI semantic conventions the review span follows (docs/audit.md says more)."""

SPAN_REVIEW: Final = "gateway.review"
SPAN_PLAN: Final = "gateway.plan"
SPAN_APPROVE: Final = "gateway.approve"
SPAN_HOLE: Final = "gateway.hole"
SPAN_OUTCOME: Final = "gateway.outcome"
SPAN_HOST_DECISION: Final = "gateway.host_decision"

SPANS: Final[Mapping[str, str]] = {
    SPAN_REVIEW: "One review of a proposed call (a guardrail applied to the tool's input); the root of its trace unless the host's context gives a parent.",
    SPAN_PLAN: "Reading the shell text into a plan (from the plan cache, or once in a worker).",
    SPAN_APPROVE: "One approver's answer to one question (the call, a hole, a heredoc body).",
    SPAN_HOLE: "One hole question of a heredoc, or the host handing back the output of holes.",
    SPAN_OUTCOME: "What happened when the host ran the call (or did not): a child of the call's review span, so the outcome joins the review's trace.",
    SPAN_HOST_DECISION: "A person's answer given inside the host (its own prompt, an interrupt resumed): a child of the call's review span, like the outcome.",
}
"""Every span the gateway makes, with what it stands for."""

Convention = Literal["GenAI", "OpenTelemetry", "OpenInference", "project"]
Kind = Literal["string", "int", "double", "boolean"]


class Attribute(NamedTuple):
    """One span attribute the gateway sets: its name, value type, spans, convention and meaning."""

    name: str
    kind: Kind
    spans: tuple[str, ...]
    convention: Convention
    description: str


_DECLARED: dict[str, Attribute] = {}


def _attribute(
    name: str, kind: Kind, spans: tuple[str, ...], convention: Convention, description: str
) -> str:
    if name in _DECLARED:
        raise ValueError(f"The span attribute {name!r} is declared twice.")
    _DECLARED[name] = Attribute(name, kind, spans, convention, description)
    return name


_R, _P, _A, _H, _O, _D = (
    SPAN_REVIEW,
    SPAN_PLAN,
    SPAN_APPROVE,
    SPAN_HOLE,
    SPAN_OUTCOME,
    SPAN_HOST_DECISION,
)

# ── the GenAI semantic conventions ──

ATTR_OPERATION: Final = _attribute(
    "gen_ai.operation.name",
    "string",
    (_R,),
    "GenAI",
    "`apply_guardrail`: a review decides whether a tool may run; it is not the tool running (`execute_tool`).",
)
ATTR_PROVIDER: Final = _attribute(
    "gen_ai.provider.name", "string", (_R,), "GenAI", "`agent_gateway`: who applies the guardrail."
)
ATTR_COMPONENT: Final = _attribute(
    "gen_ai.guardrail.component.name",
    "string",
    (_R,),
    "GenAI",
    "`agent-gateway`: the guardrail component.",
)
ATTR_SOURCE: Final = _attribute(
    "gen_ai.guardrail.source",
    "string",
    (_R,),
    "GenAI",
    "`tool_input`: the content evaluated is a tool call's input, before the tool runs.",
)
ATTR_RESULT_TYPE: Final = _attribute(
    "gen_ai.guardrail.result.type",
    "string",
    (_R,),
    "GenAI",
    "`decision`: the native name of the result the gateway reports.",
)
ATTR_DECISION: Final = _attribute(
    "gen_ai.guardrail.result.value",
    "string",
    (_R,),
    "GenAI",
    "The verdict's decision: `allow`, `ask` or `decline` (in shadow mode, what the gateway would have answered).",
)
ATTR_REASON: Final = _attribute(
    "gen_ai.guardrail.result.reason",
    "string",
    (_R,),
    "GenAI",
    "The verdict's one sentence, as the audit log publishes it (secrets masked; at most 256 characters).",
)
ATTR_RULE: Final = _attribute(
    "gen_ai.guardrail.policy.id",
    "string",
    (_R,),
    "GenAI",
    "The policy rule that decided (`Verdict.rule`), when one did.",
)
ATTR_POLICY_VERSION: Final = _attribute(
    "gen_ai.guardrail.policy.version",
    "string",
    (_R,),
    "GenAI",
    "The version of the policy that decided (`Verdict.policy`, `rules@3:sha256:…`), when the deciding approver has versions.",
)
ATTR_TOOL_NAME: Final = _attribute(
    "gen_ai.tool.name",
    "string",
    (_R, _O, _D),
    "GenAI",
    "The guardrail's target: the tool as the host names it (`Bash`, `Edit`…).",
)
ATTR_TOOL_CALL_ID: Final = _attribute(
    "gen_ai.tool.call.id",
    "string",
    (_R, _H, _O, _D),
    "GenAI",
    "The guardrail's target: the host's id of the call.",
)
ATTR_CONVERSATION_ID: Final = _attribute(
    "gen_ai.conversation.id", "string", (_R,), "GenAI", "The session the call belongs to."
)

# ── general OpenTelemetry and OpenInference ──

ATTR_ERROR_TYPE: Final = _attribute(
    "error.type",
    "string",
    (_R, _P, _A),
    "OpenTelemetry",
    "Why the span failed, as a kind: `timeout`, `exception`, `wrong_type`, `malformed`, `late` for an approver; the exception's class for the gateway itself.",
)
ATTR_SPAN_KIND: Final = _attribute(
    "openinference.span.kind",
    "string",
    (_R,),
    "OpenInference",
    "`GUARDRAIL`, so that Arize Phoenix shows the review as the guardrail it is.",
)

# ── the project's own namespace ──

ATTR_PLAN_DIGEST: Final = _attribute(
    "agent_gateway.plan.digest",
    "string",
    (_R, _P),
    "project",
    "The content hash: the `sha256:` digest every decision is bound to (of the plan for a shell; of the tool's name and input otherwise).",
)
ATTR_PLAN_STATUS: Final = _attribute(
    "agent_gateway.plan.status",
    "string",
    (_R, _P),
    "project",
    "`measured` or `unmeasured` (shell tools only).",
)
ATTR_UNMEASURED_REASON: Final = _attribute(
    "agent_gateway.plan.unmeasured_reason",
    "string",
    (_R, _P),
    "project",
    "Why the text could not be measured: the plan's sentence (secrets masked).",
)
ATTR_UNMEASURED_KIND: Final = _attribute(
    "agent_gateway.plan.unmeasured_kind",
    "string",
    (_R, _P),
    "project",
    "The same, as one of a few kinds (`unmeasured_kind`): `parse_error`, `disagreement`, `unsupported`, `limit`, `encoding`, `nested`, `other`.",
)
ATTR_COMMANDS: Final = _attribute(
    "agent_gateway.plan.commands",
    "int",
    (_R,),
    "project",
    "How many simple commands the plan holds.",
)
ATTR_HOLES: Final = _attribute(
    "agent_gateway.plan.holes",
    "int",
    (_R,),
    "project",
    "How many heredoc holes are put to the approvers.",
)
ATTR_APPROVER: Final = _attribute(
    "agent_gateway.verdict.approver", "string", (_R,), "project", "The approver that decided."
)
ATTR_DECIDED_BY: Final = _attribute(
    "agent_gateway.human.decided_by",
    "string",
    (_R, _A),
    "project",
    "The person who decided (the name of their token), when one did.",
)
ATTR_MODE: Final = _attribute(
    "agent_gateway.mode",
    "string",
    (_R,),
    "project",
    "`enforce`, or `shadow` (the host decides; the decision is what the gateway would have answered).",
)
ATTR_APPROVER_NAME: Final = _attribute(
    "agent_gateway.approver.name", "string", (_A,), "project", "The approver asked."
)
ATTR_APPROVER_ROLE: Final = _attribute(
    "agent_gateway.approver.role",
    "string",
    (_A,),
    "project",
    "What its answers rest on: `policy`, `delegate` or `person`.",
)
ATTR_APPROVER_DECISION: Final = _attribute(
    "agent_gateway.approver.decision",
    "string",
    (_A,),
    "project",
    "Its answer: `allow`, `decline` or `abstain`.",
)
ATTR_APPROVER_RULE: Final = _attribute(
    "agent_gateway.approver.rule", "string", (_A,), "project", "The rule it names, if any."
)
ATTR_HUMAN_WAIT: Final = _attribute(
    "agent_gateway.human.wait",
    "double",
    (_A,),
    "project",
    "Seconds the question waited for a person (approvers whose role is `person`).",
)
ATTR_HUMAN_SCOPE: Final = _attribute(
    "agent_gateway.human.scope",
    "string",
    (_A,),
    "project",
    "What the person asked to remember with their decision: `once`, `digest`, `session` or `prefix`.",
)
ATTR_QUESTION: Final = _attribute(
    "agent_gateway.question",
    "string",
    (_H,),
    "project",
    "Which hole a hole span asks about: `statement.heredoc.hole`.",
)
ATTR_OUTCOME: Final = _attribute(
    "agent_gateway.outcome",
    "string",
    (_O,),
    "project",
    "What the host reported: `succeeded`, `failed`, `denied` or `unknown`.",
)
ATTR_FOUNDED: Final = _attribute(
    "agent_gateway.verdict.founded",
    "boolean",
    (_R,),
    "project",
    "Whether an allow stands on facts the plan states (every effect known and inside the workspace or a temporary directory, or a person decided); hosts with checks of their own get only founded allows.",
)
ATTR_HOST_DECISION: Final = _attribute(
    "agent_gateway.host.decision",
    "string",
    (_D,),
    "project",
    "What the person answered inside the host: `allow` or `decline`.",
)
ATTR_HOST_DECIDED_BY: Final = _attribute(
    "agent_gateway.host.decided_by",
    "string",
    (_D,),
    "project",
    "Who answered inside the host: `person`, or why nobody did: `timeout`, `failed`, `nobody`.",
)
ATTR_HOST_NAME: Final = _attribute(
    "agent_gateway.host.name",
    "string",
    (_D,),
    "project",
    "The host the answer came from, as its adapter names it.",
)

ATTRIBUTES: Final[tuple[Attribute, ...]] = tuple(_DECLARED.values())
"""Every span attribute the gateway sets, in declaration order."""

OPERATION: Final = "apply_guardrail"
COMPONENT: Final = "agent-gateway"

REVIEW_ATTRIBUTES: Final[Mapping[str, str]] = {
    ATTR_OPERATION: OPERATION,
    ATTR_PROVIDER: "agent_gateway",
    ATTR_COMPONENT: COMPONENT,
    ATTR_SOURCE: "tool_input",
    ATTR_RESULT_TYPE: "decision",
    ATTR_SPAN_KIND: "GUARDRAIL",
}
"""What every review span carries from its start (sampling-relevant, so given at creation)."""

REASON_LIMIT: Final = 256
"""Characters of a verdict's reason a span carries."""

# Kinds of unmeasured reasons, first match wins: a reason names what stopped
# the reading, and these words are in every sentence of each family.
_UNMEASURED_KINDS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    ("encoding", ("utf-8", "nul byte", "nul character", "surrogate", "control character")),
    (
        "limit",
        (
            "longer than",
            "deeper than",
            "more than",
            "too long",
            "too deep",
            "too many",
            "recursion",
            "budget",
            "within",
            "limit",
        ),
    ),
    ("disagreement", ("disagree", "does not see", "differ", "agree")),
    ("unsupported", ("does not support", "not supported", "is not read", "cannot be read")),
    ("nested", ("nested", "nests", "launch")),
    (
        "parse_error",
        (
            "could not parse",
            "syntax error",
            "expected",
            "unexpected",
            "unterminated",
            "node",
            "has no line reading",
            "has no body",
        ),
    ),
)


def unmeasured_kind(reason: str | None) -> str:
    """
    The kind of an unmeasured reason: one of a few words, for metrics and filters.

    Reasons are sentences, different for every text; a kind is what a
    dashboard can group by: ``encoding``, ``limit``, ``disagreement``,
    ``unsupported``, ``nested``, ``parse_error`` or ``other``.
    """
    text = (reason or "").lower()
    for kind, words in _UNMEASURED_KINDS:
        if any(word in text for word in words):
            return kind
    return "other"


def attribute_table() -> str:
    """The span-attribute table of docs/audit.md (Markdown), made from `ATTRIBUTES`."""
    lines = [
        "| attribute | type | spans | convention | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for item in ATTRIBUTES:
        spans = ", ".join(f"`{span}`" for span in item.spans)
        lines.append(
            f"| `{item.name}` | {item.kind} | {spans} | {item.convention} | {item.description} |"
        )
    return "\n".join(lines) + "\n"


def _no_global_tracer() -> bool:
    """Whether no global tracer provider is set yet: what the API's proxy tracer asks before every span."""
    return trace._TRACER_PROVIDER is None  # noqa: SLF001 -- the proxy's own test, read without a call


_SEES_GLOBAL_TRACER: Final = hasattr(trace, "_TRACER_PROVIDER")
"""Whether this version of the API keeps its global provider where `_no_global_tracer` looks."""


def _quiet_span(parent: otel_context.Context | None) -> Span:
    """The span the API's no-op tracer gives: the parent's context, recording nothing."""
    current = trace.get_current_span(parent)
    if isinstance(current, NonRecordingSpan):
        return current
    return NonRecordingSpan(current.get_span_context())


class _SpanScope:
    """A span made current for a block; a span that records nothing is not even made current."""

    __slots__ = (
        "_attributes",
        "_links",
        "_name",
        "_parent",
        "_span",
        "_token",
        "_tracer",
    )

    def __init__(
        self,
        tracer: Tracer | None,
        name: str,
        attributes: Mapping[str, str | int | bool] | None,
        *,
        parent: otel_context.Context | None = None,
        links: tuple[Link, ...] = (),
    ) -> None:
        self._tracer = tracer
        self._name = name
        self._attributes = attributes
        self._parent = parent
        self._links = links
        self._span: Span = INVALID_SPAN
        self._token: object = None

    def __enter__(self) -> Span:
        try:
            if self._tracer is not None:
                self._span = self._tracer.start_span(
                    self._name,
                    context=self._parent,
                    attributes=dict(self._attributes or {}),
                    links=self._links,
                )
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


class _QuietScope:
    """
    The scope of a span when no provider records anything: no span is made at all.

    It gives what the API's no-op tracer would — the current span, or the
    parent's, made current again only when it carries a trace (a caller's) —
    without building attributes or going through the proxy. Such a span does
    not record, so there is nothing to end. Every review opens one when
    nothing records, so it holds no more than it needs.
    """

    __slots__ = ("_parent", "_token")

    def __init__(self, parent: otel_context.Context | None = None) -> None:
        self._parent = parent
        self._token: object = None

    def __enter__(self) -> Span:
        try:
            span = _quiet_span(self._parent)
            if span.get_span_context().is_valid:
                self._token = otel_context.attach(trace.set_span_in_context(span))
        except Exception:  # noqa: BLE001 -- a broken context must not break a review
            return INVALID_SPAN
        return span

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            with suppress(Exception):  # as above, on the way out
                otel_context.detach(self._token)  # type: ignore[arg-type]  # the token attach gave


SpanScope = _SpanScope | _QuietScope
"""A block's span: made and made current (`_SpanScope`), or, when nothing records, not even made (`_QuietScope`)."""


_W3C: Final = TraceContextTextMapPropagator()


@contextmanager
def trace_context(headers: Mapping[str, str]) -> Iterator[None]:
    """
    Run a block inside the trace context a caller sent (W3C ``traceparent`` and ``tracestate``).

    Reviews started in the block are children of the caller's span. Headers
    without a valid ``traceparent`` change nothing; baggage is never read.
    Keys are matched without regard to case (``TRACEPARENT`` from an
    environment works too).
    """
    token: object = None
    carrier = trace_headers(headers)
    try:
        if carrier:
            token = otel_context.attach(_W3C.extract(carrier))
    except Exception:  # noqa: BLE001 -- a header that cannot be read is no context
        token = None
    try:
        yield
    finally:
        if token is not None:
            with suppress(Exception):
                otel_context.detach(token)  # type: ignore[arg-type]  # the token attach gave


def trace_headers(carrier: Mapping[str, str]) -> dict[str, str]:
    """
    The W3C trace-context headers to forward from a carrier, when it holds a valid context.

    The carrier may be headers or an environment: ``TRACEPARENT`` and
    ``TRACESTATE``, as OpenTelemetry's environment carriers name them, are
    read as ``traceparent`` and ``tracestate``. Anything invalid gives ``{}``.
    """
    fields = _W3C.fields
    found = {key.lower(): value for key, value in carrier.items() if key.lower() in fields}
    if "traceparent" not in found:
        return {}
    try:
        context = _W3C.extract(found)
        if not trace.get_current_span(context).get_span_context().is_valid:
            return {}
        headers: dict[str, str] = {}
        _W3C.inject(headers, context)
    except Exception:  # noqa: BLE001 -- a context that cannot be read is none
        return {}
    return headers


class Telemetry:
    """
    Spans for one gateway, from its injected tracer provider.

    It also remembers, for a bounded number of recent calls, the span context
    of each call's review, so that what the host reports afterwards
    (`Telemetry.outcome`) joins the review's trace.

    Args:
        provider: Where spans go (default: the global provider).
        remember: How many calls' review spans to remember.
    """

    def __init__(self, provider: TracerProvider | None, *, remember: int = 1024) -> None:
        self._tracer: Tracer | None
        # Quiet: every span would be the API's no-op. Forever for its no-op
        # provider; for its proxy (no provider given, none set globally) only
        # until a global provider is set, which the proxy then follows.
        self._silent = False
        self._waiting = False
        try:
            source = provider if provider is not None else trace.get_tracer_provider()
            self._tracer = source.get_tracer(TRACER_NAME)
            self._silent = isinstance(source, NoOpTracerProvider)
            self._waiting = isinstance(source, ProxyTracerProvider) and _SEES_GLOBAL_TRACER
        except Exception:  # noqa: BLE001 -- a broken provider means no traces, never no reviews
            self._tracer = None
        self._remember = remember
        self._reviews: OrderedDict[str, tuple[SpanContext, str]] = OrderedDict()

    @property
    def quiet(self) -> bool:
        """
        Whether no span can record: the API's no-op provider, or its proxy while no provider is set.

        Asked once per review, so what only a recording span needs (its
        attributes) is not even built; a provider set globally later is seen
        by the next review.
        """
        if self._waiting:
            if _no_global_tracer():
                return True
            self._waiting = False
        return self._silent

    def span(
        self,
        name: str,
        attributes: Mapping[str, str | int | bool] | None = None,
        *,
        quiet: bool | None = None,
    ) -> SpanScope:
        """
        Open a span (a child of the current one, if any); nothing the tracer raises gets out.

        ``quiet`` is `quiet` as the caller already asked it (so that what it
        built for the span and the span agree), asked again when not given.
        """
        if self.quiet if quiet is None else quiet:
            return _QuietScope()
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
    def set(span: Span, attributes: Mapping[str, str | int | float | bool | None]) -> None:
        """Set the attributes that are not ``None``, when the span records."""
        try:
            if span.is_recording():
                for key, value in attributes.items():
                    if value is not None:
                        span.set_attribute(key, value)
        except Exception:  # noqa: BLE001, S110 -- tracing never breaks a review
            pass

    @staticmethod
    def error(span: Span, message: str, kind: str | None = None) -> None:
        """Mark a span as failed, with ``error.type`` when the kind of failure is known."""
        with suppress(Exception):  # tracing never breaks a review
            span.set_status(Status(StatusCode.ERROR, message))
            if kind is not None and span.is_recording():
                span.set_attribute(ATTR_ERROR_TYPE, kind)

    @staticmethod
    def reason(text: str) -> str:
        """A verdict's reason as a span carries it (at most `REASON_LIMIT` characters)."""
        return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 1] + "…"

    def reviewed(self, call_id: str | None, tool: str, span: Span) -> None:
        """Remember the review span of a call, so that its outcome joins the trace."""
        if not call_id:
            return
        try:
            context = span.get_span_context()
        except Exception:  # noqa: BLE001 -- a broken span is not remembered
            return
        if not context.is_valid:
            return
        self._reviews[call_id] = (context, tool)
        self._reviews.move_to_end(call_id)
        while len(self._reviews) > self._remember:
            self._reviews.popitem(last=False)

    def outcome(self, call_id: str | None, outcome: str) -> SpanScope:
        """
        The span of a call's outcome: a child of the call's review span when the gateway remembers it.

        When the outcome is reported inside another trace (the host's span, or
        a ``traceparent`` it sent), that span is linked.
        """
        return self._after_review(SPAN_OUTCOME, call_id, {ATTR_OUTCOME: outcome})

    def host_decision(
        self, call_id: str | None, decision: str, by: str, host: str | None
    ) -> SpanScope:
        """The span of a person's answer inside the host: joined to the review as `outcome` is."""
        attributes: dict[str, str | int | bool] = {
            ATTR_HOST_DECISION: decision,
            ATTR_HOST_DECIDED_BY: by,
        }
        if host:
            attributes[ATTR_HOST_NAME] = host
        return self._after_review(SPAN_HOST_DECISION, call_id, attributes)

    def _after_review(
        self, name: str, call_id: str | None, attributes: dict[str, str | int | bool]
    ) -> SpanScope:
        """A span of what follows a review: its child when remembered, linked to the current span."""
        review = self._reviews.get(call_id) if call_id else None
        if call_id:
            attributes[ATTR_TOOL_CALL_ID] = call_id
        if review is None:
            return _QuietScope() if self.quiet else _SpanScope(self._tracer, name, attributes)
        context, tool = review
        attributes[ATTR_TOOL_NAME] = tool
        links: tuple[Link, ...] = ()
        with suppress(Exception):
            current = trace.get_current_span().get_span_context()
            if current.is_valid and current.trace_id != context.trace_id:
                links = (Link(current),)
        parent = trace.set_span_in_context(NonRecordingSpan(context))
        if self.quiet:
            return _QuietScope(parent)
        return _SpanScope(self._tracer, name, attributes, parent=parent, links=links)


def verdict_attributes(verdict: Verdict, mode: str) -> dict[str, str | bool | None]:
    """What a review span says of its verdict."""
    return {
        ATTR_DECISION: verdict.decision,
        ATTR_FOUNDED: verdict.founded,
        ATTR_REASON: Telemetry.reason(verdict.reason),
        ATTR_RULE: verdict.rule,
        ATTR_POLICY_VERSION: verdict.policy,
        ATTR_APPROVER: verdict.approver,
        ATTR_DECIDED_BY: verdict.decided_by,
        ATTR_PLAN_DIGEST: verdict.digest,
        ATTR_MODE: mode,
    }


def plan_attributes(plan: ProgramPlan) -> dict[str, str | None]:
    """What a plan span (and its review span) says of a plan."""
    measured = plan.status == "measured"
    return {
        ATTR_PLAN_DIGEST: plan.digest,
        ATTR_PLAN_STATUS: plan.status,
        ATTR_UNMEASURED_REASON: None if measured else plan.reason,
        ATTR_UNMEASURED_KIND: None if measured else unmeasured_kind(plan.reason),
    }


def answer_attributes(answer: Answer, role: str, seconds: float) -> dict[str, str | float | None]:
    """What an approve span says of an answer (and, for a person, of their decision and wait)."""
    decided_by = None if isinstance(answer, Abstain) else answer.decided_by
    attributes: dict[str, str | float | None] = {
        ATTR_APPROVER_DECISION: answer.decision,
        ATTR_APPROVER_RULE: answer.rule,
        ATTR_DECIDED_BY: decided_by,
    }
    if role == "person":
        attributes[ATTR_HUMAN_WAIT] = round(seconds, 6)
        if decided_by is not None:
            # A person's rule is ``<approver>`` or ``<approver>.<scope>``.
            scope = (answer.rule or "").rpartition(".")[2] if "." in (answer.rule or "") else "once"
            attributes[ATTR_HUMAN_SCOPE] = scope
    return attributes
