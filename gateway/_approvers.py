"""
Approvers: the plugin seam where decisions are made, and the chain that asks them.

An approver is anything with a ``name`` and ``async def review(request) ->
Allow | Decline | Abstain`` (a `typing.Protocol`, documented like trio's
``Instrument``: plugins do not subclass anything). Plugins register a factory
in the ``gateway.approvers`` entry-point group; only the approvers the config
names are loaded, and an unknown name is a start-up error naming the installed
ones. A factory is called as ``factory(options, context)``.

The optional members an approver may have are declared on `Approver` and read
once, when it is loaded, into an `ApproverSlot` (`resolve_approver`): a
misspelt one is a load error, never silently ignored.

`ApproverChain` asks the approvers in order — the first Decline or Allow
decides, Abstain passes on, nobody deciding gives ``ask`` — each under its
deadline, and `combine` turns the answers to a call and its holes into one
verdict, strictest first. Each approver is told what the ones before it
answered (`ReviewRequest.earlier`). An approver's ``role`` (`ApproverRole`)
says what its answers rest on: a **delegate**'s allow (a program, a web
service, a model) never outranks a **policy**'s decline, wherever the
delegate stands — after it, the chain still asks the policy approvers, and
any decline among them decides; persons and other delegates after it are not
asked. Everything an approver can do wrong — raise
(anything but the caller's own cancellation), hang, block its thread, answer
late, answer garbage — is a decline, and never escapes.
"""

from __future__ import annotations

import asyncio
import difflib
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Literal, NamedTuple, Protocol, runtime_checkable

import anyio
import msgspec

from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confinement
from gateway._calls._effects import Effect
from gateway._calls._errors import PluginLoadError
from gateway._calls._events import ApproverDecided, ApproverFailed, Event, HoleRef
from gateway._calls._plans import Hole, ProgramPlan, ProgramPosition, SequencePlan
from gateway._calls._verdicts import (
    Abstain,
    Allow,
    Answer,
    Decision,
    Decline,
    Verdict,
    strictest,
    unconfined,
)
from gateway._grounds import plan_founded
from gateway._observe._metrics import Metrics
from gateway._observe._telemetry import (
    ATTR_APPROVER_NAME,
    ATTR_APPROVER_ROLE,
    SPAN_APPROVE,
    Telemetry,
    answer_attributes,
)
from gateway._record._bus import EventBus
from gateway._settings._config import MAX_SECONDS, GatewayConfig
from gateway._settings._plugins import APPROVER_GROUP as APPROVER_GROUP, installed
from gateway._work._bounded import BoundedPool
from gateway._work._isolation import LoopThread, call_isolated

__all__ = [
    "APPROVER_GROUP",
    "APPROVER_ROLES",
    "OPTIONAL_MEMBERS",
    "Approver",
    "ApproverChain",
    "ApproverContext",
    "ApproverRole",
    "ApproverSlot",
    "EarlierAnswer",
    "Outcome",
    "Record",
    "ReviewRequest",
    "approver_role",
    "load_approver",
    "resolve_approver",
]


OPTIONAL_MEMBERS: Final = (
    "timeout",
    "reviews_raw_text",
    "role",
    "shares_loop",
    "deterministic",
    "generation",
    "policy_version",
    "aclose",
)
"""The optional members of an approver, each read once when it is loaded."""

ApproverRole = Literal["policy", "delegate", "person"]
"""
What an approver's answers rest on (its optional ``role`` attribute).

``policy`` (the default): a policy of its own, such as the rules; its
decline stands over any delegate's allow. ``delegate``: something outside
the gateway it hands the question to (a program, a web service, a model); its
allow stands only if no policy approver after it in the chain declines.
``person``: a person decides; not asked once a delegate has allowed.
"""

APPROVER_ROLES: Final[tuple[ApproverRole, ...]] = ("policy", "delegate", "person")


