"""
Bounded work: pure functions on agent text, run in warm worker processes under a hard deadline.

Whatever computes on text an agent wrote — reading shell, scanning for secrets,
judging rules — can take time nobody budgeted: a quadratic pattern, a deep
nesting, an input built to be slow. On the event loop it stops every timer; in
a thread it still holds the interpreter (a regular expression never lets go of
it). So such work runs here, in a small pool of worker processes. Each worker
starts once, loads the project's readers and tables once, and then serves one
call at a time over its pipes. A call that does not finish before its deadline
has its worker killed (with everything the worker started) and replaced; a
worker that grows past its memory cap fails the call. Either way the caller
gets a `BoundedFailure` that says what happened in one clause — never an
exception, never a late answer — and decides what that means (the gateway
declines).

A task is a module-level function of one msgspec-serialisable argument,
returning a msgspec-serialisable result, wrapped with `bounded_task`; the
worker imports it by name. Tasks must be pure: the answer depends on the
argument alone, and nothing a call leaves behind in the worker may change a
later answer. A task never runs what it reads.

A pool knows no event loop: `BoundedPool.run` waits on its pipes with anyio,
so it works under asyncio and trio, and a worker can serve many event loops in
turn. Workers are started when first needed. A closed pool hands its idle
workers to the next pool of the same shape in this process (a gateway per hook
run, a gateway per test) instead of starting new ones; they are stopped when
the interpreter exits.

A call may also be given CPU seconds (``cpu``): the kernel's profiling timer
counts the worker's CPU time, and when the call has used them a `CpuSpent`
is raised inside the task (which may catch it to answer with what it knows,
such as an unmeasured plan); a task that goes on anyway (inside C code that
never returns to Python) is ended by the kernel `CPU_GRACE` seconds of CPU
later. A `cpu_account` opened around a piece of work (a review) gives every
call it makes one budget together: each call gets what is left, and what it
used is taken off.

Frames on the pipes are a 4-byte big-endian length followed by MessagePack.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import gc
import importlib
import inspect
import json
import os
import resource
import signal
import struct
import subprocess  # noqa: TID251 -- starts the project's own worker; never runs planned text
import sys
import threading
import time
import typing
from collections import deque
from collections.abc import Callable, Iterator
from typing import IO, Any, Final, Generic, Literal, NamedTuple, TypeVar

import anyio
import anyio.to_thread
import msgspec

__all__ = [
    "CPU_GRACE",
    "BoundedFailure",
    "BoundedPool",
    "BoundedStatistics",
    "BoundedTask",
    "CpuAccount",
    "CpuSpent",
    "bounded_task",
    "charge",
    "cpu_account",
    "cpu_left",
    "in_worker",
    "raise_if_spent",
    "thread_cpu_seconds",
]

A = TypeVar("A")
R = TypeVar("R")

_FRAME: Final = struct.Struct(">I")
_MAX_FRAME: Final = 256 * 1024 * 1024
_MAX_ANSWER: Final = 32 * 1024 * 1024
"""The largest answer a worker sends: the caller decodes it, and may keep it (a reading is cached)."""
_READ_CHUNK: Final = 1 << 20
_GRACE: Final = 2.0
"""Seconds past a call's deadline after which a worker kills itself, should nobody else."""

_SPARE_LIMIT: Final = 8
"""Idle workers kept in this process for the next pool (per pool shape)."""

# The worker starts without running the package's __init__ (which imports the
# whole public API: the gateway, its bus, its sinks, OpenTelemetry…): the
# package is put in place as a bare module over the same directory, and the
# real __init__ runs into it only if a task asks for a public name. A worker
# that only reads calls starts in about half the time.
_BOOT: Final = """
import importlib.util, json, sys, types
sys.path[:0] = json.loads(sys.argv[1])
spec = importlib.util.find_spec("gateway")
package = types.ModuleType("gateway")
package.__path__ = list(spec.submodule_search_locations)
package.__file__ = spec.origin
package.__spec__ = spec
package.__package__ = "gateway"
def __getattr__(name):
    del package.__getattr__
    with open(spec.origin, encoding="utf-8") as source:
        exec(compile(source.read(), spec.origin, "exec"), package.__dict__)
    return getattr(package, name)
package.__getattr__ = __getattr__
sys.modules["gateway"] = package
from gateway._work._bounded import serve
serve(json.loads(sys.argv[2]))
"""

