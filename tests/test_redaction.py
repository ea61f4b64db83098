"""
Redaction: literal secrets in a call are published as `Redacted`, never as text.

For each realistic secret: it appears nowhere in the JSON or MessagePack
encoding of the plan (nor of the events that carry it), the plan keeps the
digest of the unredacted plan, the published value says what kind of secret it
was and carries a fingerprint, and equal secrets fingerprint equal. Harmless
commands that merely mention passwords or tokens stay plain.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings, strategies as st

from gateway._calls._events import PlanReady
from gateway._plan import plan_statements
from gateway._plan._redact import fingerprint
from gateway.plans import FragmentAddr, ProgramPlan, expand_fragment, plan_program

FINGERPRINT = re.compile(r"[0-9a-f]{12}")

GHP = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # noqa: S105 -- AWS's documented example key
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
ANTHROPIC = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx"

# (id, command, the secret, the kind it is published as)
SECRETS: list[tuple[str, str, str, str]] = [
    (
        "curl-bearer",
        "curl -H 'Authorization: Bearer abcDEF123456ghiJKL789' https://api.example.com/v1/me",
        "abcDEF123456ghiJKL789",
        "bearer-token",
    ),
    ("curl-user-pass", "curl -u admin:s3cr3tP4ss https://example.com", "s3cr3tP4ss", "password"),
    (
        "curl-long-user",
        "curl --user deploy:Sup3rS3cret! https://example.com",
        "Sup3rS3cret!",
        "password",
    ),
    ("mysql-p", "mysql -u root -pSuperSecret99 shop", "SuperSecret99", "password"),
    (
        "mysqldump-p",
        "mysqldump -uroot -pRootPassw0rd mydb > dump.sql",
        "RootPassw0rd",
        "password",
    ),
    ("psql-password", "psql --password=hunter2hunter2 -h db", "hunter2hunter2", "password"),
    ("pgpassword", "PGPASSWORD=pgs3cretvalue psql -h db -U app", "pgs3cretvalue", "password"),
    ("export-github-token", f"export GITHUB_TOKEN={GHP}", GHP, "github-token"),
    (
        "aws-access-key",
        "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        "aws-access-key",
    ),
    (
        "aws-secret-env",
        f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        AWS_SECRET,
        "aws-secret-key",
    ),
    (
        "aws-secret-configure",
        f"aws configure set aws_secret_access_key {AWS_SECRET}",
        AWS_SECRET,
        "aws-secret-key",
    ),
    (
        "private-key-heredoc",
        "cat > ~/.ssh/id_rsa <<'EOF'\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\nEOF",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        "private-key",
    ),
    (
        "url-credentials",
        "git clone https://user:tok3nPassw0rd@github.com/org/repo.git",
        "tok3nPassw0rd",
        "url-credentials",
    ),
    (
        "postgres-url",
        "psql postgresql://app:pgP4ssword@db:5432/app -c 'select 1'",
        "pgP4ssword",
        "url-credentials",
    ),
    (
        "mongodb-url",
        "mongosh 'mongodb://admin:m0ng0Secret@localhost:27017/db'",
        "m0ng0Secret",
        "url-credentials",
    ),
    (
        "slack-webhook",
        'curl -X POST -d \'{"text":"hi"}\' '
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "slack-webhook",
    ),
    (
        "slack-bot-token",
        "SLACK_BOT_TOKEN=xoxb-123456789012-1234567890123-AbCdEfGhIjKl ./notify.sh",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "slack-token",
    ),
    (
        "stripe-key",
        "stripe login --api-key sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
        "sk_live_51HxYzAbCdEfGhIjKlMnOpQr",
        "stripe-key",
    ),
    (
        "openai-key",
        "OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345 python app.py",
        "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
        "openai-api-key",
    ),
    (
        "anthropic-key-header",
        f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {ANTHROPIC}'",
        ANTHROPIC,
        "anthropic-api-key",
    ),
    ("anthropic-key-redirect", f"echo '{ANTHROPIC}' > key.txt", ANTHROPIC, "anthropic-api-key"),
    (
        "google-key",
        "curl 'https://maps.googleapis.com/maps/api/geocode/json?key=AIzaSyA1234567890abcdefghijklmnopqrstuv'",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "google-api-key",
    ),
    (
        "npm-token",
        "npm config set //registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm-token",
    ),
    (
        "huggingface-token",
        "huggingface-cli login --token hf_abcdefghijklmnopqrstuvwxyzABCDEF",
        "hf_abcdefghijklmnopqrstuvwxyzABCDEF",
        "huggingface-token",
    ),
    ("jwt", f"curl -H 'Authorization: Bearer {JWT}' https://api.example.com", JWT, "jwt"),
    (
        "x-api-key",
        "curl -H 'X-API-Key: 9f8e7d6c5b4a39281706' https://api.example.com/v1",
        "9f8e7d6c5b4a39281706",
        "generic-api-key",
    ),
    (
        "gitlab-token",
        "curl -H 'PRIVATE-TOKEN: glpat-abcdefghijklmnopqrst' https://gitlab.com/api/v4/projects",
        "glpat-abcdefghijklmnopqrst",
        "gitlab-token",
    ),
    ("sshpass", "sshpass -p 'Tr0ub4dor&3' ssh admin@host uptime", "Tr0ub4dor&3", "password"),
    (
        "dotenv-heredoc",
        "cat > .env <<EOF\nDB_HOST=localhost\nDB_PASSWORD=p4ssw0rd-from-env\nEOF",
        "p4ssw0rd-from-env",
        "password",
    ),
    (
        "git-remote-token",
        f"git remote set-url origin https://x-access-token:{GHP}@github.com/o/r.git",
        GHP,
        "github-token",
    ),
    (
        "github-token-header",
        f'curl -H "Authorization: token {GHP}" https://api.github.com/user',
        GHP,
        "github-token",
    ),
    (
        "gh-here-string",
        f"gh auth login --with-token <<< {GHP}",
        GHP,
        "github-token",
    ),
    (
        "docker-login",
        "docker login -u deploy -p d0ck3rHubP4ss registry.example.com",
        "d0ck3rHubP4ss",
        "password",
    ),
    (
        "basic-auth",
        "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' https://x.example",
        "dXNlcjpwYXNzd29yZA==",
        "basic-auth",
    ),
    (
        "export-api-key",
        "export API_KEY=a1b2c3d4e5f6g7h8i9j0",
        "a1b2c3d4e5f6g7h8i9j0",
        "generic-api-key",
    ),
    (
        "query-access-token",
        "curl 'https://api.example.com/data?access_token=abcd1234efgh5678ijkl'",
        "abcd1234efgh5678ijkl",
        "generic-api-key",
    ),
    (
        "wget-password",
        "wget --user=bob --password=wg3tP4ss https://example.com/f",
        "wg3tP4ss",
        "password",
    ),
    (
        "client-secret-form",
        "curl -d 'client_secret=CsEcReT123456' https://auth.example.com/token",
        "CsEcReT123456",
        "generic-api-key",
    ),
    (
        "kubectl-literal",
        "kubectl create secret generic db --from-literal=password=K8sP4ssw0rd",
        "K8sP4ssw0rd",
        "password",
    ),
    (
        "terraform-var",
        "terraform apply -var 'db_password=TfP4ssw0rd'",
        "TfP4ssw0rd",
        "password",
    ),
    ("redis-cli", "redis-cli -h cache -a r3d1sP4ssw0rd ping", "r3d1sP4ssw0rd", "password"),
    (
        "ldapsearch",
        "ldapsearch -x -D cn=admin,dc=x -w LdapPassw0rd -b dc=x",
        "LdapPassw0rd",
        "password",
    ),
    (
        "openssl-pass",
        "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:0pensslPass",
        "0pensslPass",
        "password",
    ),
    (
        "vault-token",
        "VAULT_ADDR=https://v.example vault login hvs.CAESIJabcdefghijklmnopqrstuvwxyz0123",
        "hvs.CAESIJabcdefghijklmnopqrstuvwxyz0123",
        "vault-token",
    ),
    (
        "nested-sh-c",
        "sh -c 'curl -u admin:n3st3dS3cret https://x.example'",
        "n3st3dS3cret",
        "password",
    ),
    (
        "heredoc-hole",
        "cat <<EOF\n$(curl -u admin:h0l3S3cret https://x.example)\nEOF",
        "h0l3S3cret",
        "password",
    ),
]


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in an encoded value."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def redactions(plan: ProgramPlan) -> list[dict[str, Any]]:
    """The ``redacted`` payloads anywhere in a plan's wire form."""
    data = msgspec.json.decode(msgspec.json.encode(plan))
    return [node["redacted"] for node in walk(data) if node.get("redacted") is not None]


