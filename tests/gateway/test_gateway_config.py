"""
Configuration and isolation (issue 5, "Public API" and "Approvers"): config
errors naming key paths, plugins loaded by entry point (only those named),
two gateways side by side, and the bounded plan cache.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import anyio
import msgspec
import pytest
from gateway_support import (
    BOUND,
    anyio_backend as anyio_backend,
    config,
    install_plugins,
    of_call,
    tags,
)

from gateway import (
    ConfigError,
    Gateway,
    GatewayConfig,
    PluginLoadError,
    ToolCall,
    Verdict,
    default_config,
    load_config,
)
from gateway._calls._events import GENESIS
from gateway.audit import verify_audit_log
from gateway.config import GatewaySection, SinkConfig
from gateway.events import verify_chain
from gateway.testing import MemorySink, StaticApprover, make_call

pytestmark = pytest.mark.anyio


# ── load_config ──


@pytest.mark.parametrize(
    ("toml", "path", "words"),
    [
        (b"[gateway]\napprover-timout = 5", "$.gateway", "unknown field `approver-timout`"),
        (
            b'[gateway]\napprover-timeout = "soon"',
            "$.gateway.approver-timeout",
            "Expected `float`, got `str`",
        ),
        (b'[gateway]\napprovers = ["rules", 3]', "$.gateway.approvers[1]", "Expected `str`"),
        (b"[gateway]\naudit-timeout = 0", "$.gateway.audit-timeout", "Expected `float` > 0.0"),
        (
            b"[gateway]\nreview-timeout = 86401",
            "$.gateway.review-timeout",
            "Expected `float` <= 86400.0",
        ),
        (b"[serve]\nhuman-timeout = 1e9", "$.serve.human-timeout", "Expected `float` <= 86400.0"),
        (b"[gateway]\nworkers = 0", "$.gateway.workers", "Expected `int` >= 1"),
        (b"[audit]\ncheckpoint-every = 0", "$.audit.checkpoint-every", "Expected `int` >= 1"),
        (
            b'[witnesses.w]\nplugin = "file"\npaht = "x"',
            "$.witnesses.w",
            "unknown field `paht`",
        ),
        (
            b'[[shell-tools]]\ntool = "Bash"\nfeild = ["command"]',
            "$.shell-tools[0]",
            "unknown field `feild`",
        ),
        # Regression: msgspec says `$.sinks[...]`; the path now names the sink.
        (
            b'[sinks.audit]\nplugin = "jsonl"\nrequierd = true',
            "$.sinks.audit",
            "unknown field `requierd`",
        ),
        (
            b'[sinks.first]\nplugin = "jsonl"\n[sinks.second]\nplugin = "jsonl"\nrequired = "yes"',
            "$.sinks.second.required",
            "Expected `bool`, got `str`",
        ),
        (b'[serve]\nport = "eighty"', "$.serve.port", "Expected `int`, got `str`"),
        (b"[hook]\nsever = 'http://x'", "$.hook", "unknown field `sever`"),
        (b"approvers = ['rules']", None, "unknown field `approvers`"),
    ],
    ids=[
        "unknown-key",
        "wrong-type",
        "wrong-item-type",
        "out-of-range",
        "longer-than-a-day",
        "human-timeout-longer-than-a-day",
        "no-workers",
        "no-checkpoints",
        "unknown-key-in-a-witness",
        "unknown-key-in-array-of-tables",
        "unknown-key-in-a-sink",
        "wrong-type-in-second-sink",
        "serve",
        "hook",
        "unknown-top-level-key",
    ],
)
def test_config_errors_name_the_key_and_its_path(toml: bytes, path: str | None, words: str) -> None:
    """Every unknown key or wrong value is a ConfigError whose message and ``path`` say where."""
    with pytest.raises(ConfigError) as caught:
        load_config(toml, name="gateway.toml")
    message = str(caught.value)
    assert caught.value.path == path
    assert caught.value.source == "gateway.toml"
    assert message.startswith("Invalid config 'gateway.toml'")
    assert words in message
    if path is not None:
        assert f" at {path}: " in message


def test_config_that_is_not_toml_is_an_error() -> None:
    """Broken TOML is reported as such, with where it broke."""
    with pytest.raises(ConfigError, match=r"is not valid TOML: .*line 1"):
        load_config(b"[gateway\n")


def test_config_is_read_from_a_file_into_frozen_structs(tmp_path: Path) -> None:
    """A path is read; the result is immutable; kebab-case keys map to snake_case fields."""
    path = tmp_path / "gateway.toml"
    path.write_text(
        "[gateway]\napprovers = []\napprover-timeout = 2.5\nplan-cache-size = 7\n"
        '[[shell-tools]]\ntool = "sh"\nfields = ["script"]\n'
        '[sinks.audit]\nplugin = "jsonl"\npath = "audit.jsonl"\nrequired = true\n'
        '[approver.rules]\npolicy = "strict"\n',
        encoding="utf-8",
    )
    loaded = load_config(path)
    assert loaded.gateway.approvers == ()
    assert loaded.gateway.approver_timeout == 2.5
    assert loaded.gateway.plan_cache_size == 7
    assert [(t.tool, t.fields) for t in loaded.shell_tools] == [("sh", ("script",))]
    assert loaded.sinks["audit"] == SinkConfig(plugin="jsonl", path="audit.jsonl", required=True)
    assert loaded.approver == {"rules": {"policy": "strict"}}
    with pytest.raises(AttributeError):
        loaded.gateway = loaded.gateway  # type: ignore[misc]
    with pytest.raises(ConfigError, match="Cannot read the config file"):
        load_config(tmp_path / "missing.toml")


def test_the_default_config_ships_with_the_package() -> None:
    """``config/default.toml`` loads and validates."""
    loaded = default_config()
    assert isinstance(loaded, GatewayConfig)
    assert loaded.gateway.approvers


# ── plugins by entry point ──

APPROVERS = """
from gateway import Allow