CPU_GRACE: Final = 0.25
"""CPU seconds a task may go on after its `CpuSpent` (to answer with what it knows) before the kernel ends the worker."""

BoundedFailureKind = Literal["timeout", "cpu", "memory", "crashed", "error", "unavailable"]


class BoundedFailure(msgspec.Struct, frozen=True, kw_only=True):
    """
    Why a bounded call has no answer.

    Attributes:
        kind: ``timeout`` (it ran past its deadline; the worker was killed),
            ``cpu`` (it used the CPU seconds it was given),
            ``memory`` (it needed more memory than the worker may have),
            ``crashed`` (the worker died), ``error`` (the task raised) or
            ``unavailable`` (no worker could be started).
        reason: What happened, as a clause ("the work did not finish within 5 s").
        task: The task's name (``module:function``).
    """

    kind: BoundedFailureKind
    reason: str
    task: str


class BoundedStatistics(NamedTuple):
    """How a pool is doing."""

    workers: int
    idle: int
    calls: int
    failures: int
    started: int
    killed: int


class _Request(msgspec.Struct, frozen=True, array_like=True):
    task: str
    argument: msgspec.Raw
    deadline: float
    cpu: float = 0.0  # CPU seconds the call may use (0: no CPU bound)


class _Reply(msgspec.Struct, frozen=True, array_like=True):
    # msgspec reads a `Raw` only as a field of its own (not in a union): a
    # reply without a result carries nil.
    result: msgspec.Raw = msgspec.Raw(b"\xc0")  # MessagePack nil
    failure: BoundedFailure | None = None
    cpu: float = 0.0  # CPU seconds the call used in the worker


class CpuSpent(BaseException):
    """
    Raised inside a task, in a worker, when its call has used the CPU seconds it was given.

    A task may catch it to answer with what it knows (`CPU_GRACE` seconds of
    CPU remain before the kernel ends the worker); uncaught, the call's answer
    is a ``cpu`` failure. It is a `BaseException`, so that no ``except
    Exception`` on the way swallows it.

    Attributes:
        seconds: The CPU seconds the call was given.
    """

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


class CpuAccount:
    """
    CPU seconds a piece of work (one review) may still use in workers, all its calls together.

    Attributes:
        stated: The seconds it was given.
        left: The seconds left (negative when overspent).
    """

    __slots__ = ("left", "stated")

    def __init__(self, seconds: float) -> None:
        self.stated = seconds
        self.left = seconds

    def spend(self, seconds: float) -> None:
        """Take ``seconds`` off what is left."""
        self.left -= seconds


_ACCOUNT: Final[contextvars.ContextVar[CpuAccount | None]] = contextvars.ContextVar(
    "gateway_cpu_account", default=None
)


@contextlib.contextmanager
def cpu_account(seconds: float) -> Iterator[CpuAccount]:
    """
    Within the block, every `BoundedPool.run` shares one budget of ``seconds`` of CPU.

    Tasks and threads started in the block share it too (they copy the
    context, and the account in it). Work done in this process that belongs
    to the same piece of work is taken off with `charge`.
    """
    account = CpuAccount(seconds)
    token = _ACCOUNT.set(account)
    try:
        yield account
    finally:
        _ACCOUNT.reset(token)


