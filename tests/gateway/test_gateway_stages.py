"""
`Gateway.review` is a short pipeline of stages (issue 36, "the house").

The module that holds `Gateway.review` orchestrates: it hands the call to
each stage in turn, and each stage — the door, the deciding, the record, the
end of the review — lives in a module of its own. Walking one ordinary call
through it, control comes back to the orchestrator's module from another
module's code only once per stage: were a step of some stage written inline
in the orchestrator again, the count would grow with it.
"""

from __future__ import annotations

import dis
import inspect
import sys
from types import FrameType
from typing import Any, Final

import pytest
from gateway_support import anyio_backend as anyio_backend

from gateway import Gateway
from gateway.testing import make_call

pytestmark = pytest.mark.anyio

STAGES: Final = 4
"""The most times one review may return to the orchestrator's module."""

_YIELDS: Final = frozenset(dis.opmap[name] for name in ("YIELD_VALUE",) if name in dis.opmap)


def _suspended(frame: FrameType) -> bool:
    """Whether a ``return`` event is a coroutine suspending (its awaits resumed later), not a return."""
    code = frame.f_code
    if not code.co_flags & (
        inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ITERABLE_COROUTINE
    ):
        return False
    return frame.f_lasti >= 0 and code.co_code[frame.f_lasti] in _YIELDS


class _Returns:
    """Counts the returns from another module's frame into a frame of ``module``'s code."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.count = 0
        self.where: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "return":
            return
        back = frame.f_back
        if back is None or back.f_code.co_filename != self.module:
            return
        if frame.f_code.co_filename == self.module or _suspended(frame):
            return
        self.count += 1
        self.where.append(f"{frame.f_code.co_qualname} -> {back.f_code.co_qualname}")


async def test_one_review_returns_to_the_orchestrator_once_per_stage() -> None:
    """An ordinary call allowed by the rules comes back to `Gateway.review`'s module at most four times."""
    module = inspect.getsourcefile(Gateway.review)
    assert module is not None
    returns = _Returns(module)
    async with Gateway() as gateway:
        # A first call warms what is made once per gateway (the workers, the rules).
        assert (await gateway.review(make_call("pwd", call_id="warm"))).allowed
        previous = sys.getprofile()
        sys.setprofile(returns)
        try:
            verdict = await gateway.review(make_call("ls -l", call_id="measured"))
        finally:
            sys.setprofile(previous)
    assert verdict.allowed
    assert returns.count <= STAGES, "\n".join(returns.where)
