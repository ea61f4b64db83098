"""
The wire format: ``msgspec`` JSON and MessagePack of every public type round-trip.

Decoding the encoding of a value gives an equal value, for plans of generated
and real commands, expansions, addresses, sequence plans and program
positions. The two tagged unions keep their externally tagged shapes, and a
value with both or neither tag set is rejected at decode time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from gateway.plans import (
    Blocked,
    Complete,
    Expansion,
    FragmentAddr,
    Plain,
    PlannedValue,
    ProgramPlan,
    ProgramPosition,
    Redacted,
    SequencePlan,
    command_sequence_plan,
    expand_fragment,
    plan_program,
)
from gateway.shell import read_program_position

T = TypeVar("T")
CORPUS = Path(__file__).parent / "data" / "corpus"


def assert_round_trips(value: T, kind: type[T]) -> None:
    assert msgspec.json.decode(msgspec.json.encode(value), type=kind) == value
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(value), type=kind) == value


# ───────────────────────── generated commands ─────────────────────────

WORDS = st.sampled_from(
    [
        "ls",
        "-la",
        "rm",
        "-rf",
        "build",
        "'quoted word'",
        '"$HOME/x"',
        "$x",
        "${y:-d}",
        "$(date +%s)",
        "`id`",
        "<(sort a)",
        "*.py",
        "~/src",
        "{a,b}",
        "$((n + 1))",
        "--password=hunter2hunter2",
        "https://u:s3cr3tP4ss@example.com",
        "é✓",
    ]
)
PROGRAMS = st.sampled_from(
    [
        "ls",
        "sudo -u root rm",
        "env A=1 make",
        "timeout 5 curl",
        "xargs rm",
        "sh -c 'ls | wc'",
        "git",
    ]
)


@st.composite
def simple_commands(draw: st.DrawFn) -> str:
    parts = [draw(PROGRAMS), *draw(st.lists(WORDS, max_size=4))]
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(["> out", "2>&1", ">> log", "< in", "&> all"])))
    if draw(st.booleans()):
        parts.insert(0, draw(st.sampled_from(["A=1", "PGPASSWORD=pgs3cretvalue", "X=$(id)"])))
    return " ".join(parts)


@st.composite
def statements(draw: st.DrawFn) -> str:
    commands = draw(st.lists(simple_commands(), min_size=1, max_size=3))
    joiners = draw(st.lists(st.sampled_from([" | ", " && ", " || "]), min_size=2, max_size=2))
    text = commands[0]
    for joiner, command in zip(joiners, commands[1:], strict=False):
        text += joiner + command
    shape = draw(st.sampled_from(["{}", "{} &", "if {}; then ls; fi", "for f in a b; do {}; done"]))
    return shape.format(text)


@st.composite
def programs(draw: st.DrawFn) -> str:
    text = "; ".join(draw(st.lists(statements(), min_size=1, max_size=3)))
    if draw(st.booleans()):
        quote = draw(st.sampled_from(["'EOF'", "EOF"]))
        body = draw(st.sampled_from(["print(1)", "$USER $(date)", "DB_PASSWORD=p4ssw0rd-x"]))
        text += f"\ncat <<{quote}\n{body}\nEOF"
    return text


@settings(max_examples=80, deadline=None)
@given(programs())
def test_plans_of_generated_commands_round_trip(source: str) -> None:
    assert_round_trips(plan_program(source), ProgramPlan)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60))
def test_plans_of_arbitrary_text_round_trip(source: str) -> None:
    """Measured or not, whatever the text, the plan encodes and decodes to itself."""
    assert_round_trips(plan_program(source), ProgramPlan)


def _corpus_sample() -> list[str]:
    sample: list[str] = []
    for name in ("agent", "nl2bash", "tldr"):
        lines = (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        sample.extend(str(json.loads(line)["cmd"]) for line in lines[:: max(1, len(lines) // 150)])
    return sample


@pytest.mark.corpus
def test_plans_of_corpus_commands_round_trip() -> None:
    sample = _corpus_sample()
    assert len(sample) > 400
    for source in sample:
        assert_round_trips(plan_program(source), ProgramPlan)


# ───────────────────────── expansions and addresses ─────────────────────────

HEREDOC_SOURCES = [
    "cat <<EOF\nhello $NAME\nEOF",
    "cat <<EOF\n$(date) and ${X:-$(id)}\nEOF",
    "cat <<'EOF'\n$(not a hole)\nEOF",
    "cat <<EOF\n$A $B\nEOF",
    "cat <<EOF\nkey=$(curl -u admin:h0l3S3cret x)\nEOF",
]


@pytest.mark.parametrize("source", HEREDOC_SOURCES)
def test_expansions_of_real_fragments_round_trip(source: str) -> None:
    for scope in ({}, {"NAME": "amy", "A": "1"}):
        expansion = expand_fragment(source, FragmentAddr(statement=0, heredoc=0), scope)
        assert_round_trips(expansion, Expansion)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.builds(Complete, st.text()),
        st.builds(
            Blocked,
            holes=st.just(()),
            unbound=st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]*", fullmatch=True)).map(tuple),
        ),
    )
)
def test_generated_expansions_round_trip(expansion: Expansion) -> None:
    assert_round_trips(expansion, Expansion)


@given(
    st.builds(
        FragmentAddr, statement=st.integers(-(2**63), 2**63 - 1), heredoc=st.integers(0, 2**32)
    )
)
def test_fragment_addresses_round_trip(addr: FragmentAddr) -> None:
    assert_round_trips(addr, FragmentAddr)


# ───────────────────────── sequence plans and positions ─────────────────────────


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["make", "npm test", "cd web", "(cd a && make)", "cargo test -p x", "ls *"]
        ),
        min_size=1,
        max_size=4,
    ).map(" && ".join),
    st.sampled_from(["", "sub", "a/b", "/abs", "../up"]),
)
def test_sequence_plans_round_trip(source: str, cwd: str) -> None:
    assert_round_trips(command_sequence_plan(source, cwd), SequencePlan)


@settings(max_examples=80, deadline=None)
@given(simple_commands())
def test_program_positions_round_trip(command: str) -> None:
    assert_round_trips(read_program_position(command), ProgramPosition)


@pytest.mark.parametrize(
    "command",
    ["sudo -u root timeout 5 rm x", "env -x ls", "xargs", "watch 'ls | wc'", "'if' x", "$CMD"],
)
def test_positions_with_refusals_and_declines_round_trip(command: str) -> None:
    assert_round_trips(read_program_position(command), ProgramPosition)


# ───────────────────────── tagged shapes ─────────────────────────


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        (Plain("build"), {"plain": "build"}),
        (
            Redacted("password", "0123456789ab"),
            {"redacted": {"kind": "password", "fingerprint": "0123456789ab", "masked": None}},
        ),
        (
            Redacted("password", "0123456789ab", "--password=<password>"),
            {
                "redacted": {
                    "kind": "password",
                    "fingerprint": "0123456789ab",
                    "masked": "--password=<password>",
                }
            },
        ),
    ],
    ids=["plain", "redacted", "redacted-masked"],
)
def test_planned_value_is_externally_tagged(value: PlannedValue, wire: dict[str, Any]) -> None:
    assert msgspec.json.decode(msgspec.json.encode(value)) == wire
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(value)) == wire
    assert msgspec.json.decode(json.dumps(wire).encode(), type=PlannedValue) == value


@pytest.mark.parametrize(
    ("value", "wire"),
    [
        (Complete("text\n"), {"complete": "text\n"}),
        (Blocked(unbound=("A",)), {"blocked": {"holes": [], "unbound": ["A"]}}),
    ],
    ids=["complete", "blocked"],
)
def test_expansion_is_externally_tagged(value: Expansion, wire: dict[str, Any]) -> None:
    assert msgspec.json.decode(msgspec.json.encode(value)) == wire
    assert msgspec.json.decode(json.dumps(wire).encode(), type=Expansion) == value


def test_an_empty_complete_text_is_still_complete() -> None:
    assert msgspec.json.encode(Complete("")) == b'{"complete":""}'
    assert msgspec.json.decode(b'{"complete":""}', type=Expansion) == Complete("")


def test_a_blocked_hole_keeps_its_plans_on_the_wire() -> None:
    expansion = expand_fragment("cat <<EOF\n$(date +%s)\nEOF", FragmentAddr(statement=0, heredoc=0))
    wire = msgspec.json.decode(msgspec.json.encode(expansion))
    (hole,) = wire["blocked"]["holes"]
    assert (hole["index"], hole["source"]) == (0, "$(date +%s)")
    assert hole["plans"][0]["commands"][0]["name"] == "date"


def test_planned_values_in_a_plan_use_the_tagged_shape() -> None:
    wire = msgspec.json.decode(msgspec.json.encode(plan_program("mysql -pSuperSecret99 db")))
    args = wire["statements"][0]["plan"]["commands"][0]["args"]
    assert args[1] == {"plain": "db"}
    assert set(args[0]) == {"redacted"}
    assert args[0]["redacted"]["kind"] == "password"


@pytest.mark.parametrize(
    "wire",
    [
        b"{}",
        b'{"plain":null}',
        b'{"plain":"a","redacted":{"kind":"password","fingerprint":"0123456789ab"}}',
    ],
    ids=["neither", "null", "both"],
)
def test_planned_value_with_both_or_neither_set_is_rejected(wire: bytes) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(wire, type=PlannedValue)
    with pytest.raises(msgspec.ValidationError):
        msgspec.msgpack.decode(msgspec.msgpack.encode(msgspec.json.decode(wire)), type=PlannedValue)


@pytest.mark.parametrize(
    "wire",
    [b"{}", b'{"complete":"x","blocked":{"holes":[],"unbound":[]}}'],
    ids=["neither", "both"],
)
def test_expansion_with_both_or_neither_set_is_rejected(wire: bytes) -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(wire, type=Expansion)


def test_constructing_an_invalid_value_fails_too() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        PlannedValue()
    with pytest.raises(ValueError, match="exactly one"):
        Expansion(complete="x", blocked=Blocked().blocked)


@pytest.mark.parametrize(
    ("kind", "wire"),
    [
        (FragmentAddr, b'{"statement":0,"heredoc":0,"extra":1}'),
        (PlannedValue, b'{"plain":"a","extra":1}'),
        (SequencePlan, b'{"status":"measured","steps":[],"reason":null,"extra":1}'),
    ],
    ids=["address", "value", "sequence"],
)
def test_unknown_fields_are_rejected(kind: type[object], wire: bytes) -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        msgspec.json.decode(wire, type=kind)


def test_a_closed_set_rejects_a_value_outside_it() -> None:
    wire = msgspec.json.decode(msgspec.json.encode(plan_program("ls")))
    wire["statements"][0]["plan"]["statement_kind"] = "loop"
    with pytest.raises(msgspec.ValidationError, match="statement_kind"):
        msgspec.json.decode(json.dumps(wire).encode(), type=ProgramPlan)