def plan_ready(plan: ProgramPlan) -> PlanReady:
    return PlanReady(  # noqa: S604 -- `shell` is the event's field, not a subprocess flag
        seq=1,
        time="2025-01-01T00:00:00Z",
        call_id="call-1",
        previous="sha256:" + "0" * 64,
        digest="",
        shell=True,
        plan_digest=plan.digest,
        plan=plan,
    )


@pytest.mark.parametrize(
    ("command", "secret", "kind"), [c[1:] for c in SECRETS], ids=[c[0] for c in SECRETS]
)
def test_secret_never_appears_in_the_encoded_plan(command: str, secret: str, kind: str) -> None:
    plan = plan_program(command)
    assert plan.status == "measured", plan.reason
    assert secret not in msgspec.json.encode(plan).decode()
    assert secret.encode() not in msgspec.msgpack.encode(plan)
    assert secret not in msgspec.json.encode(plan_ready(plan)).decode()
    assert f"<{kind}>" in plan.source


@pytest.mark.parametrize(
    ("command", "secret", "kind"), [c[1:] for c in SECRETS], ids=[c[0] for c in SECRETS]
)
def test_redacted_plan_keeps_the_unredacted_digest(command: str, secret: str, kind: str) -> None:
    unredacted, _ = plan_statements(command)
    assert secret in msgspec.json.encode(unredacted).decode()
    published = plan_program(command)
    assert published.digest == unredacted.digest
    assert [s.digest for s in published.statements] == [s.digest for s in unredacted.statements]


