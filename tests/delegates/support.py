"""
Helpers of the delegate tests (imported by them; not a test module).

`request_for` asks a real gateway for the `ReviewRequest` an approver gets
about a call, so the documents the tests send are the ones users' delegates
will see. Waits are bounded by `BOUND`; nothing here sleeps.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Final

import anyio

from gateway import ApproverContext, Gateway, GatewayConfig, ReviewRequest, ToolCall
from gateway.testing import StaticApprover

BOUND: Final = 60.0
"""Seconds any one step of a test may take before the test fails (the machine is shared)."""

PROGRAM: Final = Path(__file__).resolve().parent / "programs" / "delegate.py"
"""The test delegate program: its first argument says how it behaves."""

FAKE_TOKEN: Final = "gw-fake-bearer-7Hq2Lm9Xz4Rt8Wv1Ny6Bc3Kd5Fj0Ps"  # noqa: S105 -- fake, must stay unseen
FAKE_KEY: Final = "sk-ant-fake-3Jk9Lm2Nq8Rs5Tv7Wx1Yz4Ab6Cd0Ef"


def context(config: GatewayConfig | None = None) -> ApproverContext:
    """What a factory gets from a gateway with ``config``."""
    return ApproverContext(config=config or GatewayConfig(), services={})


def program(mode: str, *extra: str) -> list[str]:
    """The argv of the test delegate program in ``mode``."""
    return [sys.executable, str(PROGRAM), mode, *extra]


async def request_for(call: ToolCall, config: GatewayConfig | None = None) -> ReviewRequest:
    """The request a gateway's first approver is given about ``call``."""
    recorder = StaticApprover("abstain", name="recorder")
    with anyio.fail_after(BOUND):
        async with Gateway(config, approvers=[recorder]) as gateway:
            await gateway.review(call)
    return recorder.requests[0]


def command_options(mode: str, *extra: str, **options: Any) -> dict[str, Any]:
    """``[approver.command]`` options running the test program in ``mode``."""
    return {"argv": program(mode, *extra), **options}