class Motto:
    def __init__(self, options, context):
        self.name = "gwtest-motto"
        self.motto = options.get("motto", "none")
        self.context = context

    async def review(self, request):
        return Allow(reason=f"Allowed with motto {self.motto}.", rule="motto")


def broken(options, context):
    raise RuntimeError("cannot reach the policy server")


def shapeless(options, context):
    return object()
"""


def _installed(group: str) -> str:
    names = sorted(entry.name for entry in importlib.metadata.entry_points(group=group))
    return ", ".join(repr(name) for name in names) or "none"


async def test_an_unknown_approver_is_a_startup_error_naming_the_installed_ones() -> None:
    """A config naming an approver nobody installed fails at start-up, listing what is installed."""
    settings = config(approvers=("no-such-approver",))
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(settings):
            pass
    installed = _installed("gateway.approvers")
    assert str(caught.value) == (
        f"No approver named 'no-such-approver' is installed; installed: {installed}."
    )
    assert caught.value.plugin == "no-such-approver"


async def test_approvers_are_loaded_by_entry_point_and_only_those_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured approver is built by its factory with its options; an installed one not named is never imported."""
    install_plugins(
        tmp_path,
        monkeypatch,
        "gateway.approvers",
        {"gwtest-motto": "approvers:Motto", "gwtest-explodes": "explodes:factory"},
        {"approvers": APPROVERS, "explodes": "raise ImportError('must not be imported')\n"},
    )
    settings = load_config(
        b'[gateway]\napprovers = ["gwtest-motto"]\n[approver.gwtest-motto]\nmotto = "carpe diem"\n'
    )
    with anyio.fail_after(BOUND):
        async with Gateway(settings) as gateway:
            verdict = await gateway.review(make_call("ls"))
    assert (verdict.decision, verdict.approver, verdict.rule) == ("allow", "gwtest-motto", "motto")
    assert verdict.reason == "Allowed with motto carpe diem."
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(config(approvers=("gwtest-mottto",))):
            pass
    assert "'gwtest-motto'" in str(caught.value)
    assert "'gwtest-explodes'" in str(caught.value)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "approvers:broken",
            "The approver 'gwtest-bad' could not be built: cannot reach the policy server",
        ),
        ("approvers:shapeless", "The approver 'gwtest-bad' has no name or no review method."),
        ("explodes:factory", "The approver 'gwtest-bad' could not be built: must not be imported"),
    ],
    ids=["factory-raises", "not-an-approver", "import-fails"],
)
async def test_an_approver_that_cannot_be_built_is_a_startup_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, message: str
) -> None:
    """A plugin that fails to load stops the gateway from starting, naming the plugin."""
    install_plugins(
        tmp_path,
        monkeypatch,
        "gateway.approvers",
        {"gwtest-bad": target},
        {"approvers": APPROVERS, "explodes": "raise ImportError('must not be imported')\n"},
    )
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(config(approvers=("gwtest-bad",))):
            pass
    assert str(caught.value) == message
    assert caught.value.plugin == "gwtest-bad"