PRIVATE_KEY_BLOCK = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"
)
# Where the pattern takes more than the sensitive part, the whole match is what is fingerprinted.
FINGERPRINTED = {
    "private-key-heredoc": PRIVATE_KEY_BLOCK,
    "slack-webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
}


@pytest.mark.parametrize(
    ("case", "command", "secret", "kind"), SECRETS, ids=[c[0] for c in SECRETS]
)
def test_redacted_value_has_the_kind_and_the_secrets_fingerprint(
    case: str, command: str, secret: str, kind: str
) -> None:
    found = redactions(plan_program(command))
    assert found
    assert all(FINGERPRINT.fullmatch(r["fingerprint"]) for r in found)
    ours = [r for r in found if r["fingerprint"] == fingerprint(FINGERPRINTED.get(case, secret))]
    assert ours, found
    assert {r["kind"] for r in ours} == {kind}


def test_redacted_values_display_their_kind_or_masked_text() -> None:
    plan = plan_program("mysql -u root -pSuperSecret99 shop --password=hunter2hunter2")
    command = plan.statements[0].plan.commands[0]
    assert [a.display for a in command.args] == [
        "-u",
        "root",
        "-p<password>",
        "shop",
        "--password=<password>",
    ]
    assert command.args[2].redacted is not None
    assert command.args[2].redacted.masked == "-p<password>"


def test_a_value_that_is_only_the_secret_has_no_masked_text() -> None:
    plan = plan_program("export GITHUB_TOKEN=x && curl -H @h " + GHP)
    last = plan.statements[0].plan.commands[-1].args[-1]
    assert last.redacted is not None
    assert (last.redacted.kind, last.redacted.masked, last.display) == (
        "github-token",
        None,
        "<github-token>",
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("curl -u admin:Shared-S3cret-1 x", "mysql -pShared-S3cret-1 db"),
        ("PGPASSWORD=Shared-S3cret-1 psql", "psql --password=Shared-S3cret-1"),
        (f"export GITHUB_TOKEN={GHP}", f"git clone https://x:{GHP}@github.com/o/r"),
        (
            "cat > .env <<'EOF'\nDB_PASSWORD=Shared-S3cret-1\nEOF",
            "sh -c 'mysql -pShared-S3cret-1 db'",
        ),
    ],
    ids=["curl-mysql", "env-option", "export-url", "heredoc-nested"],
)
def test_equal_secrets_in_different_commands_have_equal_fingerprints(
    first: str, second: str
) -> None:
    prints = [{r["fingerprint"] for r in redactions(plan_program(c))} for c in (first, second)]
    assert prints[0] & prints[1]


def test_different_secrets_have_different_fingerprints() -> None:
    one = redactions(plan_program("mysql -pFirstSecret1 db"))
    two = redactions(plan_program("mysql -pFirstSecret2 db"))
    assert {r["fingerprint"] for r in one}.isdisjoint(r["fingerprint"] for r in two)


# ───────────────────────── secrets outside PlannedValues ─────────────────────────