def thread_cpu_seconds() -> float:
    """
    CPU seconds the calling thread has used on its own work: user and system
    time from ``getrusage``, less what full garbage collections took in it.

    The same clock as `time.thread_time`, read another way: on a loaded
    virtual machine each `time.thread_time` call was measured taking 0.2 to
    2 ms (it brings the scheduler's accounting up to date), against a few
    microseconds for ``getrusage`` — and every reading takes the clock twice.
    ``getrusage`` counts to the scheduler tick, far finer than any budget here.
    Where there is no per-thread ``getrusage`` (it is Linux's), `time.thread_time`.

    A full (generation 2) collection walks every object of the process, so it
    costs what the whole heap holds — 0.3 to 1 s was measured in a gateway
    that had reviewed 28,000 calls — and it falls on whichever call happened
    to allocate at that moment. Charged to that call, it spent a review's
    budget at random (the same command asked in one run and was judged in the
    next). So it is the process's cost, not the call's: `_COLLECTIONS` keeps
    per thread what they took, and this clock leaves it out. The young
    generations' collections cost what a call itself allocated, and stay in.
    The review's deadlines, which are wall-clock time, bound it all the same.
    """
    return _raw_thread_cpu() - _COLLECTIONS.taken


def _raw_thread_cpu() -> float:
    if _RUSAGE_THREAD is None:
        return time.thread_time()
    usage = resource.getrusage(_RUSAGE_THREAD)
    return usage.ru_utime + usage.ru_stime


_RUSAGE_THREAD: Final[int | None] = getattr(resource, "RUSAGE_THREAD", None)


class _Collections(threading.local):
    """Per thread: the CPU seconds full garbage collections took in it, and when the one under way began."""

    def __init__(self) -> None:
        self.taken = 0.0
        self.began: float | None = None


_COLLECTIONS: Final = _Collections()


def _on_collection(phase: str, info: dict[str, int]) -> None:
    """A `gc.callbacks` entry: time each full collection on the thread that runs it."""
    if info.get("generation") != 2:
        return
    here = _COLLECTIONS
    if phase == "start":
        here.began = _raw_thread_cpu()
    elif here.began is not None:
        here.taken += _raw_thread_cpu() - here.began
        here.began = None


if _on_collection not in gc.callbacks:
    gc.callbacks.append(_on_collection)


def charge(seconds: float) -> None:
    """Take ``seconds`` of CPU used in this process off the current `cpu_account`, if any."""
    account = _ACCOUNT.get()
    if account is not None:
        account.spend(seconds)


def cpu_left() -> float | None:
    """CPU seconds left in the current `cpu_account` (negative when overspent); ``None`` outside one."""
    account = _ACCOUNT.get()
    return None if account is None else account.left


class _Boot(msgspec.Struct, frozen=True, kw_only=True):
    memory: int
    preload: tuple[str, ...]


_ENCODER: Final = msgspec.msgpack.Encoder()
_REPLY: Final = msgspec.msgpack.Decoder(_Reply)
_REQUEST: Final = msgspec.msgpack.Decoder(_Request)


class BoundedTask(Generic[A, R]):
    """
    A pure function a `BoundedPool` can run in a worker process.

    Made with `bounded_task`. Calling it runs the function here, in this
    process, unbounded (for tests and for the worker itself).

    Attributes:
        name: ``module:function``, how the worker finds it.
        function: The function.
        argument: The type its one argument decodes to.
        result: The type its result decodes to.
    """

    def __init__(
        self, function: Callable[[A], R], argument: type[A], result: type[R], name: str
    ) -> None:
        self.function = function
        self.argument = argument
        self.result = result
        self.name = name
        self.__doc__ = function.__doc__
        self._decoder: msgspec.msgpack.Decoder[R] = msgspec.msgpack.Decoder(result)

    def __call__(self, argument: A) -> R:
        """Run the function here (not bounded)."""
        return self.function(argument)

    def decode(self, data: bytes) -> R:
        """A result from its MessagePack bytes."""
        return self._decoder.decode(data)

    def __repr__(self) -> str:
        return f"<bounded task {self.name}>"