class EarlierAnswer(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What an approver earlier in the chain answered to the same question.

    Attributes:
        approver: Its name.
        decision: ``allow``, ``decline`` or ``abstain``.
        reason: Its reason, as it gave it.
        rule: The rule it named, if any.
        note: Why the gateway did not take the answer as given (an allow of
            a plan that could not be measured), if it did not.
    """

    approver: str
    decision: Literal["allow", "decline", "abstain"]
    reason: str | None
    rule: str | None = None
    note: str | None = None


class ReviewRequest(msgspec.Struct, frozen=True, kw_only=True):
    """
    What an approver is asked.

    Attributes:
        kind: ``call`` (the whole call), ``hole`` (one ``$( )`` of an unquoted
            heredoc body that must run before the body is known) or ``body``
            (a heredoc body completed from the host's answers).
        call: The call, its input's secrets masked.
        digest: The plan digest a decision is bound to.
        plan: The call's plan (``None`` for a tool that is not a shell).
        positions: The program position of every command of the plan, in order,
            including commands of nested shell text.
        holes: Every hole of the call.
        question: For ``hole``: which hole, and the hole itself (with its plans).
        body: For ``body``: the completed text, secrets masked.
        body_plan: For ``body``, when the command reading it is a shell: its plan.
        sequence: The call's strict sequence plan, when it is a shell call.
        effects: Everything the call does, in order: for a tool that is not a
            shell, what its ``[[tool-effects]]`` row reads from its input (an
            ``opaque`` effect when no row maps it); for a shell call, what its
            tool's row adds (``local_shell``'s ``env`` and ``user``), then
            every effect of its plan (`gateway.effects.iter_effects` of each
            statement). An allow may rest on effects only when none is
            ``opaque``.
        earlier: What the approvers before this one in the chain answered to
            this same question, in chain order (the rules' ``abstain`` and its
            reason, for an approver after them).
    """

    kind: Literal["call", "hole", "body"]
    call: ToolCall
    digest: str
    plan: ProgramPlan | None
    positions: tuple[ProgramPosition, ...] = ()
    holes: tuple[HoleRef, ...] = ()
    question: HoleRef | None = None
    hole: Hole | None = None
    body: str | None = None
    body_plan: ProgramPlan | None = None
    sequence: SequencePlan | None = None
    effects: tuple[Effect, ...] = ()
    earlier: tuple[EarlierAnswer, ...] = ()

    @property
    def measured(self) -> bool:
        """True when there is a measured plan (always false for tools that are not shells)."""
        return self.plan is not None and self.plan.status == "measured"


@runtime_checkable
class Approver(Protocol):
    """
    Something that reviews calls.

    ``review`` is called once per question under a deadline; it must return
    `Allow`, `Decline` or `Abstain`. Raising, timing out, answering after the
    deadline or returning anything else is a `Decline` (the gateway fails
    closed) and an ``approver.failed`` event.

    Attributes:
        name: How events and verdicts name it.

    Optional members (an approver need not have them; the gateway reads each
    once, when it loads the approver, and refuses one of the wrong type or a
    misspelling of one):

    * ``timeout: float`` — seconds it may take (at most `MAX_SECONDS`),
      instead of ``[gateway] approver-timeout`` (a person needs minutes).
      Every deadline still ends with the review's own.
    * ``reviews_raw_text: bool`` — its allow counts for a plan that could not
      be measured (a person reading the raw text); default ``False``.
    * ``role`` (`ApproverRole`, default ``policy``) — what its answers rest on.
    * ``shares_loop: bool`` — ``True`` when ``review`` never blocks the event
      loop (it awaits every wait and computes little) or must run on the
      gateway's loop (it uses objects bound to it). Otherwise, by default, it
      runs on an event loop of its own in a thread of its own, so that an
      approver that blocks — a synchronous client, a ``time.sleep``, a long
      computation — cannot stop the gateway's timers: its deadline still
      holds, and its late answer is dropped.
    * ``deterministic: bool`` — ``True`` when its answer depends only on the
      question (not on its call id) and on ``generation``: then an identical
      call gets the same answer without asking again.
    * ``generation: int`` — changes whenever what it knows changes (a
      remembered approval), so that answers given before are not reused.
    * ``policy_version: str`` — which version of its policy answers now
      (read with every answer; every verdict it decides names it).
    * ``async def aclose()`` — awaited (bounded) when the gateway closes.
    """

    name: str

    async def review(self, request: ReviewRequest) -> Answer:
        """Answer one question."""


class ApproverContext(msgspec.Struct, frozen=True, kw_only=True):
    """
    What a factory gets besides its options.

    Attributes:
        config: The gateway's configuration.
        services: A per-gateway registry plugins share objects through (the
            approval service puts its queue of waiting calls here).
        bounded: The gateway's pool of worker processes, for work on agent
            text that must be bounded (see `gateway.bounded`).
    """

    config: GatewayConfig
    services: dict[str, Any]
    bounded: BoundedPool | None = None


class ApproverSlot(NamedTuple):
    """An approver with its optional members read once (see `Approver`)."""

    approver: Approver
    name: str
    timeout: float | None
    reviews_raw_text: bool
    role: ApproverRole
    shares_loop: bool
    deterministic: bool
    has_generation: bool
    aclose: Callable[[], Awaitable[None]] | None


def _flag(approver: object, name: str, member: str, *, default: bool) -> bool:
    value = getattr(approver, member, default)
    if not isinstance(value, bool):
        raise PluginLoadError(
            f"The approver {name!r} says {member} = {value!r}, which is not True or False.",
            plugin=name,
        )
    return value


def approver_role(approver: Approver) -> ApproverRole:
    """
    The approver's role (read once, when the gateway opens): its ``role`` attribute, or ``policy``.

    Raises:
        PluginLoadError: ``role`` is not one of `APPROVER_ROLES`.
    """
    role = getattr(approver, "role", "policy")
    if role not in APPROVER_ROLES:
        name = getattr(approver, "name", type(approver).__name__)
        raise PluginLoadError(
            f"The approver {name!r} says role = {role!r}; it must be 'policy', 'delegate' or 'person'.",
            plugin=str(name),
        )
    return role


def resolve_approver(approver: Approver, *, plugin: str | None = None) -> ApproverSlot:
    """
    Read an approver's optional members once.

    Raises:
        PluginLoadError: A member has the wrong type, or an attribute looks
            like a misspelt optional member (``review_raw_text``).
    """
    name = getattr(approver, "name", None)
    if not isinstance(name, str) or not name or not callable(getattr(approver, "review", None)):
        label = plugin or type(approver).__name__
        raise PluginLoadError(
            f"The approver {label!r} has no name or no review method.", plugin=label
        )
    for attribute in dir(approver):
        if (
            attribute.startswith("_")
            or attribute in OPTIONAL_MEMBERS
            or attribute in ("name", "review")
        ):
            continue
        close = difflib.get_close_matches(attribute, OPTIONAL_MEMBERS, n=1, cutoff=0.85)
        if close:
            raise PluginLoadError(
                f"The approver {name!r} has an attribute {attribute!r}; did you mean {close[0]!r}?",
                plugin=name,
            )
    timeout = getattr(approver, "timeout", None)
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_SECONDS
    ):
        raise PluginLoadError(
            f"The approver {name!r} says timeout = {timeout!r}; it must be seconds between 0 and {MAX_SECONDS:g}.",
            plugin=name,
        )
    closer = getattr(approver, "aclose", None)
    if closer is not None and not inspect.iscoroutinefunction(closer):
        raise PluginLoadError(
            f"The approver {name!r} has an aclose that is not an async method.", plugin=name
        )
    if not inspect.iscoroutinefunction(approver.review):
        raise PluginLoadError(
            f"The approver {name!r} has a review that is not an async method.", plugin=name
        )
    deterministic = _flag(approver, name, "deterministic", default=False)
    generation = getattr(approver, "generation", None)
    if generation is not None and (isinstance(generation, bool) or not isinstance(generation, int)):
        raise PluginLoadError(
            f"The approver {name!r} says generation = {generation!r}, which is not a whole number.",
            plugin=name,
        )
    return ApproverSlot(
        approver=approver,
        name=name,
        timeout=None if timeout is None else float(timeout),
        reviews_raw_text=_flag(approver, name, "reviews_raw_text", default=False),
        role=approver_role(approver),
        shares_loop=_flag(approver, name, "shares_loop", default=False),
        deterministic=deterministic,
        has_generation=generation is not None,
        aclose=closer,
    )


def load_approver(name: str, options: Mapping[str, Any], context: ApproverContext) -> Approver:
    """
    Build the approver ``name`` through its entry point.

    Raises:
        PluginLoadError: It is not installed, its factory failed, or what it
            built is not an approver.
    """
    available = installed(APPROVER_GROUP)
    entry = available.get(name)
    if entry is None:
        names = ", ".join(repr(n) for n in sorted(available)) or "none"
        raise PluginLoadError(
            f"No approver named {name!r} is installed; installed: {names}.", plugin=name
        )
    try:
        factory = entry.load()
        approver = factory(dict(options), context)
    except PluginLoadError:
        raise
    except Exception as error:
        raise PluginLoadError(
            f"The approver {name!r} could not be built: {error}", plugin=name
        ) from error
    if not isinstance(approver, Approver):
        raise PluginLoadError(
            f"The approver {name!r} has no name or no review method.", plugin=name
        )
    return approver


# ── the chain ──


class Outcome(NamedTuple):
    """What the chain concluded about one question."""

    decision: Decision
    reason: str
    approver: str | None
    rule: str | None
    decided_by: str | None = None
    policy: str | None = None
    within: str | None = None


def _well_formed(answer: Allow | Decline | Abstain) -> bool:
    """
    Whether an answer's fields have their declared types.

    Structs do not check types when built, so ``Allow(reason="ok", rule=42)``
    is an `Allow` that would be counted, then written to the audit log as a
    record no reader can decode.
    """
    try:
        again = msgspec.convert(msgspec.to_builtins(answer), type=Answer)
    except (msgspec.ValidationError, TypeError, ValueError, RecursionError):
        return False
    # Equal after the round trip, or some value changed on the way (bytes
    # become base64 text, and the logged record would not match its digest).
    return bool(again == answer)


def caller_cancelled() -> bool:
    """
    Whether the task running now is being cancelled (as opposed to a plugin raising a cancellation of its own).

    Under trio only the runtime makes a ``Cancelled``; under asyncio any code
    can raise ``CancelledError``, and a real cancellation shows as a pending
    request on the task.
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return True  # trio: cancellations come from the runtime alone
    return task is None or task.cancelling() > 0


MemoKey = tuple[int, int | None, str, HoleRef | None, tuple[EarlierAnswer, ...]]
"""Which approver (and its generation) answered which kind of question, after which answers."""

Memo = dict[MemoKey, Answer]
"""Answers of deterministic approvers to one call's questions."""


class ApproverChain:
    """
    The approvers of one gateway, in order, and how their answers become a verdict.

    Args:
        slots: The approvers, resolved.
        approver_timeout: The default seconds per approver.
        telemetry: Where spans go.
        metrics: Where the approvers' durations, failures and people's waits are counted.
    """

    def __init__(
        self,
        slots: Sequence[ApproverSlot],
        *,
        approver_timeout: float,
        telemetry: Telemetry,
        metrics: Metrics,
    ) -> None:
        self.slots = tuple(slots)
        self._default = approver_timeout
        self._telemetry = telemetry
        self._metrics = metrics
        self._threads: dict[int, LoopThread] = {}

    @property
    def names(self) -> tuple[str, ...]:
        """The approvers' names, in order."""
        return tuple(slot.name for slot in self.slots)

    def generations(self) -> tuple[tuple[int | None, str | None], ...]:
        """
        What every approver knows now (its ``generation`` and ``policy_version``): replays are kept per value.

        Read afresh each time, never cached: an approver changes what it knows
        (its rules replaced, an approval remembered) without telling the chain.
        """
        return tuple(map(_generation, self.slots))

    def start(self) -> None:
        """Give every approver that does not share the loop a thread and a loop of its own."""
        for index, slot in enumerate(self.slots):
            if not slot.shares_loop and index not in self._threads:
                self._threads[index] = LoopThread(slot.name)

    async def aclose(self, timeout: float) -> None:  # noqa: ASYNC109 -- the close budget of each plugin
        """Close every approver that has ``aclose`` (each bounded by ``timeout``), and their threads."""
        for index, slot in enumerate(self.slots):
            if slot.aclose is None:
                continue
            thread = self._threads.get(index)
            with anyio.move_on_after(timeout):
                try:
                    if thread is None:
                        await slot.aclose()
                    else:
                        await call_isolated(thread, slot.aclose)
                except Exception:  # noqa: BLE001, S110 -- closing a plugin must not hide the error that ended the gateway
                    pass
        for thread in self._threads.values():
            thread.close()
        self._threads.clear()

    def timeout_of(self, slot: ApproverSlot) -> float:
        """The seconds an approver may take: its own ``timeout``, else ``approver-timeout``."""
        return slot.timeout if slot.timeout is not None else self._default

    async def _answer(
        self, index: int, slot: ApproverSlot, request: ReviewRequest, deadline: float
    ) -> tuple[Any, str | None, str | None]:
        """
        The approver's answer, or the sentence of its failure and its kind.

        The kinds: ``timeout``, ``late`` (it answered after its deadline),
        ``exception``, ``wrong_type``, ``malformed``.
        """
        limit = max(0.0, deadline - anyio.current_time())
        own = self.timeout_of(slot)
        late = (
            f"Approver {slot.name!r} did not answer within {own:g} s, and the gateway fails closed."
            if own <= limit
            else f"Approver {slot.name!r} did not answer before the review's deadline, and the gateway fails closed."
        )
        stop = anyio.current_time() + min(own, limit)
        thread = self._threads.get(index)
        answer: Any = None
        with anyio.CancelScope(deadline=stop) as scope:
            if thread is not None:
                outcome = await call_isolated(thread, slot.approver.review, request)
                if outcome.error is not None:
                    return None, _raised(slot.name, outcome.error), "exception"
                answer = outcome.value
            else:
                try:
                    answer = await slot.approver.review(request)
                except BaseException as error:
                    if isinstance(error, anyio.get_cancelled_exc_class()) and (
                        scope.cancel_called or caller_cancelled()
                    ):
                        raise
                    # The one boundary where a plugin's failure — any
                    # exception, BaseException included — becomes a decline.
                    return None, _raised(slot.name, error), "exception"
        if scope.cancelled_caught or scope.cancel_called or anyio.current_time() > stop:
            # Cut off, or it swallowed the cancellation, or it blocked its
            # thread past the deadline and answered anyway: an answer after
            # the deadline never counts.
            return None, late, "timeout" if scope.cancelled_caught else "late"
        if not isinstance(answer, Allow | Decline | Abstain):
            return (
                None,
                f"Approver {slot.name!r} answered {type(answer).__name__!r}, not Allow, Decline or Abstain, "
                "and the gateway fails closed.",
                "wrong_type",
            )
        if not _well_formed(answer):
            return (
                None,
                f"Approver {slot.name!r} answered a malformed {type(answer).__name__} "
                "(a field of the wrong type), and the gateway fails closed.",
                "malformed",
            )
        return answer, None, None

    async def _timed(
        self, index: int, slot: ApproverSlot, request: ReviewRequest, deadline: float
    ) -> tuple[Any, str | None, str | None, float]:
        """`_answer`, with the seconds it took, counted (and a person's wait gauged while it lasts)."""
        person = slot.role == "person"
        asked = time.perf_counter()
        if person:
            self._metrics.waiting(+1)
        try:
            answer, failure, kind = await self._answer(index, slot, request, deadline)
        finally:
            if person:
                self._metrics.waiting(-1)
        waited = time.perf_counter() - asked
        self._metrics.answered(
            slot.name,
            slot.role,
            waited,
            "decline" if failure is not None else answer.decision,
            kind,
        )
        return answer, failure, kind, waited

    def _key(self, index: int, slot: ApproverSlot, walk: _Walk) -> MemoKey | None:
        if not slot.deterministic:
            return None
        generation = getattr(slot.approver, "generation", None) if slot.has_generation else None
        request = walk.request
        return (index, generation, request.kind, request.question, tuple(walk.earlier))

    async def ask(
        self,
        request: ReviewRequest,
        *,
        bus: EventBus,
        ids: Mapping[str, str | None],
        deadline: float,
        memo: Memo | None = None,
        record: Record | None = None,
    ) -> Outcome:
        """
        Put one question to the chain: the first allow or decline decides.

        Each approver is told what the ones before it answered. A delegate's
        allow is held rather than final: the chain goes on asking only the
        policy approvers after it, and a decline among them decides; otherwise
        the held allow stands (a policy's allow decides as ever). A
        deterministic approver's answer to an identical question is reused.
        With ``record``, what an identical question would publish is kept
        there, as long as only deterministic approvers answered.
        """
        call_id = request.call.call_id
        trace_id, span_id = ids.get("trace_id"), ids.get("span_id")
        walk = _Walk(self.slots, request)
        while (step := walk.next()) is not None:
            index, slot, question = step
            if record is not None and not slot.deterministic:
                record.replayable = False
            with self._telemetry.span(
                SPAN_APPROVE, {ATTR_APPROVER_NAME: slot.name, ATTR_APPROVER_ROLE: slot.role}
            ) as span:
                key = None if memo is None else self._key(index, slot, walk)
                answer: Any = None if key is None or memo is None else memo.get(key)
                reused = answer is not None
                waited = 0.0
                if answer is None:
                    answer, failure, kind, waited = await self._timed(
                        index, slot, question, deadline
                    )
                    if failure is not None:
                        if record is not None:
                            record.replayable = False
                        self._telemetry.error(span, failure, kind)
                        await bus.publish(
                            ApproverFailed(
                                call_id=call_id,
                                trace_id=trace_id,
                                span_id=span_id,
                                approver=slot.name,
                                reason=failure,
                                question=request.question,
                            )
                        )
                        return Outcome("decline", failure, slot.name, None)
                    if key is not None and memo is not None:
                        memo[key] = answer
                self._telemetry.set(span, answer_attributes(answer, slot.role, waited))
                policy = _policy(slot)
                note, final = walk.take(slot, answer, policy)
                decided = ApproverDecided(
                    call_id=call_id,
                    trace_id=trace_id,
                    span_id=span_id,
                    approver=slot.name,
                    decision=answer.decision,
                    reason=answer.reason,
                    rule=answer.rule,
                    question=request.question,
                    note=note,
                    reused=reused,
                    decided_by=None if isinstance(answer, Abstain) else answer.decided_by,
                    policy=policy,
                )
                if record is not None:
                    record.drafts.append(msgspec.structs.replace(decided, reused=True))
                if bus.recording:
                    await bus.publish(decided)
                else:
                    bus.count()
                if final is not None:
                    return final
        return walk.result()


class Record:
    """
    What a review published, to publish again for an identical call (`ApproverChain.ask` fills it).

    Attributes:
        drafts: The events, in order (their call and trace ids to be replaced).
        replayable: Whether only deterministic approvers answered (so an
            identical call would get the same answers).
    """

    __slots__ = ("drafts", "replayable")

    def __init__(self) -> None:
        self.drafts: list[Event] = []
        self.replayable = True


class _Walk:
    """
    One question's way down the chain: who is asked next, and what their answers mean.

    The one place the combination rule of the chain is written; `ApproverChain.ask`
    drives it with answers as they come.
    """

    __slots__ = ("asked", "earlier", "held", "position", "request", "slots", "unmeasured", "what")

    def __init__(self, slots: Sequence[ApproverSlot], request: ReviewRequest) -> None:
        self.slots = slots
        self.request = request
        self.position = 0
        self.earlier: list[EarlierAnswer] = []
        self.asked: Outcome | None = None
        self.held: Outcome | None = None
        self.what = "the call" if request.kind == "call" else f"this {request.kind}"
        # A completed heredoc body fed to a shell is judged by its own plan:
        # when that could not be measured, neither could the call.
        self.unmeasured = (request.plan is not None and not request.measured) or (
            request.body_plan is not None and request.body_plan.status != "measured"
        )

    def next(self) -> tuple[int, ApproverSlot, ReviewRequest] | None:
        """The next approver to ask and the question as it sees it, or ``None`` when none is left."""
        while self.position < len(self.slots):
            index = self.position
            slot = self.slots[index]
            self.position += 1
            if self.held is not None and slot.role != "policy":
                continue  # after a delegate's allow, only policies are asked
            question = self.request
            if self.earlier:
                question = msgspec.structs.replace(question, earlier=tuple(self.earlier))
            return index, slot, question
        return None

    def take(
        self, slot: ApproverSlot, answer: Answer, policy: str | None = None
    ) -> tuple[str | None, Outcome | None]:
        """Count one answer: the note on it (when it is not taken as given), and the outcome if it decides."""
        note = None
        if isinstance(answer, Allow) and self.unmeasured and not slot.reviews_raw_text:
            note = "An allow of a plan that could not be measured counts only from an approver that reviews raw text."
        self.earlier.append(
            EarlierAnswer(
                approver=slot.name,
                decision=answer.decision,
                reason=answer.reason,
                rule=answer.rule,
                note=note,
            )
        )
        if (
            isinstance(answer, Abstain)
            and answer.reason
            and (self.asked is None or slot.role != "person")
        ):
            # The last approver to say why it would not decide explains the
            # ask, except a person's: their abstain only says that nobody
            # could be asked, and the person the host asks next must be told
            # the policy's reason.
            self.asked = Outcome("ask", answer.reason, None, answer.rule)
        if note is not None or isinstance(answer, Abstain):
            return note, None
        reason = answer.reason.strip() or f"Approver {slot.name!r} decided on {self.what}."
        within = answer.within if isinstance(answer, Allow) else msgspec.UNSET
        outcome = Outcome(
            answer.decision,
            reason,
            slot.name,
            answer.rule,
            answer.decided_by,
            policy,
            within if isinstance(within, str) else None,
        )
        if isinstance(answer, Allow) and slot.role == "delegate":
            self.held = outcome
            return note, None
        return note, outcome

    def result(self) -> Outcome:
        """The outcome when the chain ran out without a decision."""
        if self.held is not None:
            return self.held
        if self.asked is not None:
            return self.asked
        return Outcome(
            "ask", f"No approver decided on {self.what}; a person must decide.", None, None
        )


def combine(
    outcomes: Sequence[tuple[HoleRef | None, Outcome]],
    *,
    digest: str,
    call_id: str | None,
    plan: ProgramPlan | None,
    holes: int = 0,
    confine: Callable[[str], Confinement | str] | None = None,
) -> Verdict:
    """
    The verdict for a call from the outcomes of its questions: the strictest wins.

    The first question (``None``) is the call itself, then each hole. The
    reason is the deciding question's; a hole's reason says which hole. An
    allow is `Verdict.founded` when a person allowed the call and each of
    its ``holes``, or the plan's facts alone carry it (`plan_founded`).

    An allow that holds only inside a profile's boundary (`Allow.within`)
    carries the boundary ``confine`` gives for that profile; when it gives
    a clause instead (the call cannot be confined), or there is no
    ``confine``, the verdict asks and says why (`unconfined`). Outcomes
    within different profiles cannot share one boundary: that asks too.
    """
    decision = strictest(outcome.decision for _, outcome in outcomes)
    ref, decisive = next((ref, o) for ref, o in outcomes if o.decision == decision)
    reason = decisive.reason
    if ref is not None:
        reason = f"Heredoc hole {ref.statement}.{ref.heredoc}.{ref.hole}: {reason}"
    if (
        decision == "ask"
        and decisive.approver is None
        and plan is not None
        and plan.status != "measured"
    ):
        reason = (
            f"The command could not be read with confidence ({plan.reason}); a person must decide."
        )
    # An allow a host may take instead of its own checks: a person allowed
    # the call and each of its holes, or the plan's facts alone carry it.
    founded = decision == "allow" and (
        all(outcome.decided_by is not None for _, outcome in outcomes)
        or plan_founded(plan, holes=holes)
    )
    verdict = Verdict(
        decision=decision,
        reason=reason,
        digest=digest,
        approver=decisive.approver,
        rule=decisive.rule,
        call_id=call_id,
        founded=founded,
        decided_by=decisive.decided_by,
        policy=decisive.policy,
    )
    if decision != "allow":
        return verdict
    within = {outcome.within for _, outcome in outcomes if outcome.within is not None}
    if not within:
        return verdict
    confined = next((outcome for _, outcome in outcomes if outcome.within is not None), decisive)
    verdict = msgspec.structs.replace(
        verdict,
        reason=confined.reason,
        approver=confined.approver,
        rule=confined.rule,
        founded=False,
    )
    if len(within) > 1:
        return unconfined(verdict, "its parts hold inside the boundaries of different profiles")
    if confine is None:
        return unconfined(verdict, "this question is not one the gateway confines")
    found = confine(within.pop())
    if isinstance(found, str):
        return unconfined(verdict, f"it cannot be confined: {found}")
    return msgspec.structs.replace(verdict, confinement=found)


def _generation(slot: ApproverSlot) -> tuple[int | None, str | None]:
    """What one approver knows now: its ``generation`` (when it has one) and its policy's version."""
    generation = getattr(slot.approver, "generation", None) if slot.has_generation else None
    return generation, _policy(slot)


def _policy(slot: ApproverSlot) -> str | None:
    """The version of the approver's policy now, when it has versions (read with every answer: it changes)."""
    policy = getattr(slot.approver, "policy_version", None)
    return policy if isinstance(policy, str) else None


def _raised(name: str, error: BaseException) -> str:
    return f"Approver {name!r} failed ({type(error).__name__}), and the gateway fails closed."
