"""
Approvers: the plugin seam where decisions are made.

An approver is anything with a ``name`` and ``async def review(request) ->
Allow | Decline | Abstain`` (a `typing.Protocol`, documented like trio's
``Instrument``: plugins do not subclass anything). Plugins register a factory
in the ``gateway.approvers`` entry-point group; only the approvers the config
names are loaded, and an unknown name is a start-up error naming the installed
ones. A factory is called as ``factory(options, context)``.

The chain is consulted in order: the first Decline or Allow decides, Abstain
passes on, nobody deciding gives ``ask``. Each approver is told what the ones
before it answered (`ReviewRequest.earlier`). An approver may set
``reviews_raw_text = True``; only such an approver's Allow counts for a plan
that could not be measured. An approver's ``role`` (`ApproverRole`) says what
its answers rest on: a **delegate**'s allow (a program, a web service, a
model) never outranks a **policy**'s decline, wherever the delegate stands —
after it, the chain still asks the policy approvers, and any decline among
them decides; persons and other delegates after it are not asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal, Protocol, runtime_checkable

import msgspec

from gateway._calls import ToolCall
from gateway._config import GatewayConfig
from gateway._effects import Effect
from gateway._errors import PluginLoadError
from gateway._events import HoleRef
from gateway._plans import Hole, ProgramPlan, ProgramPosition, SequencePlan
from gateway._plugins import installed
from gateway._verdicts import Answer

__all__ = [
    "APPROVER_GROUP",
    "APPROVER_ROLES",
    "Approver",
    "ApproverContext",
    "ApproverRole",
    "EarlierAnswer",
    "ReviewRequest",
    "approver_role",
    "load_approver",
]

APPROVER_GROUP: Final = "gateway.approvers"

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
            every effect of its plan (`gateway.iter_effects` of each
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

    Attributes:
        name: How events and verdicts name it.

    ``review`` is called once per question under the configured timeout; it
    must return `Allow`, `Decline` or `Abstain`. Raising, timing out or
    returning anything else is a `Decline` (the gateway fails closed) and an
    ``approver.failed`` event. Optional attributes: ``reviews_raw_text: bool``
    opts in to allowing plans that could not be measured; ``timeout: float``
    (seconds, at most a day) replaces the configured approver timeout for this
    approver (a person needs minutes); ``role`` (`ApproverRole`, default
    ``policy``) says what its answers rest on; ``async def aclose()`` is
    awaited when the gateway closes.
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
    """

    config: GatewayConfig
    services: dict[str, Any]


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
