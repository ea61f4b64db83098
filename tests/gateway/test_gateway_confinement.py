"""
Confinement as data: profiles in the config, the boundary of one call, where a
path lies in it (the one places query), and the verdict that carries it.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from gateway_rules import RulesApprover

from gateway import (
    ConfigError,
    Gateway,
    GatewayConfig,
    ToolCall,
    Verdict,
    default_config,
    load_config,
)
from gateway._calls._events import Event
from gateway._calls._places import PathsSection
from gateway._record._auditlog import encode_event
from gateway._review._boundary import confinement_problem, normal_path
from gateway._settings._tiers import effective_config, find_tiers
from gateway.config import default_profiles
from gateway.confinement import Confinement, Confining, Places, resolve_confinement
from gateway.events import VerdictReached

HOME = "/home/u"
WORK = "/work/app"
TMP = "/" + "tmp"  # the path the boundary is asked about, never a file this test makes


def _box(profile: str = "workspace-write", **given: object) -> Confinement:
    config = default_config()
    arguments: dict[str, object] = {
        "cwd": WORK,
        "home": HOME,
        "paths": config.paths,
        "search_path": f"{HOME}/.local/bin:{HOME}/.pyenv/shims:/usr/bin",
        **given,
    }
    box = resolve_confinement(profile, config.profile(profile).confinement, **arguments)  # type: ignore[arg-type]
    assert isinstance(box, Confinement), box
    return box


# ───────────────────────── profiles in the config ─────────────────────────


def test_the_built_in_profiles_are_defined_without_a_profiles_table() -> None:
    config = load_config(b"", name="empty.toml")
    assert config.profile_names == ("read-only", "workspace-write")
    assert config.profile("workspace-write") == default_profiles()["workspace-write"]
    assert config.profile("read-only").confinement.write == ()
    assert not config.profile("workspace-write").confinement.network


def test_a_config_adds_a_profile_and_keeps_the_built_in_ones() -> None:
    config = load_config(
        b'[profiles.online]\ndescription = "tests that fetch"\n'
        b'[profiles.online.confinement]\nwrite = ["{workspace}"]\nnetwork = true\n'
        b'environment = ["{standard}", "PIP_INDEX_URL"]\n',
        name="mine.toml",
    )
    assert config.profile_names == ("read-only", "workspace-write", "online")
    online = config.profile("online").confinement
    assert online.network
    assert online.read == ("{system}", "{toolchains}", "{workspace}")
    box = resolve_confinement("online", online, cwd=WORK, home=HOME, paths=config.paths)
    assert isinstance(box, Confinement)
    assert box.network
    assert "PIP_INDEX_URL" in box.environment
    assert "PATH" in box.environment


def test_an_undefined_profile_is_one_sentence_naming_those_defined() -> None:
    with pytest.raises(ConfigError) as raised:
        default_config().profile("sandboxed")
    message = str(raised.value)
    assert message.count(". ") == 0
    assert message.endswith(".")
    assert "'sandboxed'" in message
    assert "'read-only', 'workspace-write'" in message
    assert "[profiles.sandboxed]" in message


@pytest.mark.parametrize(
    ("table", "where", "says"),
    [
        ('read = ["src"]', "$.profiles.p.confinement", "absolute directories"),
        ('read = ["/work/../etc"]', "$.profiles.p.confinement", "'..'"),
        ('write = ["{system}"]', "$.profiles.p.confinement", "write cannot hold '{system}'"),
        ('write = ["/"]', "$.profiles.p.confinement", "write cannot hold '/'"),
        ('scratch = ["{workspace}"]', "$.profiles.p.confinement", "scratch cannot hold"),
        ('read = ["{home}"]', "$.profiles.p.confinement", "not a template"),
        ('read = ["/x/{workspace}"]', "$.profiles.p.confinement", "stands alone"),
        ('hide = ["id_rsa"]', "$.profiles.p.confinement", "patterns that start with"),
        ('protect = ["{secrets}"]', "$.profiles.p.confinement", "not its template"),
        ('environment = ["A B"]', "$.profiles.p.confinement", "variable names"),
        ('network = "yes"', "$.profiles.p.confinement.network", "Expected `bool`"),
        ("writes = []", "$.profiles.p.confinement", "unknown field `writes`"),
    ],
)
def test_a_bad_confinement_table_is_one_sentence_at_its_path(
    table: str, where: str, says: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(f"[profiles.p.confinement]\n{table}\n".encode(), name="bad.toml")
    message = str(raised.value)
    assert raised.value.path == where
    assert says in message
    assert message.startswith("Invalid config 'bad.toml' at ")
    assert message.endswith(".")
    assert "\n" not in message


def test_a_bad_profile_name_or_field_is_refused() -> None:
    with pytest.raises(ConfigError, match="lowercase letters"):
        load_config(b"[profiles.Mine]\n", name="bad.toml")
    with pytest.raises(ConfigError, match="unknown field `confinment`") as raised:
        load_config(b"[profiles.p]\nconfinment = {}\n", name="bad.toml")
    assert raised.value.path == "$.profiles.p"


# ───────────────────────── the boundary of one call ─────────────────────────


def test_workspace_write_resolves_to_absolute_roots() -> None:
    box = _box()
    assert box.write == (WORK,)
    assert box.workspace == (WORK,)
    assert box.home == HOME
    assert f"{HOME}/.pyenv" in box.read
    assert f"{HOME}/.local/bin" in box.read
    assert HOME in box.scratch
    assert TMP in box.scratch
    assert "/usr" in box.read
    assert HOME not in box.read
    assert f"{HOME}/.ssh/**" in box.hide
    assert "**/.env" in box.hide
    assert "**/.git/hooks/**" in box.protect
    assert "**/.agent-gateway.toml" in box.protect
    assert not box.network
    assert "PATH" in box.environment
    assert "GITHUB_TOKEN" not in box.environment
    assert all(not entry.startswith(("{", "~")) for entry in (*box.read, *box.hide, *box.protect))


def test_read_only_writes_nothing_real() -> None:
    box = _box("read-only")
    assert box.write == ()
    assert WORK in box.read


@pytest.mark.parametrize(
    ("cwd", "home", "says"),
    [
        (None, HOME, "no working directory"),
        ("/", HOME, "whole file system"),
        (HOME, HOME, "holds the home directory"),
        ("/home", HOME, "holds the home directory"),
        ("/etc", HOME, "system directory"),
        ("/usr/local/src", HOME, "system directory"),
    ],
)
def test_a_workspace_that_cannot_be_confined_says_why(
    cwd: str | None, home: str, says: str
) -> None:
    config = default_config()
    found = resolve_confinement(
        "workspace-write",
        config.profile("workspace-write").confinement,
        cwd=cwd,
        home=home,
        paths=config.paths,
    )
    assert isinstance(found, str)
    assert says in found


def test_a_project_in_the_home_or_a_temporary_directory_can_be_confined() -> None:
    assert confinement_problem((f"{HOME}/src/app",), HOME) is None
    assert confinement_problem((f"{TMP}/x",), HOME, (TMP,)) is None
    assert confinement_problem(("/srv/app",), HOME) is None
    assert confinement_problem(("/root/app",), "/root") is None
    assert confinement_problem(("/var/lib/app",), HOME) is not None


def test_a_project_root_joins_the_workspace() -> None:
    paths = msgspec.structs.replace(PathsSection(), project_roots=("/work/lib",))
    box = _box(paths=paths)
    assert box.write == (WORK, "/work/lib")


# ───────────────────────── where a path lies ─────────────────────────


@pytest.mark.parametrize(
    ("path", "place"),
    [
        (f"{WORK}/src/main.py", "writable"),
        (WORK, "writable"),
        (f"{WORK}/.git/hooks/pre-commit", "protected"),
        (f"{WORK}/.git/config", "protected"),
        (f"{WORK}/.envrc", "protected"),
        (f"{WORK}/.vscode/settings.json", "protected"),
        (f"{WORK}/.venv/lib/python3.12/site-packages/evil.pth", "protected"),
        (f"{WORK}/.agent-gateway.toml", "protected"),
        (f"{WORK}/.env", "hidden"),
        (f"{WORK}/deploy/server.pem", "hidden"),
        (f"{HOME}/.ssh/id_ed25519", "hidden"),
        (f"{HOME}/.ssh", "hidden"),
        (f"{HOME}/.aws/credentials", "hidden"),
        (f"{HOME}/.bashrc", "scratch"),
        (f"{HOME}/notes.txt", "scratch"),
        (f"{HOME}/.pyenv/versions/3.12/bin/python", "readable"),
        (f"{HOME}/.pyenv/.env", "hidden"),
        ("/usr/bin/python3", "readable"),
        ("/etc/passwd", "readable"),
        ("/etc/shadow", "hidden"),
        ("/proc/self/root/etc/passwd", "hidden"),
        ("/proc/1/environ", "hidden"),
        ("/proc/self/status", "readable"),
        ("/dev/null", "scratch"),
        ("/dev/fd/3", "scratch"),
        ("/dev/sda", "outside"),
        (f"{TMP}/build/x.o", "scratch"),
        ("/srv/data", "outside"),
        ("/home/other/x", "outside"),
        ("/work/other/x", "outside"),
        ("/", "outside"),
    ],
)
def test_places_says_where_a_path_lies(path: str, place: str) -> None:
    assert Places(_box()).place(path) == place


def test_read_only_makes_the_workspace_readable_and_nothing_writable() -> None:
    places = Places(_box("read-only"))
    assert places.place(f"{WORK}/src/main.py") == "readable"
    assert places.place(f"{WORK}/.env") == "hidden"
    assert places.place(f"{WORK}/.git/hooks/pre-commit") == "readable"


def test_dot_dot_climbs_only_out_of_places_that_are_there() -> None:
    places = Places(_box())
    assert places.place(f"{WORK}/src/../../app/x") == "writable"
    assert places.place(f"{WORK}/../../usr/bin/env") == "outside"  # through /work, not there
    # what cannot be seen may be a link to anywhere: climbing out of it proves nothing
    assert places.place(f"{HOME}/.ssh/../.bashrc") == "hidden"
    assert places.place("/srv/../usr/bin/env") == "outside"


def test_a_deeper_root_decides_and_write_wins_at_one_path() -> None:
    box = Confinement(profile="p", read=("/a", "/a/b/c"), write=("/a/b",), scratch=("/a/b",))
    places = Places(box)
    assert places.place("/a/x") == "readable"
    assert places.place("/a/b/x") == "writable"
    assert places.place("/a/b/c/x") == "readable"
    assert places.mounts() == (("/a", "readable"), ("/a/b", "writable"), ("/a/b/c", "readable"))


def test_places_asks_about_absolute_paths_only() -> None:
    with pytest.raises(ValueError, match="absolute"):
        Places(_box()).place("src/x")
    assert normal_path("/a//b/./c/../d/") == "/a/b/d"


# ───────────────────────── the verdict that carries it ─────────────────────────


def test_a_confined_allow_keeps_its_boundary_in_the_audit_record() -> None:
    box = _box()
    verdict = Verdict(
        decision="allow", reason="Allowed inside the boundary.", digest="sha256:0", confinement=box
    )
    assert verdict.boundary == box
    event = VerdictReached(call_id="c", verdict=verdict)
    for audit_format in ("jsonl", "msgpack"):
        record = encode_event(event, audit_format)
        decoded: Event = (
            msgspec.json.decode(record, type=Event)
            if audit_format == "jsonl"
            else msgspec.msgpack.decode(record[4:], type=Event)
        )
        assert isinstance(decoded, VerdictReached)
        assert decoded.verdict.boundary == box


def test_a_verdict_without_a_boundary_keeps_the_bytes_it_had() -> None:
    verdict = Verdict(decision="ask", reason="Asked.", digest="sha256:0")
    assert verdict.boundary is None
    assert verdict.confinement is msgspec.UNSET
    assert b"confinement" not in msgspec.json.encode(verdict)
    older = b'{"decision":"allow","reason":"r","digest":"d"}'
    assert msgspec.json.decode(older, type=Verdict).boundary is None


@pytest.mark.parametrize("decision", ["ask", "decline"])
def test_only_an_allow_carries_a_confinement(decision: str) -> None:
    with pytest.raises(ValueError, match="carries no confinement"):
        Verdict(decision=decision, reason="r", digest="d", confinement=_box())  # type: ignore[arg-type]
    with pytest.raises(msgspec.ValidationError, match="carries no confinement"):
        msgspec.json.decode(
            msgspec.json.encode(
                {"decision": decision, "reason": "r", "digest": "d", "confinement": _box()}
            ),
            type=Verdict,
        )


# ───────────────────────── allowed inside the boundary ─────────────────────────


async def _review(
    command: str,
    *,
    profile: str = "workspace-write",
    confining: Confining | None = None,
    cwd: str = WORK,
) -> Verdict:
    approver = RulesApprover({"profile": profile}, None)
    async with Gateway(GatewayConfig(), approvers=[approver], sinks={}) as gateway:
        return await gateway.review(
            ToolCall("Bash", {"command": command}, cwd=cwd), confining=confining
        )


@pytest.mark.anyio
@pytest.mark.parametrize(
    "command",
    ["python x.py", "pytest -q tests/", "make html", "npm test", "python -c 'print(1)'"],
)
async def test_code_the_rules_cannot_read_is_allowed_inside_the_workspace_write_boundary(
    command: str,
) -> None:
    inside = await _review(command, confining=Confining(profile="workspace-write"))
    assert inside.decision == "allow", inside.reason
    assert inside.boundary is not None
    assert inside.boundary.write == (WORK,)
    assert not inside.founded
    assert "only inside the workspace-write boundary" in inside.reason


@pytest.mark.anyio
async def test_a_caller_that_runs_nothing_confined_is_asked_instead() -> None:
    verdict = await _review("python x.py")
    assert verdict.decision == "ask"
    assert verdict.boundary is None
    assert "runs nothing inside a boundary" in verdict.reason
    assert verdict.reason.startswith("Asked about `python x.py`")


@pytest.mark.anyio
async def test_where_no_boundary_can_be_set_up_it_asks() -> None:
    confining = Confining(profile="workspace-write", unavailable="bubblewrap is not installed")
    for command in ("python x.py", "ls"):
        verdict = await _review(command, confining=confining)
        assert verdict.decision == "ask", command
        assert "not confinable here: bubblewrap is not installed" in verdict.reason


@pytest.mark.anyio
async def test_read_only_still_asks_about_code() -> None:
    verdict = await _review(
        "python x.py", profile="read-only", confining=Confining(profile="read-only")
    )
    assert verdict.decision == "ask"
    assert "code the rules cannot read" in verdict.reason


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("command", "named"),
    [
        ("python x.py && curl -s https://example.com", "curl"),
        ("python x.py > /srv/out.txt", "/srv/out.txt"),
        ("pip install -e .", "package index"),
    ],
)
async def test_what_needs_more_than_the_boundary_still_asks_naming_it(
    command: str, named: str
) -> None:
    verdict = await _review(command, confining=Confining(profile="workspace-write"))
    assert verdict.decision in ("ask", "decline"), verdict.reason
    assert named in verdict.reason


@pytest.mark.anyio
async def test_a_plain_allow_carries_the_boundary_only_for_a_confining_caller() -> None:
    bare = await _review("ls -la")
    assert bare.decision == "allow"
    assert bare.boundary is None
    inside = await _review("ls -la", confining=Confining(profile="workspace-write"))
    assert inside.decision == "allow"
    assert inside.boundary is not None


@pytest.mark.anyio
async def test_a_workspace_that_cannot_be_confined_is_asked_about() -> None:
    verdict = await _review("python x.py", confining=Confining(profile="workspace-write"), cwd="/")
    assert verdict.decision == "ask"
    assert "whole file system" in verdict.reason


def test_an_untrusted_project_config_cannot_widen_a_profile(tmp_path: Path) -> None:
    (tmp_path / ".agent-gateway.toml").write_text(
        '[profiles.workspace-write.confinement]\nnetwork = true\nwrite = ["{workspace}", "/home"]\n'
        '[profiles.open]\ncode = "confined"\n'
    )
    tiers = find_tiers(cwd=tmp_path, managed_file=tmp_path / "no-managed.toml", environ={})
    assert [tier.tier for tier in tiers] == ["user", "project"]
    config = effective_config(tiers).config
    assert config.profile("workspace-write") == default_profiles()["workspace-write"]
    assert "open" not in config.profile_names


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("./tests/runtests.py -v", "allow"),
        ("scripts/build.sh > build.log", "allow"),
        (f"{WORK}/bin/tool", "allow"),
        ("./run.sh > /srv/out.txt", "ask"),  # the redirect is still the rules'
        ("../other/run.sh", "ask"),  # not a program of the workspace
        ("/usr/local/bin/tool", "ask"),
    ],
)
async def test_a_program_of_the_workspace_runs_inside_the_boundary(
    command: str, decision: str
) -> None:
    inside = await _review(command, confining=Confining(profile="workspace-write"))
    assert inside.decision == decision, inside.reason
    if decision == "allow":
        assert "a program of the workspace" in inside.reason
        bare = await _review(command)
        assert bare.decision == "ask"
    read_only = await _review(
        command, profile="read-only", confining=Confining(profile="read-only")
    )
    assert read_only.decision == "ask"


@pytest.mark.anyio
async def test_a_completed_heredoc_body_that_runs_code_is_asked_about() -> None:
    """The host runs the completed call itself, unconfined: an allow only the boundary holds asks."""
    approver = RulesApprover({"profile": "workspace-write"}, None)
    async with Gateway(GatewayConfig(), approvers=[approver], sinks={}) as gateway:
        await gateway.review(
            ToolCall(
                "Bash",
                {"command": "bash <<EOF\npython x.py $(date +%s)\nEOF"},
                call_id="h",
                cwd=WORK,
            ),
            confining=Confining(profile="workspace-write"),
        )
        verdict = await gateway.answer("h", 0, 0, {0: "123"})
    assert verdict.decision == "ask", verdict.reason
    assert verdict.boundary is None
    assert "run by the host, unconfined" in verdict.reason