def bounded_task(function: Callable[[A], R]) -> BoundedTask[A, R]:
    """
    Make a module-level function of one argument into a task a `BoundedPool` can run.

    The argument and the result must be msgspec-serialisable (Structs,
    tuples, strings…), as the annotations say; use it as a decorator, so that
    the module attribute of the function's name is the task the worker finds.

    Raises:
        TypeError: The function is not at module level, or does not take one
            annotated argument and return an annotated result.

    Examples:
        >>> @bounded_task
        ... def shout(text: str) -> str:
        ...     return text.upper()
        >>> shout("hi")
        'HI'
    """
    qualname = getattr(function, "__qualname__", "")
    if "." in qualname or "<" in qualname:
        raise TypeError(f"A bounded task must be a module-level function, not {qualname!r}.")
    parameters = list(inspect.signature(function).parameters)
    hints = typing.get_type_hints(function)
    if len(parameters) != 1 or parameters[0] not in hints or "return" not in hints:
        raise TypeError(
            f"The bounded task {qualname!r} must take one annotated argument and annotate its result."
        )
    return BoundedTask(
        function, hints[parameters[0]], hints["return"], f"{function.__module__}:{qualname}"
    )


# ── the worker process ──

_IN_WORKER = False


def in_worker() -> bool:
    """True inside a bounded worker process (whose work is already bounded: start no other)."""
    return _IN_WORKER


def _limit_memory(budget: int) -> None:
    """Cap the address space at its size now plus ``budget`` bytes (Linux)."""
    try:
        import resource

        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[0])
        current = pages * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = current + budget
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (OSError, ValueError, ImportError):  # pragma: no cover - not Linux
        return


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _find(name: str, found: dict[str, BoundedTask[Any, Any]]) -> BoundedTask[Any, Any]:
    task = found.get(name)
    if task is None:
        module, _, attribute = name.partition(":")
        value = getattr(importlib.import_module(module), attribute)
        if not isinstance(value, BoundedTask) or value.name != name:
            raise TypeError(f"{name} is not a bounded task")
        task = found[name] = value
    return task


def _process_cpu() -> float:
    """The worker's CPU seconds, less its full garbage collections (`thread_cpu_seconds` says why): it has one thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime - _COLLECTIONS.taken


_GIVEN: list[float] = [0.0]
"""The CPU seconds the call in hand was given (what its `CpuSpent` says); 0 with no call in hand."""
_ARMED: list[float] = [0.0]
"""The worker's CPU seconds (`_process_cpu`) when the call in hand was given them."""


def _spent(signum: int, frame: object) -> None:  # pragma: no cover - runs in the worker process
    raise CpuSpent(_GIVEN[0])


def _arm(cpu: float) -> None:  # pragma: no cover - runs in the worker process
    """
    Two timers of the process's CPU time: at ``cpu``, `CpuSpent` is raised
    (Python runs a handler only between two of its own steps); `CPU_GRACE`
    later, the kernel ends the process, whatever code it is in.
    """
    _GIVEN[0] = cpu
    _ARMED[0] = _process_cpu()
    signal.signal(signal.SIGPROF, _spent)
    signal.signal(signal.SIGVTALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, max(cpu, 0.001))
    signal.setitimer(signal.ITIMER_VIRTUAL, max(cpu, 0.001) + CPU_GRACE)


def _disarm() -> None:  # pragma: no cover - runs in the worker process
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    _GIVEN[0] = 0.0


def raise_if_spent() -> None:
    """
    Raise `CpuSpent` when the call in hand has used the CPU time it was given; in a worker only.

    The worker's timer fires at a scheduler tick, so work that ends between
    two ticks may have used more than it was given unnoticed: a task that
    reads its budget as part of its answer asks here, at its end, to answer
    as it would have had the timer caught it.
    """
    given = _GIVEN[0]
    if _IN_WORKER and given > 0 and _process_cpu() - _ARMED[0] > given:
        raise CpuSpent(given)


def _answer(task_name: str, request: _Request, found: dict[str, BoundedTask[Any, Any]]) -> _Reply:
    started = _process_cpu()
    reply = _answered(task_name, request, found)
    return msgspec.structs.replace(reply, cpu=_process_cpu() - started)


