"""
A user's own program, allowed by a rule over the option table the config declares for it.

Every row goes through a real `Gateway` built from a config with
``[programs.report]`` and a rule that names ``report``; nothing runs. The
hostile rows try each way the table could be made to let a write, a secret
read or code through; each has a harmless twin that stays allowed.
"""

from __future__ import annotations

import anyio
import pytest

from gateway import Gateway, GatewayConfig, PluginLoadError, ToolCall, load_config

CONFIG = b"""
[gateway]
approvers = ["rules"]

[programs.report]
options = [
  "-v --verbose",
  "-n --limit =",
  { spelling = "-o --output =", effect = "write" },
  { spelling = "-c --config =", effect = "read" },
  { spelling = "--hook =", effect = "code" },
]
operands = { head = ["none"], rest = "read" }

[[approver.rules.rule]]
id = "team.report"
decision = "allow"
programs = ["report"]
reason = "prints a report of the files it is given"
match = ["report -v sales data.csv", "report -c team.toml sales data.csv"]
not-match = ["report --frobnicate sales", "report -c ~/.ssh/id_rsa sales", "report --hook x.py sales"]
"""


def verdicts(config: GatewayConfig, commands: list[str]) -> list[tuple[str, str]]:
    async def run() -> list[tuple[str, str]]:
        async with Gateway(config, sinks={}) as gateway:
            found: list[tuple[str, str]] = []
            for command in commands:
                with anyio.fail_after(30):
                    v = await gateway.review(
                        ToolCall("Bash", {"command": command}, cwd="/work/app")
                    )
                found.append((v.decision, v.reason or ""))
            return found

    return anyio.run(run)


HOSTILE = [
    ("report -o out.txt sales data.csv", "ask"),  # a write: the read-only profile asks
    ("report --output=out.txt sales", "ask"),
    ("report -vo out.txt sales", "ask"),  # the write hidden in a cluster
    ("report -o ~/.bashrc sales", "decline"),
    ("report --output ~/.bashrc sales", "decline"),
    ("report -c ~/.ssh/id_rsa sales", "ask"),  # a secret into the model's context
    ("report sales ~/.aws/credentials", "ask"),
    ("report --hook ./x.py sales", "ask"),  # code the rules cannot read
    ("report --out=x sales", "ask"),  # not an abbreviation the table accepts
    ("report --frobnicate sales", "ask"),  # undeclared
    ("report $OPTS sales", "ask"),  # an expansion could spell `-o ~/.bashrc`
    ("report -v sales $(cat .env)", "ask"),
    ("./report -v sales data.csv", "ask"),  # not the program the rule names
    ("curl -s x | report --hook /dev/stdin sales", "ask"),
]
TWINS = [
    "report sales data.csv",
    "report -v -n 10 sales data.csv",
    "report -c team.toml sales a.csv b.csv",
    "report -- sales -odd.csv",
    "report sales data.csv | head",
]


@pytest.fixture(scope="module")
def config() -> GatewayConfig:
    return load_config(CONFIG)


def test_no_hostile_use_of_the_table_is_allowed(config: GatewayConfig) -> None:
    for (command, expected), (got, reason) in zip(
        HOSTILE, verdicts(config, [c for c, _ in HOSTILE]), strict=True
    ):
        assert got == expected, (command, got, reason)


def test_the_harmless_twins_are_allowed(config: GatewayConfig) -> None:
    for command, (got, reason) in zip(TWINS, verdicts(config, TWINS), strict=True):
        assert got == "allow", (command, reason)
        assert "team.report" in reason, reason


def test_without_the_table_the_program_is_never_allowed() -> None:
    bare = load_config(CONFIG.replace(b"[programs.report]", b"[programs.other]"))
    with pytest.raises(PluginLoadError, match=r"team\.report"):
        verdicts(bare, ["report sales data.csv"])


def test_an_example_the_table_refuses_stops_the_start() -> None:
    broken = load_config(
        CONFIG.replace(b'match = ["report -v sales', b'match = ["report --frobnicate sales')
    )
    with pytest.raises(PluginLoadError, match="report --frobnicate"):
        verdicts(broken, ["true"])
