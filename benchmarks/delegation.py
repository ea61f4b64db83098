"""
What a delegate costs per question: the command approver isolated and not, a webhook, a model.

Run: ``.venv/bin/python benchmarks/delegation.py [--calls N]``.

For each delegate it prints p50 and p95 in milliseconds of one
``review`` of a measured ``ls -la`` request, answered by:

(a) ``command`` with ``isolate = false``: a Python program that reads the
    document and answers (an interpreter start dominates);
(b) ``command`` isolated (namespaces, hidden token files, capabilities
    dropped): the same program, through the isolating script;
(c) ``webhook`` against a local TLS receiver (a throwaway CA), the
    connection kept alive between questions;
(d) ``model`` against a local stand-in of the Messages API.

and the ratio (b)/(a): the price of isolation. Nothing here is asserted:
speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from delegates.servers import (
    Reply,
    Server,
    answer,
    anthropic_standin,
    anthropic_text,
    authority,
    webhook_receiver,
)
from delegates.support import context, program, request_for
from gateway_delegates.command import CommandApprover
from gateway_delegates.model import ModelApprover
from gateway_delegates.webhook import WebhookApprover

from gateway import ReviewRequest, ToolCall

KEY = "b" * 64


async def _time(
    review: Callable[[ReviewRequest], Awaitable[Any]], request: ReviewRequest, calls: int
) -> list[float]:
    await review(request)  # warm: connections, caches
    spent = []
    for _ in range(calls):
        started = time.perf_counter()
        await review(request)
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def _line(label: str, spent: list[float]) -> None:
    ordered = sorted(spent)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"{label:<34} p50 {statistics.median(ordered):8.1f} ms   p95 {p95:8.1f} ms")


async def main(calls: int) -> None:
    request = await request_for(ToolCall("Bash", {"command": "ls -la"}))
    plain = CommandApprover({"argv": program("allow"), "isolate": False}, context())
    isolated = CommandApprover({"argv": program("allow")}, context())
    a = await _time(plain.review, request, calls)
    b = await _time(isolated.review, request, calls)
    _line("(a) command, not isolated", a)
    _line("(b) command, isolated", b)
    with tempfile.TemporaryDirectory() as directory:
        ca = authority(Path(directory))
        receiver = Server(
            webhook_receiver(KEY.encode(), [Reply(body=answer("allow", "Fine."))]),
            tls=ca.server_context,
        )
        os.environ["GATEWAY_WEBHOOK_SECRET"] = KEY
        os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
        model_server = Server(
            anthropic_standin(
                "sk-bench", [anthropic_text('{"decision": "abstain", "reason": "Unsure."}')]
            ),
            tls=None,
        )
        try:
            webhook = WebhookApprover({"url": receiver.url, "ca-file": ca.ca_file}, context())
            model = ModelApprover({"model": "bench", "base-url": model_server.url}, context())
            c = await _time(webhook.review, request, calls)
            d = await _time(model.review, request, calls)
            await webhook.aclose()
            await model.aclose()
        finally:
            receiver.close()
            model_server.close()
    _line("(c) webhook, TLS, kept alive", c)
    _line("(d) model, local stand-in", d)
    print(f"isolation costs {statistics.median(b) / statistics.median(a):.2f}x a plain run (p50)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=30)
    arguments = parser.parse_args()
    anyio.run(main, arguments.calls)