def _answered(task_name: str, request: _Request, found: dict[str, BoundedTask[Any, Any]]) -> _Reply:
    def failed(kind: BoundedFailureKind, reason: str) -> _Reply:
        return _Reply(failure=BoundedFailure(kind=kind, reason=reason, task=task_name))

    try:
        try:
            task = _find(task_name, found)
            argument = msgspec.msgpack.decode(request.argument, type=task.argument)
            if request.cpu > 0 and _IN_WORKER:
                _arm(request.cpu)
            result = task.function(argument)
            encoded = _ENCODER.encode(result)
            if len(encoded) > _MAX_ANSWER:
                return failed(
                    "memory",
                    f"the answer was larger than the {_MAX_ANSWER >> 20} MiB a worker may send",
                )
            return _Reply(result=msgspec.Raw(encoded))
        finally:
            if request.cpu > 0 and _IN_WORKER:
                _disarm()
    except CpuSpent:
        return failed("cpu", f"the work used more than its {request.cpu:g} s of CPU time")
    except MemoryError:
        return failed("memory", "the work needed more memory than a worker may have")
    except RecursionError:
        return failed("error", "the work nested deeper than the worker's recursion limit")
    except Exception as error:  # noqa: BLE001 -- the worker's one boundary: a bug in a task is a failure, not a dead worker
        return failed("error", f"the work failed ({type(error).__name__})")


def serve(boot: dict[str, Any]) -> None:  # pragma: no cover - runs in the worker process
    """A worker's main loop: load, say ready, then answer one request at a time until EOF."""
    global _IN_WORKER
    _IN_WORKER = True
    settings = msgspec.convert(boot, _Boot)
    # Frames go to the pipe on a private descriptor; anything an imported
    # module prints goes nowhere instead of into a frame.
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    stdin = sys.stdin.buffer
    # A worker whose caller is gone (or never kills it) stops itself: the
    # kernel's default action for SIGALRM ends the process even inside C code.
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.setrecursionlimit(4000)
    for entry in settings.preload:
        module, _, function = entry.partition(":")
        loaded = importlib.import_module(module)
        if function:
            getattr(loaded, function)()
    # What the worker loaded is kept for its life: full collections need not
    # walk it again (they cost what the heap holds; `thread_cpu_seconds`).
    gc.freeze()
    _limit_memory(settings.memory)
    found: dict[str, BoundedTask[Any, Any]] = {}

    def send(reply: _Reply) -> None:
        data = _ENCODER.encode(reply)
        out.write(_FRAME.pack(len(data)) + data)
        out.flush()

    send(_Reply())
    while True:
        header = _read_exact(stdin, _FRAME.size)
        if header is None:
            return
        payload = _read_exact(stdin, _FRAME.unpack(header)[0])
        if payload is None:
            return
        request = _REQUEST.decode(payload)
        signal.setitimer(signal.ITIMER_REAL, max(request.deadline, 0.001) + _GRACE)
        try:
            reply = _answer(request.task, request, found)
            try:
                send(reply)
            except MemoryError:
                send(
                    _Reply(
                        failure=BoundedFailure(
                            kind="memory",
                            reason="the answer needed more memory than a worker may have",
                            task=request.task,
                        )
                    )
                )
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


# ── the parent side ──