LEAKS = [
    ("repeated", "curl -u admin:R3peatedS3cret x && echo R3peatedS3cret", "R3peatedS3cret"),
    ("default-operand", "echo ${X:-R3peatedS3cret} --password=R3peatedS3cret", "R3peatedS3cret"),
    ("refused-option", "timeout --password=Opti0nS3cret 5 ls", "Opti0nS3cret"),
    ("refused-env-option", f"env --token={GHP} ls", GHP),
    ("shell-text-word", "watch 'mysql -pSuperSecret99 -e \"show tables\"'", "SuperSecret99"),
    ("command-name", f"{ANTHROPIC} --help", ANTHROPIC),
    ("launcher-refusal", f"sudo --askpass={GHP} ls", GHP),
    ("unmeasured", "curl -u admin:s3cr3tP4ssw0rd 'unterminated", "s3cr3tP4ssw0rd"),
]


@pytest.mark.parametrize(("command", "secret"), [c[1:] for c in LEAKS], ids=[c[0] for c in LEAKS])
def test_secret_is_masked_in_names_sentences_and_repeats(command: str, secret: str) -> None:
    """Strings that are not `PlannedValue`s (names, refusal sentences, reasons) are masked too,
    and so is every other literal copy of a secret the patterns found."""
    plan = plan_program(command)
    assert secret not in msgspec.json.encode(plan).decode()
    assert plan.digest == plan_statements(command)[0].digest


def test_blocked_fragment_holes_are_redacted() -> None:
    source = "cat <<EOF\nuser: $(curl -u admin:h0l3S3cret https://x.example)\nEOF"
    expansion = expand_fragment(source, FragmentAddr(statement=0, heredoc=0))
    assert expansion.blocked is not None
    encoded = msgspec.json.encode(expansion).decode()
    assert "h0l3S3cret" not in encoded
    assert "<password>" in expansion.blocked.holes[0].source


# ───────────────────────── no false positives ─────────────────────────

HARMLESS = [
    "grep -r password README.md",
    "echo $TOKEN",
    "git log --format=%H",
    'export TOKEN="$(cat token.txt)"',
    'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
    "mysql -u root -p shop",
    "ssh -p 22 deploy@host",
    "docker login -u me --password-stdin registry.example.com",
    "read -s PASSWORD",
    "grep -n api_key src/*.py",
    "sed -i 's/password/secret/' config.yml",
    "pytest -k test_password_reset",
    "cat /etc/passwd",
    "openssl genrsa -out key.pem 2048",
    "git clone https://github.com/org/repo.git",
    "curl https://user@example.com/",
    "mkdir -p build",
    "kubectl get secrets -n prod",
    "export PASSWORD_FILE=/run/secrets/db",
    'curl -u "$USER:$PASS" https://example.com',
    "docker run -e POSTGRES_PASSWORD postgres",
    "psql -h db -U app -W",
    'ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -N ""',
    'grep -E "sk-[a-z]+" app.log',
    "redis-cli -h cache ping",
    "python manage.py changepassword admin",
]


@pytest.mark.parametrize("command", HARMLESS)
def test_harmless_commands_stay_plain(command: str) -> None:
    plan = plan_program(command)
    assert plan.status == "measured", plan.reason
    assert redactions(plan) == []
    assert plan.source == command
    assert [s.plan.rendered for s in plan.statements] == [command]


def test_a_token_used_as_a_variable_name_is_masked_in_the_names() -> None:
    """In arithmetic a bare word is a variable name; a token written there must not leak."""
    token = "ghp_" + "a1B2" * 9
    plan = plan_program(f"echo $(( {token} + 1 ))")
    assert token not in msgspec.json.encode(plan).decode()
    assert plan.statements[0].plan.free_variables == ("<github-token>",)


# ───────────────────────── bounded, linear detection ─────────────────────────

from gateway._plan._redact import (  # noqa: E402 -- grouped with the tests that use them
    _ALL_NEEDLES,
    _ANY_NEEDLE,
    MAX_FINGERPRINTS,
    OVERFLOW_FINGERPRINT,
    Redactor,
    find_secrets,
    key_kind,
)

