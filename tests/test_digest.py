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
    b'{"arithmetic_variables":[],"bound_variables":[],"commands":[{"args":[],'
    b'"argv":[{"plain":"ls"}],"assignments":[],"background":false,"context":"command",'
    b'"expansions":[],"fed_by":[],"heredocs":[],"name":"ls","nested":[],'
    b'"position":{"argv_from_stdin":false,"assignments":[],"control_words":[],'
    b'"decline":null,"dynamic_program":false,"launchers":[],'
    b'"program":{"basename":"ls","index":0,"name":"ls"},"reason":null,"refusal":null,'
    b'"runs_default_program":false,"runs_shell":false},"redirects":[]}],'
    b'"free_variables":[],"functions":[],"rendered":"ls","statement_kind":"command"}'
)

GOLDEN_DIGESTS = [
    (
        "ls -la",
        "sha256:48742b299591e55eb805509b8fe6828096f3b201df918b93b2ad8df5c0cef5d6",
        ["sha256:6ab8478dc669e9060843f1b41212d525bfad3ff5f48e6fc1962945e1b5710ff3"],
    ),
    (
        "cd src && grep -rn TODO .",
        "sha256:579e744810707ab6cc0f6585d9eafe18950664eee59584bdbe668a11bf5d9ce6",
        ["sha256:042ac6d90455def17e18fcd13c87b6412b44878935507c3d07734e5734c1565b"],
    ),
    (
        "cat <<'EOF' > f.py\nprint(1)\nEOF",
        "sha256:a9035d52d453f6f80be806e16570b89c99eaa2db8136c4300f6106bcb676e5c5",
        ["sha256:dc5390f18ecfdde1d8354c9cb0d18271b85917a2f8235a2bea608ef9eab4bed2"],
    ),
    (
        "sudo -u root timeout 5 rm -rf build &",
        "sha256:437da2d6e440856b4dc023f98c5f8af51b3766e773816963b22467b7fcab17e2",
        ["sha256:02c759c6e77fa717209a19a64392ddafdf24a119f76e0d71f22ea42bd02565a1"],
    ),
    (
        "x=1; echo $x",
        "sha256:0903013280d1914cc7c562a2b4c5e9de111a2a0708c978a1da94d3733f9ca0be",
        [
            "sha256:5ee0330358a399dde02051df08410d3b1c9c549caff3d8d6f5ee0952b0a7c34f",
            "sha256:1a69e1997ba4ea4403ddecc02f27160077a4a2b026fbb9d251e60d75afa49e3e",
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