class _Worker:
    """One worker process and its pipes (non-blocking on this side)."""

    def __init__(self, boot: _Boot) -> None:
        self.process = subprocess.Popen(  # noqa: S603 -- a fixed argv: this interpreter and the project's own module
            [
                sys.executable,
                "-c",
                _BOOT,
                json.dumps(sys.path),
                json.dumps(msgspec.to_builtins(boot)),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None:  # pragma: no cover - both are piped above
            raise OSError("the worker's pipes did not open")
        self.stdin = stdin.fileno()
        self.stdout = stdout.fileno()
        os.set_blocking(self.stdin, False)
        os.set_blocking(self.stdout, False)
        self.ready = False
        self.buffer = bytearray()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Kill the worker and everything it started; reap it without waiting."""
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()
        _REAPER.add(self.process)

    async def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.stdin, view)
            except BlockingIOError:
                await anyio.wait_writable(self.stdin)
                continue
            view = view[written:]

    async def receive(self) -> bytes | None:
        """The next frame's payload, or ``None`` when the worker closed its end."""
        while True:
            if len(self.buffer) >= _FRAME.size:
                (size,) = _FRAME.unpack_from(self.buffer)
                if size > _MAX_FRAME:
                    return None
                end = _FRAME.size + size
                if len(self.buffer) >= end:
                    payload = bytes(self.buffer[_FRAME.size : end])
                    del self.buffer[:end]
                    return payload
            try:
                chunk = os.read(self.stdout, _READ_CHUNK)
            except BlockingIOError:
                await anyio.wait_readable(self.stdout)
                continue
            if not chunk:
                return None
            self.buffer += chunk


class _Reaper:
    """Collects killed workers' exit statuses, so none stays a zombie; never waits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._dead: list[subprocess.Popen[bytes]] = []

    def add(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._dead.append(process)
            self._dead = [p for p in self._dead if p.poll() is None]

    def settle(self, seconds: float) -> None:
        """At exit: wait, within ``seconds`` in all, for the killed workers to be gone."""
        with self._lock:
            dead, self._dead = self._dead, []
        ends = time.monotonic() + seconds
        for process in dead:
            with contextlib.suppress(subprocess.TimeoutExpired, OSError):
                process.wait(timeout=max(ends - time.monotonic(), 0.001))


_REAPER: Final = _Reaper()
_SETTLE_SECONDS: Final = 2.0


class _Spares:
    """Idle workers left by closed pools, for the next pool of the same shape."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[_Boot, list[_Worker]] = {}
        atexit.register(self.close)

    def take(self, boot: _Boot) -> _Worker | None:
        with self._lock:
            kept = self._kept.get(boot, [])
            while kept:
                worker = kept.pop()
                if worker.alive:
                    return worker
                worker.kill()
        return None

    def give(self, boot: _Boot, worker: _Worker) -> None:
        with self._lock:
            kept = self._kept.setdefault(boot, [])
            if len(kept) < _SPARE_LIMIT and worker.alive and not worker.buffer:
                kept.append(worker)
                return
        worker.kill()

    def close(self) -> None:
        with self._lock:
            kept, self._kept = self._kept, {}
        for workers in kept.values():
            for worker in workers:
                worker.kill()
        # A SIGKILLed worker is gone at once; reaping it here keeps the
        # interpreter from finding it still running as it shuts down.
        _REAPER.settle(_SETTLE_SECONDS)


_SPARES: Final = _Spares()


class BoundedPool:
    """
    Worker processes that run `BoundedTask` calls under a hard deadline and a memory cap.

    Args:
        workers: How many processes may run at once (a call finding all busy
            waits for one, within its caller's own deadline).
        memory: Bytes each worker may grow by after start; past it the call
            fails with ``memory``.
        preload: Modules (``module``) to import, or zero-argument functions
            (``module:function``) to call, when a worker starts: the readers
            and tables every call needs, loaded once.
        start_timeout: Seconds a new worker may take to start.

    A pool is used from one event loop at a time and closed with `aclose`.
    """

    def __init__(
        self,
        *,
        workers: int = 2,
        memory: int = 512 * 1024 * 1024,
        preload: tuple[str, ...] = (),
        start_timeout: float = 60.0,
    ) -> None:
        if workers < 1:
            raise ValueError("A bounded pool needs at least one worker.")
        self._boot = _Boot(memory=memory, preload=tuple(preload))
        self._size = workers
        self._start_timeout = start_timeout
        self._idle: list[_Worker] = []
        # Workers being started in the background to replace killed ones
        # (counted in `_count`); each still has to say it is ready.
        self._fresh: list[_Spawn] = []
        self._count = 0
        self._waiting: deque[anyio.Event] = deque()
        self._closed = False
        self._calls = self._failures = self._started = self._killed = 0

    def statistics(self) -> BoundedStatistics:
        """Counters for monitoring."""
        return BoundedStatistics(
            workers=self._count,
            idle=len(self._idle),
            calls=self._calls,
            failures=self._failures,
            started=self._started,
            killed=self._killed,
        )

    async def run(
        self,
        task: BoundedTask[A, R],
        argument: A,
        *,
        timeout: float,  # noqa: ASYNC109 -- the deadline of the work itself, not of waiting for a worker
    ) -> R | BoundedFailure:
        """
        Run ``task(argument)`` in a worker; its result, or why there is none.

        ``timeout`` bounds the work from the moment a worker has it: past it
        the worker is killed (and replaced when next needed), and the answer
        is a ``timeout`` failure. Waiting for a free worker is bounded by the
        caller's own cancel scope. A caller cancelled while the work runs
        kills the worker, and the cancellation goes on. Inside a
        `cpu_account`, the work may use what is left of it (`CpuSpent`, then
        a ``cpu`` failure), and what it used is taken off.
        """
        self._calls += 1
        if self._closed:
            return self._failed(task, "unavailable", "the pool of workers is closed")
        account = _ACCOUNT.get()
        if account is not None and account.left <= 0:
            return self._failed(task, "cpu", _overspent(account))
        try:
            payload = _ENCODER.encode(
                _Request(
                    task=task.name,
                    argument=msgspec.Raw(_ENCODER.encode(argument)),
                    deadline=timeout,
                    cpu=0.0 if account is None else account.left,
                )
            )
        except (TypeError, ValueError, OverflowError) as error:
            return self._failed(
                task, "error", f"its argument cannot be encoded ({type(error).__name__})"
            )
        worker = await self._acquire()
        if isinstance(worker, str):
            return self._failed(task, "unavailable", worker)
        keep = False
        try:
            reply: bytes | None = None
            with anyio.move_on_after(timeout) as scope:
                await worker.send(_FRAME.pack(len(payload)) + payload)
                reply = await worker.receive()
            if scope.cancelled_caught:
                return self._failed(
                    task, "timeout", f"the work did not finish within {timeout:g} s"
                )
            if reply is None:
                death = _death(worker)
                if account is not None and "SIGVTALRM" in death:
                    # Ended by the kernel: it used its CPU time and the grace after it.
                    account.left = min(account.left, 0.0)
                    return self._failed(task, "cpu", _overspent(account))
                return self._failed(task, "crashed", death)
            started = thread_cpu_seconds()
            try:
                answer = _REPLY.decode(reply)
                result = task.decode(answer.result) if answer.failure is None else None
            except (msgspec.DecodeError, msgspec.ValidationError):
                return self._failed(task, "crashed", "the worker answered something unreadable")
            finally:
                if account is not None:
                    # Decoding the answer here is the same work's cost, too.
                    account.spend(thread_cpu_seconds() - started)
            keep = True
            if account is not None:
                account.spend(answer.cpu)
            if answer.failure is not None:
                self._failures += 1
                if answer.failure.kind == "cpu" and account is not None:
                    # The kernel's timer and the worker's own count differ by a
                    # scheduler tick or so: what ran out is spent, whatever was counted.
                    account.left = min(account.left, 0.0)
                    return msgspec.structs.replace(answer.failure, reason=_overspent(account))
                return answer.failure
            return typing.cast("R", result)
        finally:
            self._release(worker, keep=keep)

    def _failed(
        self, task: BoundedTask[Any, Any], kind: BoundedFailureKind, reason: str
    ) -> BoundedFailure:
        self._failures += 1
        return BoundedFailure(kind=kind, reason=reason, task=task.name)

    async def _acquire(self) -> _Worker | str:
        while True:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    return worker
                worker.kill()
                self._count -= 1
            if self._fresh:
                spawn = self._fresh.pop()
                try:
                    await anyio.to_thread.run_sync(spawn.join, abandon_on_cancel=True)
                except BaseException:
                    spawn.discard()
                    self._count -= 1
                    self._wake()
                    raise
                if spawn.worker is None:
                    self._count -= 1
                    self._wake()
                    return f"no worker could be started ({spawn.error})"
                self._started += 1
                return await self._start(spawn.worker)
            if self._count < self._size:
                self._count += 1
                return await self._start()
            waiter = anyio.Event()
            self._waiting.append(waiter)
            try:
                await waiter.wait()
            finally:
                with contextlib.suppress(ValueError):
                    self._waiting.remove(waiter)

    async def _start(self, fresh: _Worker | None = None) -> _Worker | str:
        """A ready worker (one counted in ``_count`` already), or why there is none."""
        worker = fresh or _SPARES.take(self._boot)
        try:
            if worker is None:
                try:
                    worker = await anyio.to_thread.run_sync(_Worker, self._boot)
                except OSError as error:
                    self._count -= 1
                    self._wake()
                    return f"no worker could be started ({error.strerror or error})"
                self._started += 1
            if worker.ready:
                return worker
            ready: bytes | None = None
            with anyio.move_on_after(self._start_timeout):
                ready = await worker.receive()
        except BaseException:
            if worker is not None:
                worker.kill()
            self._count -= 1
            self._wake()
            raise
        if ready is None:
            worker.kill()
            self._count -= 1
            self._wake()
            return f"no worker became ready within {self._start_timeout:g} s"
        worker.ready = True
        return worker

    def _release(self, worker: _Worker, *, keep: bool) -> None:
        if keep and worker.alive and not self._closed:
            self._idle.append(worker)
        elif keep and worker.alive:
            _SPARES.give(self._boot, worker)
            self._count -= 1
        else:
            worker.kill()
            self._killed += 1
            if self._closed:
                self._count -= 1
            else:
                # Replaced at once, in the background: the next call finds a
                # worker already starting rather than starting one itself.
                self._fresh.append(_Spawn(self._boot))
        self._wake()

    def _wake(self) -> None:
        if self._waiting:
            self._waiting.popleft().set()

    async def aclose(self) -> None:
        """Close the pool: idle workers wait for the next pool in this process; busy ones end with their call."""
        self._closed = True
        idle, self._idle = self._idle, []
        fresh, self._fresh = self._fresh, []
        self._count -= len(idle) + len(fresh)
        for worker in idle:
            _SPARES.give(self._boot, worker)
        for spawn in fresh:
            spawn.discard()
        while self._waiting:
            self._waiting.popleft().set()


class _Spawn:
    """A worker being started in a thread of its own (starting a process takes a while)."""

    def __init__(self, boot: _Boot) -> None:
        self.worker: _Worker | None = None
        self.error: str | None = None
        self._discarded = False
        self._thread = threading.Thread(
            target=self._run, args=(boot,), name="gateway worker", daemon=True
        )
        self._thread.start()

    def _run(self, boot: _Boot) -> None:
        try:
            worker = _Worker(boot)
        except OSError as error:
            self.error = error.strerror or str(error)
            return
        self.worker = worker
        if self._discarded:
            worker.kill()

    def join(self) -> None:
        """Wait until the process is started (or failed to start)."""
        self._thread.join()

    def discard(self) -> None:
        """Nobody will use it: kill it once it is started."""
        self._discarded = True
        if self.worker is not None:
            self.worker.kill()


def _overspent(account: CpuAccount) -> str:
    return f"the work used more than the {account.stated:g} s of CPU time it may use"


def _death(worker: _Worker) -> str:
    status = worker.process.poll()
    if status is None:
        # Its pipe closed as it died: the status is a moment away (a crash is rare).
        with contextlib.suppress(subprocess.TimeoutExpired):
            status = worker.process.wait(timeout=0.1)
    if status is not None and status < 0:
        with contextlib.suppress(ValueError):
            return f"the worker died while working ({signal.Signals(-status).name})"
    return "the worker died while working"
