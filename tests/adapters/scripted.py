"""
Shared pieces of the adapter tests: the scripted approver, gateways, and reviewers that fail.

Every adapter is driven through its host's own code path with the same
commands a scripted model asks for: ``cat /etc/hostname`` (the approver
allows it, on the policy's word alone: it reads outside the workspace, so the
allow is not founded, and a host with checks of its own keeps checking),
``echo approved`` (a person allowed it: a founded allow, which stands), ``rm -rf ~`` (the approver declines it) and
``git push --force origin main`` (the approver abstains, so a person must
decide: the gateway's verdict is ``ask``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import anyio

from gateway import Abstain, Allow, Answer, Decline, ReviewRequest, ToolCall, Verdict

PLUGIN_DIR: Final = Path(__file__).parent / "approver_plugin"
"""Holds a dist-info registering `ScriptApprover` as the ``script`` approver, for subprocesses."""
TESTS_DIR: Final = Path(__file__).parent.parent

ALLOWED: Final = "cat /etc/hostname"
FOUNDED: Final = "echo approved"
DECLINED: Final = "rm -rf ~"
NEEDS_HUMAN: Final = "git push --force origin main"

ALLOW_REASON: Final = "`cat /etc/hostname` only prints a file."
FOUNDED_REASON: Final = "A person allowed `echo approved`."
DECLINE_REASON: Final = "Declined `rm -rf ~`: it deletes the home directory."
ASK_REASON: Final = "Not a command this approver knows."


class ScriptApprover:
    """Decides by the call's shell text (the planned source); never decides on tools that are not shells."""

    name = "script"

    def __init__(self, *, hang: bool = False) -> None:
        self.hang = hang
        self.requests: list[ReviewRequest] = []

    async def review(self, request: ReviewRequest) -> Answer:
        """Allow `ALLOWED` (the policy) and `FOUNDED` (a person), decline `DECLINED`, abstain on anything else."""
        self.requests.append(request)
        if self.hang:
            await anyio.sleep_forever()
        source = request.plan.source.strip() if request.plan is not None else None
        if source == ALLOWED:
            return Allow(reason=ALLOW_REASON, rule="read")
        if source == FOUNDED:
            return Allow(reason=FOUNDED_REASON, rule="human", decided_by="a-person")
        if source == DECLINED:
            return Decline(reason=DECLINE_REASON, rule="no-rm-home")
        return Abstain(reason=ASK_REASON)


class CrashingGateway:
    """A gateway whose review raises, as a bug or a closed gateway would."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def review(self, call: ToolCall) -> Verdict:
        self.calls.append(call)
        raise RuntimeError("the gateway is broken")


class HangingGateway:
    """A gateway whose review never returns."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def review(self, call: ToolCall) -> Verdict:
        self.calls.append(call)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")