async def test_an_unknown_sink_plugin_is_a_startup_error_naming_the_installed_ones() -> None:
    """The audit sinks jsonl and msgpack are installed; a misspelt one is named with them."""
    settings = config(approvers=(), sinks={"audit": SinkConfig(plugin="json-lines", path="x")})
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError) as caught:
        async with Gateway(settings):
            pass
    installed = _installed("gateway.sinks")
    assert "'jsonl'" in installed
    assert "'msgpack'" in installed
    assert str(caught.value) == (
        f"No sink plugin named 'json-lines' is installed (for sink 'audit'); installed: {installed}."
    )


async def test_a_file_sink_without_a_path_is_a_startup_error() -> None:
    """The sink validates its own options when it is built."""
    settings = config(approvers=(), sinks={"audit": SinkConfig(plugin="jsonl")})
    with anyio.fail_after(BOUND), pytest.raises(PluginLoadError, match="needs a `path`"):
        async with Gateway(settings):
            pass


SINKS = """
class Flaky:
    def __init__(self, config):
        self.config = config

    async def open(self):
        return None

    async def write(self, event):
        raise OSError("the network is down")

    async def aclose(self):
        pass
"""


async def test_a_sink_that_is_not_required_may_fail_without_declining(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only required sinks hold verdicts; a failing optional one is marked failed and ignored."""
    install_plugins(
        tmp_path, monkeypatch, "gateway.sinks", {"gwtest-flaky": "sinks:Flaky"}, {"sinks": SINKS}
    )
    audit = tmp_path / "audit.jsonl"
    settings = config(
        approvers=(),
        sinks={
            "stream": SinkConfig(plugin="gwtest-flaky", required=False),
            "audit": SinkConfig(plugin="jsonl", path=str(audit), required=True),
        },
    )
    with anyio.fail_after(BOUND):
        async with Gateway(settings, approvers=[StaticApprover("allow")]) as gateway:
            verdict = await gateway.review(make_call("ls"))
            # The sink runs on a thread of its own (it does not say it shares
            # the loop): its failure arrives when it does, not with the verdict.
            for _ in range(1000):
                if gateway.statistics().failed_sinks:
                    break
                await anyio.sleep(0.01)
            statistics = gateway.statistics()
    assert verdict.decision == "allow"
    assert statistics.failed_sinks == ("stream",)
    assert verify_audit_log(audit) is None


# ── isolation ──


async def test_two_gateways_in_one_process_do_not_interfere() -> None:
    """Each gateway has its own approvers, sinks, chain, cache and counters, even when used at once."""
    sink_a, sink_b = MemorySink(), MemorySink()
    verdicts: dict[str, Verdict] = {}
    with anyio.fail_after(BOUND):
        async with (
            Gateway(
                config(plan_cache_size=1),
                approvers=[StaticApprover("allow", name="A")],
                sinks={"a": sink_a},
            ) as first,
            Gateway(approvers=[StaticApprover("decline", name="B")], sinks={"b": sink_b}) as second,
        ):

            async def one(gateway: Gateway, call_id: str) -> None:
                verdicts[call_id] = await gateway.review(make_call("git status", call_id=call_id))

            async with anyio.create_task_group() as group:
                for index in range(20):
                    group.start_soon(one, first, f"a{index}")
                    group.start_soon(one, second, f"b{index}")
            stats = first.statistics(), second.statistics()
    for call_id, verdict in verdicts.items():
        expected = ("allow", "A") if call_id.startswith("a") else ("decline", "B")
        assert (verdict.decision, verdict.approver) == expected
    for sink, prefix in ((sink_a, "a"), (sink_b, "b")):
        assert verify_chain(sink.events) is None
        assert sink.events[0].seq == 0
        assert sink.events[0].previous == GENESIS
        calls = {e.call_id for e in sink.events if e.call_id is not None}
        assert calls == {f"{prefix}{i}" for i in range(20)}
        assert tags(of_call(sink.events, f"{prefix}7"))[-1] == "verdict.reached"
    assert [s.reviews for s in stats] == [20, 20]
    assert [(s.allowed, s.declined) for s in stats] == [(20, 0), (0, 20)]


# ── the plan cache ──


async def test_repeated_calls_are_served_from_a_bounded_plan_cache() -> None:
    """Identical calls reuse the reading (no worker is asked); the cache never holds more than its size."""
    approver = StaticApprover("allow")
    with anyio.fail_after(BOUND):
        async with Gateway(config(plan_cache_size=2), approvers=[approver]) as gateway:
            asked: list[int] = []
            for command in ["ls", "ls", "pwd", "whoami", "ls"]:
                assert (await gateway.review(make_call(command))).allowed
                asked.append(gateway._pool.statistics().calls)
            await gateway.review(ToolCall("read_file", {"path": "ls"}))
            statistics = gateway.statistics()
            cached = len(gateway._cache)
    # ls (miss), ls (hit), pwd, whoami (evicts the first ls), ls again (miss); then read_file.
    assert asked == [1, 1, 2, 3, 4]
    assert (statistics.plan_cache_hits, statistics.plan_cache_misses) == (1, 5)
    assert cached == 2
    first, second = approver.requests[0], approver.requests[1]
    assert first.plan is second.plan


async def test_identical_calls_arriving_together_are_planned_once() -> None:
    """
    A burst of identical calls waits for one reading instead of reading the same text each.

    Regression: every call that arrived before the first plan was cached
    planned again (164 plans for 9 texts in the load test).
    """
    verdicts: list[Verdict] = []
    with anyio.fail_after(BOUND):
        async with (
            Gateway(approvers=[StaticApprover("allow")]) as gateway,
            anyio.create_task_group() as group,
        ):

            async def one() -> None:
                verdicts.append(await gateway.review(make_call("git status --short")))

            for _ in range(50):
                group.start_soon(one)
        statistics = gateway.statistics()
        calls = gateway._pool.statistics().calls
    assert calls == 1
    assert (statistics.plan_cache_misses, statistics.plan_cache_hits) == (1, 49)


async def test_statistics_count_reviews_and_decisions() -> None:
    """statistics() counts reviews by decision, and the events published."""
    with anyio.fail_after(BOUND):
        async with Gateway(approvers=[StaticApprover("abstain")]) as gateway:
            await gateway.review(make_call("ls"))
            await gateway.review(ToolCall("Bash", {}))
            statistics = gateway.statistics()
    assert (statistics.reviews, statistics.allowed, statistics.asked, statistics.declined) == (
        2,
        0,
        1,
        1,
    )
    assert (
        statistics.events == 2 + 4 + 3
    )  # genesis and started, one full review, one without approvers
    assert statistics.failed_sinks == ()


def _documented_gateway_keys() -> dict[str, str]:
    """The ``[gateway]`` table of docs/configuration.md: each key and its default, as written."""
    page = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    section = page.read_text(encoding="utf-8").split("## `[gateway]`", 1)[1].split("\n#", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `")]
    return {row[1].strip().strip("`"): row[2].strip().strip("`") for row in rows}


def test_every_gateway_key_is_documented_with_its_default() -> None:
    """docs/configuration.md lists exactly the keys `[gateway]` has, each with its real default."""
    section = GatewaySection()
    real = {
        field.encode_name: msgspec.json.encode(getattr(section, field.name)).decode()
        for field in msgspec.structs.fields(GatewaySection)
    }
    documented = _documented_gateway_keys()
    assert set(documented) == set(real)
    for key, default in real.items():
        assert msgspec.json.decode(documented[key].replace("'", '"')) == msgspec.json.decode(
            default
        ), key
