"""
Plan digests: ``sha256:<hex>`` over one canonical encoding of what a call would do.

Equal calls digest equal (in any process), any change to what runs changes
the digest, redaction never does, and golden values pin the exact bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Sequence, Set

import msgspec
import pytest

from gateway._calls._digest import canonical_bytes, digest_of
from gateway._plan import plan_source, plan_statements
from gateway._plan._digests import ProgramDigestInput
from gateway._programs import ArgumentReading
from gateway.plans import ProgramPlan, plan_program

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@pytest.mark.parametrize(
    "source",
    ["ls -la", "a && b; c | d &", "cat <<'EOF'\nbody\nEOF", "echo 'unterminated", ""],
    ids=["command", "statements", "heredoc", "unmeasured", "empty"],
)
def test_digests_are_sha256_hex(source: str) -> None:
    plan = plan_program(source)
    assert DIGEST.fullmatch(plan.digest)
    for statement in plan.statements:
        assert DIGEST.fullmatch(statement.digest)


def test_identical_calls_digest_equal() -> None:
    source = 'for f in $(ls); do sudo -u root rm -rf "$f" & done'
    first, second = plan_program(source), plan_program(source)
    assert first.digest == second.digest
    assert [s.digest for s in first.statements] == [s.digest for s in second.statements]


def test_digests_do_not_depend_on_the_process() -> None:
    """Set order, hash seeds and caches never reach the encoding."""
    sources = ["x=1; echo $x $y $z", "cat <<EOF\n$b $a $(date)\nEOF", "env A=1 B=2 make"]
    script = (
        "import json, sys; from gateway.plans import plan_program; "
        "print(json.dumps([plan_program(s).digest for s in json.loads(sys.argv[1])]))"
    )
    seen = set()
    for seed in ("0", "1", "12345"):
        result = subprocess.run(
            [sys.executable, "-c", script, json.dumps(sources)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        )
        seen.add(result.stdout)
    assert len(seen) == 1
    assert json.loads(seen.pop()) == [plan_program(s).digest for s in sources]


def test_statement_digest_is_the_digest_of_its_canonical_plan() -> None:
    plan = plan_program("ls -la; cd src && make")
    for statement in plan.statements:
        expected = hashlib.sha256(canonical_bytes(statement.plan)).hexdigest()
        assert statement.digest == f"sha256:{expected}"


def test_canonical_encoding_sorts_keys_at_every_level() -> None:
    encoded = canonical_bytes(plan_program("sudo -u root ls > out").statements[0].plan)

    def check(value: object) -> None:
        if isinstance(value, dict):
            assert list(value) == sorted(value)
            for item in value.values():
                check(item)
        elif isinstance(value, list):
            for item in value:
                check(item)

    check(json.loads(encoded))


def test_program_digest_covers_source_status_and_statement_digests() -> None:
    source = "ls; pwd"
    plan = plan_program(source)
    assert plan.digest == digest_of(
        {
            "source": source,
            "status": "measured",
            "reason": None,
            "statements": [s.digest for s in plan.statements],
        }
    )


def test_unmeasured_digest_binds_the_source_and_the_reason() -> None:
    source = "echo 'unterminated"
    plan = plan_program(source)
    assert plan.status == "unmeasured"
    assert plan.digest == digest_of(
        {"source": source, "status": "unmeasured", "reason": plan.reason, "statements": []}
    )
    assert plan.digest != plan_program("echo 'unterminated2").digest


CHANGES = [
    ("rm x", "rm y"),
    ("rm -rf x", "rm -r x"),
    ("ls", "ls &"),
    ("a && b", "a || b"),
    ("a | b", "a && b"),
    ("echo hi > a", "echo hi >> a"),
    ("echo hi > a", "echo hi > b"),
    ("make 2>&1", "make 2>&-"),
    ("A=1 make", "A=2 make"),
    ("A=1 make", "B=1 make"),
    ("sudo -u root ls", "sudo -u admin ls"),
    ("timeout 5 ls", "timeout 50 ls"),
    ("cat <<EOF\nx\nEOF", "cat <<EOF\ny\nEOF"),
    ("cat <<EOF\n$x\nEOF", "cat <<'EOF'\n$x\nEOF"),
    ("cat <<EOF\n\tx\nEOF", "cat <<-EOF\n\tx\nEOF"),
    ("cat <<EOF\nx\r\nEOF", "cat <<EOF\nx\nEOF"),
    ('echo "$x"', "echo '$x'"),
    ("echo $(date)", "echo $(id)"),
    ("sh -c 'ls'", "sh -c 'rm'"),
    ("ssh host ls", "ssh host rm"),
    ("find . -exec rm {} \\;", "find . -exec ls {} \\;"),
    ("if a; then b; fi", "if a; then c; fi"),
    ("for f in a b; do rm $f; done", "for f in a c; do rm $f; done"),
    ("ls; rm x", "rm x; ls"),
    ("curl -u admin:hunter2hunter2 x", "curl -u admin:hunter3hunter3 x"),
    ("mysql -pSecretOne db", "mysql -pSecretTwo db"),
]


@pytest.mark.parametrize(("before", "after"), CHANGES, ids=[f"{a}|{b}" for a, b in CHANGES])
def test_a_change_to_what_runs_changes_the_digest(before: str, after: str) -> None:
    first, second = plan_program(before), plan_program(after)
    assert first.status == second.status == "measured"
    assert first.digest != second.digest


def test_a_change_to_one_statement_changes_only_its_statement_digest() -> None:
    first, second = plan_program("ls; rm x; pwd"), plan_program("ls; rm y; pwd")
    same = [a.digest == b.digest for a, b in zip(first.statements, second.statements, strict=True)]
    assert same == [True, False, True]
    assert first.digest != second.digest


@pytest.mark.parametrize(
    "source",
    [
        "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://api.example.com",
        "mysql -u root -pSuperSecret99 db; echo done",
        "cat > .env <<EOF\nDB_PASSWORD=p4ssw0rd-from-env\nEOF",
        "sh -c 'curl -u admin:s3cr3tP4ssw0rd https://x'",
        "curl -u admin:s3cr3tP4ssw0rd 'unterminated",
    ],
    ids=["bearer", "two-statements", "heredoc", "nested", "unmeasured"],
)
def test_redaction_does_not_change_the_digest(source: str) -> None:
    """Digests are computed from the unredacted plan, so a redacted plan still binds the command."""
    published = plan_program(source)
    unredacted, _ = plan_statements(source)
    assert msgspec.json.encode(published) != msgspec.json.encode(unredacted)
    assert published.digest == unredacted.digest
    assert [s.digest for s in published.statements] == [s.digest for s in unredacted.statements]
    for statement in unredacted.statements:
        assert statement.digest == digest_of(statement.plan)


# Golden digests. They pin the canonical encoding byte for byte: any change to a
# plan type's fields, their names or defaults, a tag, or the encoder changes
# them. Such a change alters every digest approvers and audit logs have seen,
# so it must be made deliberately — recompute these values, bump PLAN_FORMAT
# when the wire form changed, and say why in the commit — never by accident.
# The plans are made with a reader of program arguments that knows every
# program and states no facts, so the option tables can grow without moving them.
def _quiet(
    basename: str,
    argv: Sequence[str | None],
    *,
    one_word: Set[int] = frozenset(),
    no_dash: Set[int] = frozenset(),
) -> ArgumentReading:
    return ArgumentReading(program=basename, table=True)


def _golden_plan(source: str) -> ProgramPlan:
    return plan_source(source, arguments=_quiet).published


GOLDEN_PLAN_BYTES = (
    b'{"arithmetic_variables":[],"bound_variables":[],"commands":[{"args":[],'
    b'"argv":[{"plain":"ls"}],"assignments":[],"background":false,"context":"command",'
    b'"directories":[{"classes":["workspace"],"pattern":false,"value":".","written":""}],'
    b'"effects":[],"expansions":[],"fed_by":[],"heredocs":[],"name":"ls","nested":[],'
    b'"options":[],"position":{"argv_from_stdin":false,"assignments":[],"control_words":[],'
    b'"decline":null,"dynamic_program":false,"launchers":[],'
    b'"program":{"basename":"ls","index":0,"name":"ls"},"reason":null,"refusal":null,'
    b'"runs_default_program":false,"runs_shell":false},"redirects":[],"subcommand":[]}],'
    b'"effects":[],"free_variables":[],"functions":[],"rendered":"ls","statement_kind":"command"}'
)

GOLDEN_DIGESTS = [
    (
        "ls -la",
        "sha256:feec25c6b6a5e4e07b4b00c59c4a99f6679a3d68f5fb22c27c5745a3f5d73157",
        ["sha256:cf227e2143d5a82a095011990c242466454ae035c15ce4b460b0fe01bdc3ac1b"],
    ),
    (
        "cd src && grep -rn TODO .",
        "sha256:2b9ffd2d89bf7abe2f7f1ee9b05ef3cc8cea3e7b39344aac7cee79f3bc24ba59",
        ["sha256:f374158d0e0911bd82a97e25a0ec274c37978d1ab9daeb141c3ccf6c882d54eb"],
    ),
    (
        "cat <<'EOF' > f.py\nprint(1)\nEOF",
        "sha256:2935a757d8a20ddd190df7c7883002f0744e8860778b37921907f4ae67e65835",
        ["sha256:90398d1e54673ebee6fb248ded22983388548373bebd96dc438ff65a4079515a"],
    ),
    (
        "sudo -u root timeout 5 rm -rf build &",
        "sha256:889790ede576faa0a6221b335311a0b5113ef954f3f9d128b8eae49db0340506",
        ["sha256:17085c54d160da6a3f29716d2de556ab8d44ee591178396fb095e8af3abae0ad"],
    ),
    (
        "x=1; echo $x",
        "sha256:6bcf0905a126bfc0188502cfa657a89a492a9aca647c9675020e966c19ef5ebe",
        [
            "sha256:7d7a45f33982e0aa2b68a0ee9b5c4336ad134b9eb5a85db614b87fde33bcf66c",
            "sha256:43bc7163e84ba89ae671207ce09f015ab966e3c26f6bac2445534d7941f3fff7",
        ],
    ),
]


def test_golden_canonical_bytes_of_a_plan() -> None:
    assert canonical_bytes(_golden_plan("ls").statements[0].plan) == GOLDEN_PLAN_BYTES


@pytest.mark.parametrize(
    ("source", "digest", "statements"), GOLDEN_DIGESTS, ids=[g[0] for g in GOLDEN_DIGESTS]
)
def test_golden_digests(source: str, digest: str, statements: list[str]) -> None:
    plan = _golden_plan(source)
    assert plan.digest == digest
    assert [s.digest for s in plan.statements] == statements


def test_the_digest_covers_the_effects() -> None:
    """The same text run elsewhere writes elsewhere: its effects, and so its digest, differ."""
    here = plan_program("echo hi > notes.txt", cwd="/work/app")
    there = plan_program("echo hi > notes.txt", cwd="/home/amy")
    assert here.statements[0].plan.commands[0].args == there.statements[0].plan.commands[0].args
    assert here.digest != there.digest
    plan = here.statements[0].plan
    command = plan.commands[0]
    changed = msgspec.structs.replace(
        plan, commands=(msgspec.structs.replace(command, effects=command.effects[:-1]),)
    )
    assert digest_of(changed) != digest_of(plan)


def test_the_program_digest_preimage_is_a_named_type() -> None:
    plan = plan_program("ls; pwd")
    preimage = ProgramDigestInput(
        source="ls; pwd",
        status="measured",
        reason=None,
        statements=tuple(s.digest for s in plan.statements),
    )
    assert plan.digest == digest_of(preimage)
