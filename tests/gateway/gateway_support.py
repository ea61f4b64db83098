"""
Helpers shared by the gateway tests (imported by them; not a test module).

Every test module imports `anyio_backend` from here, so each async test runs
under asyncio and under trio. It is not in a ``conftest.py``: this directory
cannot be a package (as ``tests/gateway/__init__.py`` it would be imported as
``gateway`` and shadow the real package), and a second non-package
``conftest.py`` beside ``tests/conftest.py`` is a duplicate module to mypy.
For the same reason the modules carry a ``test_gateway_`` prefix.

Approvers here are plain classes, as a plugin would write them; sinks wrap
`gateway.testing.MemorySink`. Nothing here sleeps: waiting is on events, and
every wait in a test is bounded by `anyio.fail_after`.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, cast

import anyio
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from gateway import Answer, GatewayConfig, ReviewRequest, ToolCall
from gateway.config import GatewaySection, ShellTool, SinkConfig
from gateway.events import Event
from gateway.testing import MemorySink

BOUND: Final = 30.0
"""
Seconds any one step of a test may wait before the test fails: a guard against
a hang, never a measure of speed — on a busy machine starting a process
(`gateway verify`, a worker) alone can take more than 10 s.
"""

REQUIRED_EVENTS: Final = (
    "call.proposed",
    "plan.ready",
    "hole.question",
    "approver.decided",
    "approver.failed",
    "verdict.reached",
)

# Realistic secrets (all fake). Each must stay out of every event and span.
GITHUB_TOKEN: Final = "ghp_Zq8Xw2Lm4Np6Rt0Vy3Bc5Df7Gh9Jk1Ms2Qa4Se"  # noqa: S105 -- fake, to be kept out of events
AWS_ACCESS_KEY: Final = "AKIAZ7QW3ERT5YUI8OPA"
AWS_SECRET_KEY: Final = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKY"  # noqa: S105 -- fake, to be kept out of events
OPENAI_KEY: Final = "sk-proj-Q9wE8rT7yU6iO5pA4sD3fG2hJ1kL0zXc"
STRIPE_KEY: Final = "sk_live_51HqLy2Kx9Zw8Vb7Nm6Qp5Rs4"
JWT: Final = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.c2lnbmF0dXJlLXZhbHVl"
DB_PASSWORD: Final = "Hunter2Hunter2x"  # noqa: S105 -- fake, to be kept out of events
PLAIN_PASSWORD: Final = "correct-horse-battery-staple"  # noqa: S105 -- fake, to be kept out of events
SECRETS: Final = (
    GITHUB_TOKEN,
    AWS_ACCESS_KEY,
    AWS_SECRET_KEY,
    OPENAI_KEY,
    STRIPE_KEY,
    JWT,
    DB_PASSWORD,
    PLAIN_PASSWORD,
)

SECRET_CALLS: Final = [
    pytest.param(
        ToolCall(
            "Bash",
            {"command": f'curl -sf -H "Authorization: Bearer {JWT}" https://api.example.com/v1/me'},
        ),
        id="bearer-header",
    ),
    pytest.param(
        ToolCall(
            "Bash", {"command": f"git clone https://oauth2:{GITHUB_TOKEN}@github.com/acme/app.git"}
        ),
        id="token-in-url",
    ),
    pytest.param(
        ToolCall(
            "Bash",
            {
                "command": f"AWS_ACCESS_KEY_ID={AWS_ACCESS_KEY} AWS_SECRET_ACCESS_KEY={AWS_SECRET_KEY} aws s3 ls"
            },
        ),
        id="aws-env",
    ),
    pytest.param(
        # Regression: the sequence plan's unmeasured reason quoted this word
        # (`?` is a glob character) and published the key.
        ToolCall(
            "Bash", {"command": f"curl https://api.example.com/v1/items?api_key={OPENAI_KEY}"}
        ),
        id="key-in-query-string",
    ),
    pytest.param(
        ToolCall(
            "shell",
            {"command": ["mysql", "-u", "root", f"-p{DB_PASSWORD}", "-e", "show databases"]},
        ),
        id="mysql-argv",
    ),
    pytest.param(
        ToolCall(
            "Bash",
            {
                "command": f"cat > .env <<EOF\nOPENAI_API_KEY={OPENAI_KEY}\nBUILD=$(git rev-parse HEAD)\nEOF"
            },
        ),
        id="heredoc-with-hole",
    ),
    pytest.param(
        ToolCall(
            "http_request",
            {
                "method": "POST",
                "url": "https://api.stripe.com/v1/charges",
                "headers": {"Authorization": f"Bearer {STRIPE_KEY}"},
            },
        ),
        id="tool-header",
    ),
    pytest.param(
        # Regression: a string under a key that names a secret was published verbatim.
        ToolCall("db_connect", {"host": "db.internal", "user": "app", "password": PLAIN_PASSWORD}),
        id="tool-password-field",
    ),
    pytest.param(
        ToolCall(
            "exec",
            {
                "argv": ["./migrate"],
                "env": {"DB_PASSWORD": DB_PASSWORD, "API_TOKEN": PLAIN_PASSWORD},
            },
        ),
        id="tool-env-map",
    ),
]


Decide = Callable[[ReviewRequest], Awaitable[Any]]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run each async test once per backend (import it into every test module)."""
    backend: str = request.param
    return backend


