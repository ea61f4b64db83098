"""
What every host adapter shares: a review that is bounded in time and fails closed.

Agent hosts differ in how they are told "no", but they share one failure mode:
most of them let a tool run when the code that guards it crashes or hangs. Each
adapter (``gateway_claude_sdk``, ``gateway_openai_agents``, ``gateway_langchain``,
``gateway_mcp``) therefore asks the gateway through `guarded_review`, which
turns a timeout, an exception or an answer that is not a `Verdict` into a
``decline`` with one sentence of reason, and asks a person (when the adapter
was given someone to ask) through `ask_person`, which does the same.

Hosts with permission checks of their own (Claude Code, Codex, Gemini CLI,
Cursor, the Claude Agent SDK) are answered through `host_decision`: an allow
that is not founded (`gateway.Verdict.founded`) becomes ``host``, "give no
decision, let the host's own checks decide", so the gateway never makes a
host less safe than it is alone. The same ``host`` answer is what a shadow
mode gives for every call (the verdict is computed and recorded, the host
decides): one function, so the two can never drift apart.

This package imports only the gateway's public API and the standard library.
It never allows anything on its own.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Final, Literal, Protocol, runtime_checkable

import anyio

from gateway import ToolCall, Verdict
from gateway.config import AllowMode

__all__ = [
    "DEFAULT_TIMEOUT",
    "AskPerson",
    "HostDecision",
    "Reviewer",
    "VerdictMemory",
    "allow_mode_of",
    "ask_and_record",
    "ask_person",
    "blocked",
    "guarded_decision",
    "guarded_outcome",
    "guarded_review",
    "host_decision",
]

DEFAULT_TIMEOUT: Final = 60.0
"""Seconds an adapter waits for a verdict before it blocks the call."""


@runtime_checkable
class Reviewer(Protocol):
    """
    Anything that reviews a tool call: a `gateway.Gateway`, or a test double.

    Adapters accept a reviewer rather than a gateway so that tests can hand them
    one that crashes or hangs, and check that the call is blocked.
    """

    async def review(self, call: ToolCall) -> Verdict:
        """Return the verdict for one proposed call."""


AskPerson = Callable[[ToolCall, Verdict], Awaitable[bool]]
"""
Asks a person about a call the approvers left to a human (a verdict of ``ask``).