# Each of these made a pattern scan to the end of the text once per occurrence.
HOSTILE_SIZE = 60_000
QUADRATIC = {
    "mysql": "echo " + "mysql " * (HOSTILE_SIZE // 6),
    "docker-login": "echo " + "docker login " * (HOSTILE_SIZE // 13),
    "redis-cli": "echo " + "redis-cli " * (HOSTILE_SIZE // 10),
    "ldapsearch": "echo " + "ldapsearch " * (HOSTILE_SIZE // 11),
    "url-scheme-run": "echo " + "a." * (HOSTILE_SIZE // 2),
    "jwt-run": "echo " + "eyJ-" * (HOSTILE_SIZE // 4),
    "password-identifiers": "echo " + "password_" * (HOSTILE_SIZE // 9),
    "private-key-begins": "-----BEGIN RSA PRIVATE KEY-----\n" * (HOSTILE_SIZE // 32),
}


@pytest.mark.parametrize("text", QUADRATIC.values(), ids=QUADRATIC.keys())
def test_hostile_repetitions_are_read_in_one_pass(text: str) -> None:
    """Nothing is asserted on time (benchmarks/plan.py measures it); the old patterns took minutes."""
    secrets = find_secrets(text)
    assert all(0 <= s.start < s.end <= len(text) for s in secrets)


def test_a_program_option_is_a_secret_only_in_its_own_segment() -> None:
    assert [s.kind for s in find_secrets("mysql -u root -pS3cretValue db")] == ["password"]
    assert find_secrets("mysql -u root db; ls -pdir") == ()
    text = "mysql -pFirst1 db && mysql -pSecond2 db"
    assert [text[s.start : s.end] for s in find_secrets(text)] == ["First1", "Second2"]


def test_a_text_without_any_pattern_literal_runs_no_pattern() -> None:
    assert find_secrets("ls -la /tmp | sort | uniq -c") == ()


_NEEDLE_ALPHABET = "".join(sorted({c for n in _ALL_NEEDLES for c in n} | set("AZ _-\n")))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(sorted(_ALL_NEEDLES)).map(lambda n: n[: len(n) // 2 + 1])
        | st.sampled_from(sorted(_ALL_NEEDLES))
        | st.text(_NEEDLE_ALPHABET, max_size=6),
        max_size=8,
    ).map("".join)
)
def test_the_needle_prefilter_finds_a_needle_exactly_when_one_is_present(text: str) -> None:
    """The one-pass prefilter must never miss a needle the rules' own test would see."""
    lower = text.lower()
    present = any(needle in lower for needle in _ALL_NEEDLES)
    assert (_ANY_NEEDLE.search(lower) is not None) == present


KEYS = [
    "password",
    "DB_PASSWORD",
    "db-password",
    "passwd",
    "pass_word",
    "api_key",
    "apiKey",
    "x-api-key",
    "GITHUB_TOKEN",
    "client_secret",
    "aws_secret_access_key",
    "AWS_SECRET_ACCESS_KEY",
    "secret",
    "path",
    "user",
    "token_count",
    "keyboard",
    "password_hint",
    "",
]


@pytest.mark.parametrize("key", KEYS)
def test_key_kind_says_what_the_value_patterns_say_of_a_key(key: str) -> None:
    """A key names a secret exactly when ``KEY: value`` makes the value patterns find one there."""
    probe = "0123456789abcdefghij0123456789ABCDEFGHIJ"
    found = [s.kind for s in find_secrets(f"{key}: {probe}") if s.start == len(key) + 2]
    assert key_kind(key) == (found[0] if found else None)


def test_a_text_stuffed_with_secrets_fingerprints_a_bounded_number_of_them() -> None:
    tokens = [f"ghp_{i:04d}" + "a" * 32 for i in range(MAX_FINGERPRINTS + 10)]
    text = " ".join(tokens)
    redactor = Redactor(text)
    assert len(redactor.secrets) == len(tokens)
    prints = [redactor.value(s.start, s.end).redacted for s in redactor.secrets]
    assert all(p is not None for p in prints)
    values = [p.fingerprint for p in prints if p is not None]
    assert len(set(values[:MAX_FINGERPRINTS])) == MAX_FINGERPRINTS
    assert set(values[MAX_FINGERPRINTS:]) == {OVERFLOW_FINGERPRINT}


def test_cutting_values_finds_exactly_the_overlapping_secrets() -> None:
    text = " ".join(f"--password=Pw{i:03d}xyz" for i in range(300))
    redactor = Redactor(text)
    secrets = redactor.secrets
    for start in range(0, len(text), 37):
        end = min(len(text), start + 50)
        expected = [s for s in secrets if s.start < end and start < s.end]
        masked = redactor.mask(start, end)
        assert masked.count("<password>") == len(expected)


def test_scrub_masks_every_copy_in_one_pass() -> None:
    redactor = Redactor("mysql -pS3cretValue1 db && curl -u a:Other2Value9 x")
    assert redactor.scrub("S3cretValue1 and Other2Value9, S3cretValue1") == (
        "<password> and <password>, <password>"
    )
