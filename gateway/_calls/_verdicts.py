"""
Answers: what an approver says about a call, and the verdict the gateway returns.

Approvers answer `Allow`, `Decline` or `Abstain` (a tagged union on
``decision``). The gateway's `Verdict` is ``allow``, ``ask`` or ``decline``,
always with one sentence of reason and the digest it is bound to. Answers
combine strictest-first: decline > ask > allow (`DECISION_ORDER`, `strictest`),
and a sentence about a decision starts with its verb (`DECISION_VERBS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import ClassVar, Final, Literal

import msgspec

from gateway._calls._confinement import Confinement

__all__ = [
    "DECISION_ORDER",
    "DECISION_VERBS",
    "Abstain",
    "Allow",
    "Answer",
    "Decision",
    "Decline",
    "Verdict",
    "as_ask",
    "strictest",
    "strictness",
    "unconfined",
]

Decision = Literal["allow", "ask", "decline"]
Decision.__doc__ = (
    "The gateway's decision on a call: ``allow``, ``ask`` (a person decides) or ``decline``."
)

DECISION_ORDER: Final[tuple[Decision, ...]] = ("allow", "ask", "decline")
"""The decisions from the most permissive to the strictest: when several apply, the last wins."""

DECISION_VERBS: Final[Mapping[Decision, str]] = MappingProxyType(
    {"allow": "Allowed", "ask": "Asked about", "decline": "Declined"}
)
"""How a sentence about each decision starts: "Declined `rm -rf /`: …"."""

_RANK: Final[dict[str, int]] = {decision: rank for rank, decision in enumerate(DECISION_ORDER)}


class Allow(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    tag_field="decision",
    tag="allow",
):
    """
    The approver allows the call (or question).

    ``rule`` names the rule that decided, if any; ``decided_by`` names the
    person who decided, when one did (the name of their token). A person's
    allow stands on their own reading of the call, as an answer to the host's
    own prompt would (`Verdict.founded`).

    ``within`` names a profile when the allow holds only inside that
    profile's boundary (code the rules cannot read, run where it can change
    only the workspace): the gateway then gives the caller the boundary with
    the allow (`Verdict.confinement`), or asks when the caller cannot run
    the call there. Left out of the encoding when not set.
    """

    decision: ClassVar[Literal["allow"]] = "allow"

    reason: str
    rule: str | None = None
    decided_by: str | None = None
    within: str | msgspec.UnsetType = msgspec.UNSET


class Decline(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    tag_field="decision",
    tag="decline",
):
    """
    The approver declines the call.

    ``reason`` is one sentence, with what to do instead when there is one;
    ``decided_by`` names the person who declined, when one did.
    """

    decision: ClassVar[Literal["decline"]] = "decline"

    reason: str
    rule: str | None = None
    decided_by: str | None = None


class Abstain(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    tag_field="decision",
    tag="abstain",
):
    """The approver does not decide; the next one in the chain is asked."""

    decision: ClassVar[Literal["abstain"]] = "abstain"

    reason: str | None = None
    rule: str | None = None


Answer = Allow | Decline | Abstain


class Verdict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    The gateway's answer for one call.

    ``ask`` means no approver decided and a human must; a host that cannot ask
    treats it as ``decline``. ``defer`` means the gateway leaves the call to
    the host's own rules (shadow mode): the host decides as it would without
    the gateway, and the decision is then always ``ask``, so a host that does
    not know ``defer`` never allows more than it would have.

    Attributes:
        decision: ``allow``, ``ask`` or ``decline``.
        reason: One sentence.
        digest: The plan digest the verdict is bound to (for a tool that is not
            a shell, the digest of its name and arguments).
        approver: Who decided, when an approver did.
        rule: Which rule decided, when known.
        call_id: The call it answers.
        founded: For ``allow``: the allow stands on facts the plan states
            (every effect known, every path it reads or writes inside the
            workspace or a temporary directory), or a person decided. An
            adapter for a host with permission checks of its own (Claude
            Code, Codex…) answers only a founded allow, and leaves any other
            allow to the host's checks (see ``docs/hosts/index.md``). Always
            false for ``ask`` and ``decline``, and false unless the gateway
            set it, so a verdict built elsewhere never skips a host's checks.
        decided_by: The person who decided, when one did (their token's name).
        policy: The version of the policy that decided, when the deciding
            approver has versions (``rules@3:sha256:…``).
        defer: Leave the decision to the host (shadow mode).
        confinement: For ``allow``: the boundary the call must run in
            (`gateway.confinement.Confinement`), when the allow holds only inside it;
            ``msgspec.UNSET`` (left out of every encoding, so records and
            answers without one keep the bytes they had) when the allow
            stands without one. Never set for ``ask`` and ``decline``.
            `boundary` reads it as ``Confinement | None``.
    """

    decision: Decision
    reason: str
    digest: str
    approver: str | None = None
    rule: str | None = None
    call_id: str | None = None
    founded: bool = False
    decided_by: str | None = None
    policy: str | None = None
    defer: bool = False
    confinement: Confinement | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        if self.decision != "allow" and self.confinement is not msgspec.UNSET:
            raise ValueError(f"a verdict that says {self.decision!r} carries no confinement")

    @property
    def allowed(self) -> bool:
        """True only for ``allow``."""
        return self.decision == "allow"

    @property
    def boundary(self) -> Confinement | None:
        """The confinement the allow holds in, or ``None`` when it holds without one."""
        return self.confinement if isinstance(self.confinement, Confinement) else None