Returns ``True`` to let it run. Raising, timing out or returning anything but
``True`` blocks the call.
"""


HostDecision = Literal["allow", "ask", "decline", "host"]
"""
What an adapter tells a host: ``allow``, ``ask`` (a person decides), ``decline``,
or ``host`` (no decision: the host's own permission checks decide, as they
would without the gateway).
"""


def host_decision(
    verdict: Verdict, *, allow: AllowMode = "founded", shadow: bool = False
) -> HostDecision:
    """
    What to tell a host that has permission checks of its own, for a verdict.

    ``decline`` and ``ask`` pass through. An ``allow`` passes through only when
    it is founded (`Verdict.founded`) and ``allow`` is ``"founded"``; any other
    allow is ``host``, so the host's own checks still run (an allow the plan
    does not found must never skip them: that would make the host less safe
    than it is alone). In shadow mode every verdict is ``host``: it is
    recorded, and the host decides.

    Hosts without checks of their own (LangChain, the OpenAI Agents SDK's
    function tools, an MCP server) have nothing to leave a call to: their
    adapters run a call that is ``host``, as the host alone would.

    Args:
        verdict: The gateway's verdict.
        allow: ``[hosts] allow``: ``founded`` or ``host`` (every allow is the host's).
        shadow: Compute and record only; the host decides every call.
    """
    if shadow or verdict.defer:
        return "host"
    if verdict.decision == "allow":
        return "allow" if allow == "founded" and verdict.founded else "host"
    return verdict.decision


def allow_mode_of(reviewer: object, given: AllowMode | None = None) -> AllowMode:
    """The allow mode an adapter uses: ``given``, else the gateway's ``[hosts] allow``, else ``founded``."""
    if given is not None:
        return given
    config = getattr(reviewer, "config", None)
    hosts = getattr(config, "hosts", None)
    mode = getattr(hosts, "allow", None)
    return "host" if mode == "host" else "founded"


def blocked(call: ToolCall, reason: str) -> Verdict:
    """A ``decline`` verdict for ``call`` that no approver gave (the adapter blocked it)."""
    return Verdict(decision="decline", reason=reason, digest="", call_id=call.call_id)


async def guarded_review(
    reviewer: Reviewer, call: ToolCall, *, within: float = DEFAULT_TIMEOUT
) -> Verdict:
    """
    Review ``call``; any failure of the reviewer is a ``decline``.

    The wait is bounded by ``within`` seconds. The gateway itself never raises for a
    bad call, but the adapter cannot assume it is talking to a healthy gateway:
    a closed gateway, a bug, or a reviewer that never answers must all block.

    Args:
        reviewer: The gateway (or anything with ``async review(call)``).
        call: The proposed call.
        within: Seconds to wait for the verdict.

    Returns:
        The reviewer's verdict, or a decline saying why there is none.
    """
    try:
        with anyio.fail_after(within):
            verdict: object = await reviewer.review(call)  # checked below: a reviewer may misbehave
    except TimeoutError:
        return blocked(
            call, f"The gateway did not answer within {within:g} s, so the call is blocked."
        )
    except Exception as error:  # noqa: BLE001 -- the adapter's one boundary: a failing gateway blocks, never allows
        return blocked(
            call, f"The gateway failed ({type(error).__name__}), so the call is blocked."
        )
    if not isinstance(verdict, Verdict):
        return blocked(
            call,
            f"The gateway answered {type(verdict).__name__!r}, not a verdict, so the call is blocked.",
        )
    return verdict


class VerdictMemory:
    """
    The verdicts an adapter already has, by call id, so each call is reviewed once.

    Hosts may ask about one call twice (a guardrail and then the tool wrapper,
    a retried callback); the second asking gets the first verdict instead of a
    second review and a second audit record. A verdict is reused only for the
    same tool and the same input, so a call id cannot launder a different call;
    calls without an id are always reviewed. Beyond ``size`` call ids the
    oldest is forgotten. See docs/plugins.md for an adapter built on it.
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._verdicts: OrderedDict[str, tuple[ToolCall, Verdict]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._verdicts)

    async def review(
        self, reviewer: Reviewer, call: ToolCall, *, within: float = DEFAULT_TIMEOUT
    ) -> tuple[ToolCall, Verdict]:
        """The call and its verdict: remembered when known, else from `guarded_review`."""
        key = call.call_id
        if key:
            known = self._verdicts.get(key)
            if known is not None and (known[0].tool, known[0].input) == (call.tool, call.input):
                return known
        verdict = await guarded_review(reviewer, call, within=within)
        if key:
            self._verdicts[key] = (call, verdict)
            self._verdicts.move_to_end(key)
            while len(self._verdicts) > self.size:
                self._verdicts.popitem(last=False)
        return call, verdict


async def ask_person(
    ask: AskPerson | None, call: ToolCall, verdict: Verdict, *, within: float = DEFAULT_TIMEOUT
) -> bool:
    """
    Whether a person lets a call with an ``ask`` verdict run.

    ``False`` when there is nobody to ask, when the person says no, and when
    asking fails or takes longer than ``within`` seconds.
    """
    allowed, _ = await _asked(ask, call, verdict, within)
    return allowed


async def _asked(
    ask: AskPerson | None, call: ToolCall, verdict: Verdict, within: float
) -> tuple[bool, str]:
    """Whether the person allows the call, and who answered: ``person``, ``nobody``, ``timeout`` or ``failed``."""
    if ask is None:
        return False, "nobody"
    try:
        with anyio.fail_after(within):
            answer = await ask(call, verdict)
    except TimeoutError:
        return False, "timeout"
    except Exception:  # noqa: BLE001 -- a failed question is a no, never a yes
        return False, "failed"
    return answer is True, "person"


async def guarded_outcome(
    gateway: object, call_id: str | None, outcome: str, detail: str | None = None
) -> None:
    """
    Record what happened to a call, if ``gateway`` can record outcomes.

    Best effort and bounded: the tool has already run (or not), so a failure to
    record must not turn into an error in the host.
    """
    record = getattr(gateway, "record_outcome", None)
    if record is None:
        return
    # The outcome is an after-the-fact record: the host must not fail for it.
    with anyio.move_on_after(5.0), contextlib.suppress(Exception):
        await record(call_id, outcome, detail)


async def guarded_decision(
    gateway: object,
    call_id: str | None,
    decision: str,
    *,
    by: str = "person",
    host: str | None = None,
    detail: str | None = None,
) -> None:
    """
    Record a person's answer given inside the host (``host.decided``), if ``gateway`` can.

    Best effort and bounded, like `guarded_outcome`: the answer stands either way.
    """
    record = getattr(gateway, "record_decision", None)
    if record is None:
        return
    with anyio.move_on_after(5.0), contextlib.suppress(Exception):
        await record(call_id, decision, by=by, host=host, detail=detail)


async def ask_and_record(
    ask: AskPerson | None,
    gateway: object,
    call: ToolCall,
    verdict: Verdict,
    *,
    within: float = DEFAULT_TIMEOUT,
) -> bool:
    """
    `ask_person`, with the answer recorded in the audit log (`guarded_decision`).

    Who answered is ``person`` for a yes or a no, ``nobody`` when there was no
    one to ask, ``timeout`` or ``failed`` when asking did not end in an answer.
    """
    allowed, by = await _asked(ask, call, verdict, within)
    await guarded_decision(
        gateway, call.call_id, "allow" if allowed else "decline", by=by, host=call.host
    )
    return allowed
