"""
Isolation: an event loop of its own, in a thread of its own, for a plugin that might block.

A plugin's ``async def`` may still block: a synchronous HTTP client, a
``time.sleep``, a long computation. On the gateway's event loop that would
stop every timer, so no deadline would hold. A plugin that does not declare
that it shares the gateway's loop (``shares_loop = True``) therefore runs on a
`LoopThread`: a daemon thread running an event loop of the same backend
(asyncio or trio), where its coroutines run one after another or side by side
as they await. The gateway waits for an answer on its own loop, under its own
deadline; when the deadline passes first, the call is cancelled there (which
helps only if it awaits) and its answer, whenever it comes, is dropped.

A thread that stays blocked is abandoned when its gateway closes: it is a
daemon thread, so it never keeps the process alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import anyio
import anyio.lowlevel

__all__ = ["LoopThread", "Outcome", "call_isolated", "current_backend"]

T = TypeVar("T")


def current_backend() -> str:
    """The anyio backend running in this thread: ``asyncio`` or ``trio``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return "trio"
    return "asyncio"


class Outcome(Generic[T]):
    """What a call on a loop thread ended with: a value, or the exception it raised."""

    __slots__ = ("error", "value")

    def __init__(self, value: T | None = None, error: BaseException | None = None) -> None:
        self.value = value
        self.error = error


class _Call:
    __slots__ = ("arguments", "function", "report", "scope")

    def __init__(
        self,
        function: Callable[..., Awaitable[Any]],
        arguments: tuple[Any, ...],
        report: Callable[[Outcome[Any]], None],
    ) -> None:
        self.function = function
        self.arguments = arguments
        self.report = report
        self.scope: anyio.CancelScope | None = None


class LoopThread:
    """
    A daemon thread running an event loop where coroutines are run on request.

    Args:
        name: The thread's name (the plugin it serves).
        backend: ``asyncio`` or ``trio`` (default: the backend running now).
    """

    def __init__(self, name: str, backend: str | None = None) -> None:
        self.name = name
        self._backend = backend or current_backend()
        self._lock = threading.Lock()
        self._queue: deque[_Call | tuple[str, _Call | None]] = deque()
        self._receive, self._send = socket.socketpair()
        self._receive.settimeout(0.0)  # non-blocking
        self._send.settimeout(0.0)
        self._closed = False
        self._thread = threading.Thread(
            target=self._run, name=f"gateway plugin {name}", daemon=True
        )
        self._thread.start()

    def _run(self) -> None:
        try:
            anyio.run(self._main, backend=self._backend)
        except BaseException:  # noqa: BLE001, S110 -- a plugin's loop dying ends only that thread; its calls fail as they time out
            pass
        finally:
            with contextlib.suppress(OSError):
                self._receive.close()

    async def _main(self) -> None:
        async with anyio.create_task_group() as group:
            while True:
                with contextlib.suppress(OSError):
                    await anyio.wait_readable(self._receive)
                with contextlib.suppress(OSError):
                    while self._receive.recv(4096):
                        pass
                while True:
                    with self._lock:
                        if not self._queue:
                            break
                        item = self._queue.popleft()
                    if isinstance(item, _Call):
                        group.start_soon(self._one, item)
                    elif item[0] == "cancel" and item[1] is not None and item[1].scope is not None:
                        item[1].scope.cancel()
                    elif item[0] == "stop":
                        group.cancel_scope.cancel()
                        return

    async def _one(self, call: _Call) -> None:
        outcome: Outcome[Any]
        with anyio.CancelScope() as scope:
            call.scope = scope
            try:
                outcome = Outcome(value=await call.function(*call.arguments))
            except BaseException as error:  # noqa: BLE001 -- handed to the caller, which decides what a plugin's exception means
                outcome = Outcome(error=error)
        if scope.cancelled_caught:
            return  # Cancelled for being late: nobody waits for it any more.
        call.report(outcome)

    def _push(self, item: _Call | tuple[str, _Call | None]) -> None:
        with self._lock:
            if self._closed:
                return
            self._queue.append(item)
        with contextlib.suppress(OSError):
            self._send.send(b"\x00")

    def submit(
        self,
        function: Callable[..., Awaitable[Any]],
        arguments: tuple[Any, ...],
        report: Callable[[Outcome[Any]], None],
    ) -> _Call:
        """Run ``function(*arguments)`` on the thread's loop; ``report`` is called there with how it ended."""
        call = _Call(function, arguments, report)
        self._push(call)
        return call

    def cancel(self, call: _Call) -> None:
        """Cancel a submitted call (it will not report)."""
        self._push(("cancel", call))

    def close(self) -> None:
        """Stop the loop (its calls are cancelled); a thread stuck in a blocking call is abandoned."""
        self._push(("stop", None))
        with self._lock:
            self._closed = True
        with contextlib.suppress(OSError):
            self._send.close()


def _call_soon(native: Any) -> Callable[..., Any]:
    """The thread-safe, non-blocking "run this soon" of a loop's native token (asyncio or trio)."""
    if isinstance(native, asyncio.AbstractEventLoop):
        return native.call_soon_threadsafe
    run_sync_soon: Callable[..., Any] = native.run_sync_soon
    return run_sync_soon


async def call_isolated(
    thread: LoopThread, function: Callable[..., Awaitable[T]], *arguments: Any
) -> Outcome[T]:
    """
    Await ``function(*arguments)`` run on ``thread``'s loop, from the caller's loop.

    The caller's cancel scope bounds the wait: when it is cancelled (a
    deadline) the call is cancelled on the thread too and whatever it answers
    later is dropped. What the call raised comes back in the outcome, never
    raised here: a plugin's own cancellation error must not pass for the
    caller's.
    """
    done = anyio.Event()
    box: list[Outcome[T]] = []
    soon = _call_soon(anyio.lowlevel.current_token().native_token)

    def deliver(outcome: Outcome[T]) -> None:
        box.append(outcome)
        done.set()

    def report(outcome: Outcome[T]) -> None:
        # Runs on the plugin's thread, which runs a loop of its own: so the
        # answer is handed over without waiting (anyio's `from_thread` would
        # refuse a thread running a loop). The caller's loop may be gone (its
        # gateway closed): then nobody is waiting, and nothing is reported.
        with contextlib.suppress(RuntimeError):
            soon(deliver, outcome)

    call = thread.submit(function, arguments, report)
    try:
        await done.wait()
    except BaseException:
        thread.cancel(call)
        raise
    return box[0]