def unconfined(verdict: Verdict, why: str, *, needed: bool = True) -> Verdict:
    """
    The ask that replaces an allow when the call cannot run inside a boundary.

    ``why`` is a clause: why there is no boundary for it (the host runs
    nothing confined, none can be set up here, the workspace cannot be
    confined). ``needed``: the allow holds only inside one, and its reason
    says so; otherwise the caller runs nothing bare.

    Examples:
        >>> v = Verdict(decision="allow", reason="Allowed `ls`: it lists files.", digest="d")
        >>> unconfined(v, "bubblewrap is not installed", needed=False).reason
        'Asked about `ls`: it lists files; it would run inside a boundary, and bubblewrap is not installed, so a person must decide.'
    """
    said = verdict.reason.rstrip(".")
    allowed, asked = DECISION_VERBS["allow"], DECISION_VERBS["ask"]
    if said.startswith(allowed + " "):
        said = asked + said[len(allowed) :]
    joined = ", and" if needed else "; it would run inside a boundary, and"
    return as_ask(verdict, f"{said}{joined} {why}, so a person must decide.")


def as_ask(verdict: Verdict, reason: str, *, defer: bool = False) -> Verdict:
    """
    ``verdict`` turned into an ask for ``reason``, bound to the same plan and deciders.

    What stood only behind an allow goes: it is not founded and carries no
    boundary. ``defer`` leaves the decision to the host (shadow mode).

    Examples:
        >>> v = Verdict(decision="allow", reason="Allowed.", digest="d", rule="r", founded=True)
        >>> a = as_ask(v, "Asked.")
        >>> (a.decision, a.reason, a.digest, a.rule, a.founded)
        ('ask', 'Asked.', 'd', 'r', False)
    """
    return Verdict(
        decision="ask",
        reason=reason,
        digest=verdict.digest,
        approver=verdict.approver,
        rule=verdict.rule,
        call_id=verdict.call_id,
        decided_by=verdict.decided_by,
        policy=verdict.policy,
        defer=defer,
    )


def strictness(decision: str) -> int:
    """
    Where a decision stands in `DECISION_ORDER` (``allow`` 0, ``ask`` 1, ``decline`` 2).

    Use it as a sort key to pick the strictest of things that carry a decision:
    ``max(judgements, key=lambda j: strictness(j.decision))``.

    Raises:
        KeyError: It is not a decision.
    """
    return _RANK[decision]


def strictest(decisions: Iterable[Decision]) -> Decision:
    """The strictest of some decisions (decline > ask > allow); ``ask`` when there are none."""
    return max(decisions, key=strictness, default="ask")
