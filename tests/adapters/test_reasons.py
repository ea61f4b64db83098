"""
The person a host asks is told the policy's reason, never that no approval service is running.

With the default chain (``rules``, then ``human``) and no approval service, the
human approver abstains only to say nobody could be asked; the ``ask`` the host
puts to its person must carry the rules' reason instead.
"""

from __future__ import annotations

import anyio
import pytest
from gateway_human import NO_SERVICE, HumanApprover

from gateway import ApproverContext, Gateway, GatewayConfig
from gateway.events import ApproverDecided
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_ask_carries_the_policys_reason_not_the_missing_service() -> None:
    config = GatewayConfig()
    human = HumanApprover({}, ApproverContext(config=config, services={}))
    sink = MemorySink()
    rules = StaticApprover("abstain", name="rules")
    async with Gateway(config, approvers=[rules, human], sinks={"memory": sink}) as gateway:
        with anyio.fail_after(30):
            verdict = await gateway.review(make_call("make deploy", call_id="r-1"))
    assert verdict.decision == "ask"
    assert verdict.reason == "rules never decides."
    assert NO_SERVICE not in verdict.reason
    # The human approver's note is still in the audit log.
    notes = [
        e.reason for e in sink.events if isinstance(e, ApproverDecided) and e.approver == "human"
    ]
    assert notes == [NO_SERVICE]
