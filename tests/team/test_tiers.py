"""
Configuration tiers: managed, user and project combine so that the strictest wins.

A project's file may be written by the agent the gateway guards, so unless
a higher tier trusts it, it may only tighten: it can shorten a timeout, add a
decline, read more tools as shells — and nothing it writes can add an allow,
point the hook elsewhere, add a sink or a notifier, or turn shadow mode on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway import ConfigError
from gateway._settings._config import DEFAULT_SHELL_TOOLS, default_config_bytes
from gateway.fleet import (
    PROJECT_FILE,
    Tier,
    effective_config,
    find_tiers,
    managed_file_problem,
    merge_tiers,
    tier_of,
)

USER = b"""
[gateway]
approvers = ["rules", "human"]
approver-timeout = 10.0

[serve]
human-timeout = 300
allowed-origins = ["https://a.example", "https://b.example"]

[approver.rules]
include-default = false

[[approver.rules.rule]]
id = "make.test"
decision = "allow"
programs = ["make"]
subcommands = ["test"]
reason = "runs the tests"

[[approver.rules.rule]]
id = "git.push"
decision = "ask"
programs = ["git"]
subcommands = ["push"]
reason = "publishes commits"
"""


def tier(name: str, data: bytes) -> Tier:
    return tier_of(name, data, source=f"the {name} file")  # type: ignore[arg-type]


def rules_of(table: dict[str, Any]) -> dict[str, str]:
    rules = table["approver"]["rules"]["rule"]
    return {rule["id"]: rule["decision"] for rule in rules}


def test_keys_with_an_order_of_strictness_take_the_strictest_value() -> None:
    managed = tier(
        "managed",
        b'[gateway]\napprover-timeout = 20.0\nmode = "shadow"\n[serve]\nhuman-timeout = 600\nallowed-origins = ["https://b.example"]\nprotect-reads = true\n',
    )
    user = tier("user", USER + b"[tiers]\n")
    combined = effective_config([managed, user])
    assert combined.config.gateway.approver_timeout == 10.0
    assert combined.config.serve.human_timeout == 300.0
    assert combined.config.serve.allowed_origins == ("https://b.example",)
    assert combined.config.serve.protect_reads is True
    assert combined.config.gateway.mode == "shadow"  # Only the managed tier says.
    assert combined.provenance["gateway.approver-timeout"] == (
        "strictest of managed (the managed file), user (the user file)"
    )


def test_rules_are_pooled_and_a_rule_two_tiers_define_keeps_the_stricter_decision() -> None:
    managed = tier(
        "managed",
        b'[[approver.rules.rule]]\nid = "make.test"\ndecision = "decline"\nprograms = ["make"]\nreason = "not here"\n',
    )
    user = tier(
        "user",
        USER
        + b'\n[[approver.rules.rule]]\nid = "extra.allow"\ndecision = "allow"\nprograms = ["true"]\nreason = "does nothing"\n',
    )
    table, provenance = merge_tiers([user, managed])
    rules = rules_of(table)
    ours = {"make.test": "decline", "git.push": "ask", "extra.allow": "allow"}
    assert {key: rules[key] for key in ours} == ours
    # The managed tier does not say `include-default = false`: the default policy counts.
    assert rules["read.look"] == "allow"
    assert provenance["approver.rules.rule[make.test]"] == "managed (the managed file)"
    alone = tier("user", USER)  # It says `include-default = false`.
    assert "read.look" not in rules_of(merge_tiers([alone])[0])
    # The other way round too: a user's decline beats a managed allow of the same id.
    loose = tier(
        "managed",
        b'[[approver.rules.rule]]\nid = "git.push"\ndecision = "allow"\nprograms = ["git"]\nreason = "ok"\n',
    )
    table, _ = merge_tiers([loose, user])
    assert rules_of(table)["git.push"] == "ask"


def test_an_untrusted_project_may_only_tighten() -> None:
    project = tier(
        "project",
        b"""
[gateway]
approver-timeout = 3.0
mode = "shadow"
approvers = []

[serve]
human-timeout = 9000

[hook]
socket = "/tmp/evil.sock"

[sinks.leak]
plugin = "jsonl"
path = "/tmp/leak.jsonl"

[notifiers.leak]
plugin = "webhook"

[tiers]
trust-project = true

[[shell-tools]]
tool = "run_code"
fields = ["code"]

[[approver.rules.rule]]
id = "project.anything"
decision = "allow"
programs = ["curl"]
reason = "the project says so"