def config(
    *,
    shell_tools: Sequence[ShellTool] | None = None,
    sinks: dict[str, SinkConfig] | None = None,
    **section: Any,
) -> GatewayConfig:
    """A config with the given ``[gateway]`` fields (snake_case), shell tools and sinks."""
    extra: dict[str, Any] = {}
    if shell_tools is not None:
        extra["shell_tools"] = tuple(shell_tools)
    if sinks is not None:
        extra["sinks"] = sinks
    return GatewayConfig(gateway=GatewaySection(**section), **extra)


class Scripted:
    """
    An approver whose answer an async function of the request gives.

    The function may return anything (to test garbage) and may sleep (to
    test slow and hanging approvers); every request is kept in `requests`.
    """

    def __init__(
        self,
        name: str,
        decide: Decide,
        *,
        reviews_raw_text: bool = False,
        timeout: object = None,
        shares_loop: bool = True,
    ) -> None:
        self.name = name
        self._decide = decide
        self.reviews_raw_text = reviews_raw_text
        self.shares_loop = shares_loop
        if timeout is not None:
            self.timeout = timeout
        self.requests: list[ReviewRequest] = []

    async def review(self, request: ReviewRequest) -> Answer:
        """Answer whatever the script says."""
        self.requests.append(request)
        return cast("Answer", await self._decide(request))


class GatedSink(MemorySink):
    """A sink whose writes wait until `gate` is set (to hold publishers in back-pressure)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = anyio.Event()

    async def write(self, event: Event) -> None:
        """Wait for the gate, then keep the event."""
        await self.gate.wait()
        await super().write(event)


class FailingAfterSink(MemorySink):
    """A sink that writes ``good`` events, then raises `OSError` on every write."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good

    async def write(self, event: Event) -> None:
        """Keep the event, or fail once ``good`` events are written."""
        if len(self.events) >= self.good:
            raise OSError("the disk is full")
        await super().write(event)


def tag(event: Event) -> str:
    """An event's wire tag (``call.proposed``…)."""
    return str(type(event).__struct_config__.tag)


def of_call(events: Iterable[Event], call_id: str | None) -> list[Event]:
    """The events of one call, in order."""
    return [event for event in events if event.call_id == call_id]


def tags(events: Iterable[Event]) -> list[str]:
    """The wire tags of some events, in order."""
    return [tag(event) for event in events]


def tracing() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A private tracer provider that keeps finished spans in memory (no globals touched)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def install_plugins(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    group: str,
    entries: dict[str, str],
    modules: dict[str, str],
) -> None:
    """
    Install a throwaway distribution whose entry points name objects of new modules.

    ``modules`` maps short module names to their source, ``entries`` maps
    entry-point names to ``module:attribute`` in those short names. The
    distribution is found the way a pip-installed plugin is: a
    ``.dist-info`` directory on ``sys.path``. Module names get a unique
    prefix, so no test imports another's.
    """
    prefix = f"gwtest_{uuid.uuid4().hex[:12]}"
    for short, source in modules.items():
        (root / f"{prefix}_{short}.py").write_text(source, encoding="utf-8")
    info = root / f"{prefix}-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {prefix}\nVersion: 0\n", encoding="utf-8"
    )
    lines = [f"[{group}]"] + [f"{name} = {prefix}_{target}" for name, target in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
