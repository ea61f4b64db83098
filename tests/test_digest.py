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

import msgspec
import pytest

from gateway import plan_program
from gateway._digest import canonical_bytes, digest_of
from gateway._planner import plan_statements

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
        "import json, sys; from gateway import plan_program; "
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
# so it must be made deliberately — recompute these values and say why in the
# commit — never by accident.
GOLDEN_PLAN_BYTES = (
    b'{"bound_variables":[],"commands":[{"args":[],"argv":[{"plain":"ls"}],'
    b'"assignments":[],"background":false,"context":"command","expansions":[],'
    b'"fed_by":[],"heredocs":[],"name":"ls","nested":[],"position":{"argv_from_stdin":false,'
    b'"assignments":[],"control_words":[],"decline":null,"launchers":[],'
    b'"program":{"basename":"ls","index":0,"name":"ls"},"reason":null,"refusal":null,'
    b'"runs_default_program":false,"runs_shell":false},"redirects":[]}],'
    b'"free_variables":[],"rendered":"ls","statement_kind":"command"}'
)

GOLDEN_DIGESTS = [
    (
        "ls -la",
        "sha256:7e81cd6271cb235097728fb79a1ea03bb0e519480b4b654f31cf84f5af9cdb92",
        ["sha256:0460f1724b7704da18e9229a9ea325bc842a1cf52db96964bdfcd559412504e1"],
    ),
    (
        "cd src && grep -rn TODO .",
        "sha256:89e8115c5ca4969e8c833714b69501c310c3cd25c08b252984caa2bff0d28b53",
        ["sha256:4d7ae7bd8b14df0745089dfaf4440064ab84c138af1481aafd5ff0f42a0668a4"],
    ),
    (
        "cat <<'EOF' > f.py\nprint(1)\nEOF",
        "sha256:3656923132fe2cef8dd3765bb6ab3af85be9aec3d5df9ed3cc8de035e4f940dc",
        ["sha256:a17c1b1779ee9dc4c45957afe39370be0b6560e5dd92a6b9d4945d6da7778572"],
    ),
    (
        "sudo -u root timeout 5 rm -rf build &",
        "sha256:ec739dba6b174f2816833b8efb3480ddc8c1353d97e3ec813e1bc27e63c53480",
        ["sha256:7bec7798933f19c09420315f5e8e5fe9f09a3d90b4180b26346bce97bcdcf827"],
    ),
    (
        "x=1; echo $x",
        "sha256:93999c724c8bcb809d12c64a41996c6efea8d07175d6f2c14d5f1ccf1365dcb9",
        [
            "sha256:fa6b0b34967e2c10e9403ff59cfde848f819ae015908df215746823c174b8ff2",
            "sha256:8c2f31a0b51b177859bd48630d81023af442a54bf19fa69f54330c85754833ef",
        ],
    ),
]


def test_golden_canonical_bytes_of_a_plan() -> None:
    assert canonical_bytes(plan_program("ls").statements[0].plan) == GOLDEN_PLAN_BYTES


@pytest.mark.parametrize(
    ("source", "digest", "statements"), GOLDEN_DIGESTS, ids=[g[0] for g in GOLDEN_DIGESTS]
)
def test_golden_digests(source: str, digest: str, statements: list[str]) -> None:
    plan = plan_program(source)
    assert plan.digest == digest
    assert [s.digest for s in plan.statements] == statements