[[approver.rules.rule]]
id = "project.no-deploy"
decision = "decline"
programs = ["make"]
subcommands = ["deploy"]
reason = "deploys go through CI"
""",
    )
    combined = effective_config([tier("user", USER), project])
    config = combined.config
    assert config.gateway.approver_timeout == 3.0  # tightened
    assert config.gateway.mode == "enforce"  # shadow would loosen
    assert config.serve.human_timeout == 300.0  # a longer wait would loosen
    assert config.gateway.approvers == ("rules", "human")
    assert config.hook.socket is None
    assert "leak" not in config.sinks
    assert "leak" not in config.notifiers
    assert config.tiers.trust_project is False
    assert {tool.tool for tool in config.shell_tools} >= {"Bash", "run_code"}
    rules = rules_of(combined.table)
    assert rules["project.no-deploy"] == "decline"
    assert "project.anything" not in rules
    assert combined.provenance["approver.rules.rule[project.anything]"].startswith(
        "dropped: an allow from project"
    )
    assert combined.provenance["hook.socket"].startswith("ignored: set by project")
    assert combined.provenance["gateway.mode"].endswith("and the default")


def test_a_project_a_higher_tier_trusts_may_add_allows_and_keys() -> None:
    project = tier(
        "project",
        b'[hook]\nsocket = "/run/gateway.sock"\n[[approver.rules.rule]]\nid = "project.npm-test"\ndecision = "allow"\nprograms = ["npm"]\nsubcommands = ["test"]\nreason = "runs the tests"\n',
    )
    user = tier("user", USER + b"[tiers]\ntrust-project = true\n")
    combined = effective_config([user, project])
    assert rules_of(combined.table)["project.npm-test"] == "allow"
    assert combined.config.hook.socket == "/run/gateway.sock"


def test_the_default_shell_tools_stay_when_only_a_project_adds_one() -> None:
    project = tier("project", b'[[shell-tools]]\ntool = "run"\nfields = ["cmd"]\n')
    config = effective_config([tier("user", b"[gateway]\n"), project]).config
    assert {tool.tool for tool in config.shell_tools} == {
        *(tool.tool for tool in DEFAULT_SHELL_TOOLS),
        "run",
    }


def test_every_tier_must_be_a_valid_config_on_its_own() -> None:
    with pytest.raises(ConfigError, match=r"the project file.*unknown field `retries`"):
        tier("project", b"[gateway]\nretries = 3\n")


def test_find_tiers_reads_the_user_file_and_the_nearest_project_file(tmp_path: Path) -> None:
    user_dir = tmp_path / "config" / "agent-gateway"
    user_dir.mkdir(parents=True)
    (user_dir / "config.toml").write_bytes(USER)
    project = tmp_path / "repo"
    (project / "src" / "deep").mkdir(parents=True)
    (project / PROJECT_FILE).write_bytes(b"[gateway]\napprover-timeout = 2.0\n")
    tiers = find_tiers(
        cwd=project / "src" / "deep",
        environ={"XDG_CONFIG_HOME": str(tmp_path / "config")},
        managed_file=tmp_path / "no-managed.toml",
    )
    assert [(t.tier, t.source) for t in tiers] == [
        ("user", str(user_dir / "config.toml")),
        ("project", str(project / PROJECT_FILE)),
    ]
    assert effective_config(tiers).config.gateway.approver_timeout == 2.0
    # No user file: the embedded default is the user tier.
    tiers = find_tiers(
        cwd=None, environ={"XDG_CONFIG_HOME": str(tmp_path / "none")}, managed_file=tmp_path / "x"
    )
    assert [(t.tier, t.source) for t in tiers] == [("user", "the embedded default")]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs files owned by root")
def test_a_managed_file_anyone_but_root_could_change_is_refused(tmp_path: Path) -> None:
    root_only = tmp_path / "etc"
    root_only.mkdir(mode=0o755)
    managed = root_only / "managed.toml"
    managed.write_bytes(b'[gateway]\nmode = "enforce"\n')
    managed.chmod(0o644)
    tmp_path.chmod(0o755)
    # /tmp itself is writable by all, but sticky: what root owns in it stays root's.
    assert managed_file_problem(managed) is None
    assert find_tiers(cwd=None, managed_file=managed)[0].tier == "managed"
    managed.chmod(0o666)
    assert managed_file_problem(managed) == f"{managed} is writable by others than root"
    with pytest.raises(ConfigError, match=r"is refused: .* is writable by others than root"):
        find_tiers(cwd=None, managed_file=managed)
    managed.chmod(0o644)
    root_only.chmod(0o777)
    assert managed_file_problem(managed) == f"{root_only} is writable by others than root"
    root_only.chmod(0o755)
    os.chown(managed, 1000, 1000)
    assert managed_file_problem(managed) == f"{managed} belongs to uid 1000, not root"


def test_config_show_prints_the_effective_config_and_where_each_part_came_from(
    tmp_path: Path,
) -> None:
    user = tmp_path / "user.toml"
    user.write_bytes(USER)
    (tmp_path / PROJECT_FILE).write_bytes(
        b'[gateway]\napprover-timeout = 4.0\n[[approver.rules.rule]]\nid = "p.rm"\ndecision = "decline"\nprograms = ["rm"]\nreason = "no"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "config", "show", "--config", str(user)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [t["tier"] for t in shown["tiers"]] == ["user", "project"]
    assert shown["tiers"][0]["source"] == str(user)
    assert shown["tiers"][1]["sha256"].startswith("sha256:")
    assert shown["config"]["gateway"]["approver-timeout"] == 4.0
    assert shown["sources"]["gateway.approver-timeout"].startswith("strictest of user (")
    assert shown["sources"]["approver.rules.rule[p.rm]"] == (f"project ({tmp_path / PROJECT_FILE})")
    assert shown["sources"]["approver.rules.rule[make.test]"] == f"user ({user})"


def test_the_keys_that_choose_the_signing_key_come_from_one_tier() -> None:
    # The embedded default makes and signs with a key of its own; a managed
    # tier that chooses an HMAC secret (or a key of its own, made elsewhere)
    # replaces that choice whole instead of being combined with it.
    default = tier_of("user", default_config_bytes(), source="the embedded default")
    hmac = tier("managed", b'[audit]\nhmac-key = "/etc/agent-gateway/audit.secret"\n')
    combined = effective_config([hmac, default])
    audit = combined.config.audit
    assert (audit.hmac_key, audit.signing_key, audit.create_key) == (
        "/etc/agent-gateway/audit.secret",
        None,
        False,
    )
    assert "chooses the key" in combined.provenance["audit.signing-key"]
    managed_key = tier("managed", b'[audit]\nsigning-key = "/etc/agent-gateway/audit.pem"\n')
    audit = effective_config([managed_key, default]).config.audit
    assert (audit.signing_key, audit.create_key) == ("/etc/agent-gateway/audit.pem", False)
    # The harmless twin: alone, the embedded default makes its key in the state directory.
    audit = effective_config([default]).config.audit
    assert (audit.signing_key, audit.create_key, audit.hmac_key) == ("audit-key.pem", True, None)


def test_an_untrusted_project_cannot_move_the_key_or_the_witness(tmp_path: Path) -> None:
    default = tier_of("user", default_config_bytes(), source="the embedded default")
    project = tier(
        "project",
        b"[audit]\n"
        b'signing-key = "keys/forged.pem"\n'
        b"create-key = true\n"
        b"checkpoint-every = 1000000\n"
        b"[witnesses.local]\n"
        b'plugin = "file"\n'
        b'path = "/tmp/agent-witness.jsonl"\n'
        b"[witnesses.mine]\n"
        b'plugin = "file"\n'
        b'path = "/tmp/mine.jsonl"\n'
        b"[sinks.audit]\n"
        b'plugin = "jsonl"\n'
        b'path = "/tmp/agent-log.jsonl"\n',
    )
    combined = effective_config([default, project])
    config = combined.config
    assert (config.audit.signing_key, config.audit.create_key) == ("audit-key.pem", True)
    assert config.audit.checkpoint_every == 1000
    assert {name: witness.path for name, witness in config.witnesses.items()} == {
        "local": "gateway-witness.jsonl"
    }
    assert config.sinks["audit"].path == "gateway-audit.jsonl"
    assert combined.provenance["witnesses.mine.path"].startswith("ignored: set by project")
    for key in ("audit.signing-key", "audit.create-key", "witnesses.local.path"):
        assert combined.provenance[key] == "user (the embedded default)", key
    # Without the embedded default's key, the project still cannot name one.
    bare = tier("user", b"[gateway]\n")
    assert effective_config([bare, project]).config.audit.signing_key is None
