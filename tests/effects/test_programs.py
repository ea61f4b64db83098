"""
What launchers, builtins and programs do, as effects; and what runs inside them.

Launchers are read with the launcher table, builtins by the planner, other
programs by their option tables (here, where a row's facts matter, by a test's
reader stating them). What nothing can read is ``opaque``. Shell text and
commands a program runs from its own words are planned in turn.
"""

# ruff: noqa: S108 -- the paths are planned, never opened: /tmp here is a value to classify

from __future__ import annotations

import pytest

from effects.support import CWD, effects_of, in_bash, number_sites, only, reader
from gateway._programs import ArgumentFact
from gateway.effects import (
    Bind,
    ChangeDirectory,
    Execute,
    Lifetime,
    Network,
    Opaque,
    Privilege,
    Read,
    ReadEnvironment,
    Write,
)
from gateway.plans import plan_program

# ───────────────────────── launchers ─────────────────────────


@pytest.mark.parametrize(
    ("source", "user"),
    [
        ("sudo rm -f x", "root"),
        ("sudo -u deploy make", "deploy"),
        ("sudo --user=deploy make", "deploy"),
        ("doas -u op ls", "op"),
        ("su - postgres -c 'psql -l'", "postgres"),
        ("runuser -u www ls", "www"),
        ('sudo -u "$WHO" ls', None),
    ],
)
def test_a_privileged_launcher_states_who_the_program_runs_as(
    source: str, user: str | None
) -> None:
    (privilege,) = only(effects_of(source), Privilege)
    assert privilege.user == user


def test_env_binds_unsets_moves_and_prints() -> None:
    effects = effects_of("env -u HOME -C /srv A=1 ls")
    assert [(b.name, b.via, b.text) for b in only(effects, Bind)] == [
        ("HOME", "unset", ""),
        ("A", "prefix", "1"),
    ]
    assert [c.path.value for c in only(effects, ChangeDirectory)] == ["/srv"]
    assert only(effects_of("env"), ReadEnvironment) == [ReadEnvironment(via="env")]
    assert only(effects_of("env -i"), ReadEnvironment) == [ReadEnvironment(via="env")]


def test_launcher_files_and_lifetimes() -> None:
    # (`time` as a keyword is not read; the program `/usr/bin/time` is a launcher.)
    assert [
        (w.path.value, w.via) for w in only(effects_of("/usr/bin/time -o t.txt ls"), Write)
    ] == [(f"{CWD}/t.txt", "time -o")]
    assert [w.action for w in only(effects_of("flock /var/lock/x -c make"), Write)] == ["create"]
    assert [(e.kind, e.via) for e in only(effects_of("nohup make &"), Lifetime)] == [
        ("detached", "nohup"),
        ("background", "&"),
    ]
    assert [e.kind for e in only(effects_of("setsid make"), Lifetime)] == ["detached"]
    assert [e.kind for e in only(effects_of("watch -n 1 ls"), Lifetime)] == ["unbounded"]


def test_a_timeout_bounds_what_would_never_end() -> None:
    assert [e.kind for e in only(effects_of("tail -f app.log"), Lifetime)] == ["unbounded"]
    assert only(effects_of("timeout 5 tail -f app.log"), Lifetime) == []


def test_xargs_runs_a_program_on_operands_from_standard_input() -> None:
    effects = effects_of("xargs -a list.txt rm -f")
    assert [(r.path.value, r.via) for r in only(effects, Read)] == [(f"{CWD}/list.txt", "xargs -a")]
    assert [(e.kind, e.via, e.text) for e in only(effects, Execute)] == [("program", "xargs", "rm")]
    # What rm is given arrives on a stream and may even be an option: its arguments are not read.
    assert any("the arguments of `rm` cannot be read" in o.reason for o in only(effects, Opaque))


def test_chroot_runs_the_program_where_its_paths_are_not_the_written_ones() -> None:
    effects = effects_of("chroot /srv/jail rm -f /etc/passwd")
    assert only(effects, Privilege) == [Privilege(via="chroot", user="root")]
    assert any("another root directory" in o.reason for o in only(effects, Opaque))


# ───────────────────────── builtins ─────────────────────────


@pytest.mark.parametrize(
    "source", ["set", "declare", "declare -p", "typeset -p", "export", "export -p", "env"]
)
def test_printing_the_whole_environment_is_a_read_of_it(source: str) -> None:
    assert only(effects_of(source), ReadEnvironment)


@pytest.mark.parametrize("source", ["declare -p PATH", "export A=1", "set -e"])
def test_printing_or_setting_named_variables_is_not(source: str) -> None:
    assert only(effects_of(source), ReadEnvironment) == []


@pytest.mark.parametrize(
    ("source", "variable"),
    [
        ("echo $AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
        ('curl -H "Authorization: token ${GITHUB_TOKEN}" https://x.example', "GITHUB_TOKEN"),
        ("echo ${DB_PASSWORD:0:4}", "DB_PASSWORD"),
        ("printenv API_KEY", "API_KEY"),
        ("declare -p AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
        ("typeset -p GH_TOKEN", "GH_TOKEN"),
        ("cat <<EOF\n$NPM_AUTH\nEOF", "NPM_AUTH"),
    ],
)
def test_reading_a_variable_named_as_a_secret_is_a_read_of_it(source: str, variable: str) -> None:
    assert [e.variable for e in only(effects_of(source), ReadEnvironment)] == [variable]


@pytest.mark.parametrize(
    "source",
    ['echo "$HOME" "$PATH"', "printenv HOME", "echo '$GITHUB_TOKEN'", "TOKEN=1; echo $TOKEN"],
)
def test_a_variable_not_named_as_a_secret_or_not_from_outside_is_not(source: str) -> None:
    assert only(effects_of(source), ReadEnvironment) == []


def test_reading_a_process_environment_file_is_a_read_of_an_environment() -> None:
    effects = effects_of("cat /proc/self/environ")
    assert only(effects, ReadEnvironment) == [ReadEnvironment(via="cat")]
    assert [r.path.classes for r in only(effects, Read)] == [("secret", "system")]


def test_builtins_with_no_account_of_their_own_are_opaque() -> None:
    assert only(effects_of("kill 1"), Opaque)
    assert only(effects_of("kill -l"), Opaque) == []
    assert only(effects_of("fc -s"), Opaque)


def test_enable_f_loads_code_into_the_shell() -> None:
    effects = effects_of("enable -f ./evil.so evil")
    assert [(e.kind, e.text) for e in only(effects, Execute)] == [("code", "./evil.so")]
    assert [r.path.value for r in only(effects, Read)] == [f"{CWD}/evil.so"]


def test_hash_p_changes_which_program_a_name_runs() -> None:
    (bind,) = only(effects_of("hash -p /tmp/evil ls"), Bind)
    assert (bind.name, bind.via, bind.text) == ("ls", "hash", "/tmp/evil")
    run = in_bash("hash -p /bin/echo ls; ls shadowed")
    assert run.stdout == b"shadowed\n"


# ───────────────────────── program facts ─────────────────────────


def test_every_fact_kind_becomes_an_effect() -> None:
    read = reader(
        ArgumentFact(kind="read", via="operand", index=0, value="in.txt"),
        ArgumentFact(kind="read", via="operand", index=0, value="in.txt", action="metadata"),
        ArgumentFact(kind="write", via="-o", index=1, value="out.txt", action="append"),
        ArgumentFact(
            kind="write", via="operand", index=2, value="tree", action="delete", recursive=True
        ),
        ArgumentFact(
            kind="write", via="prefix", index=3, value="part_", action="create", prefix=True
        ),
        ArgumentFact(kind="execute", via="--plugin", index=4, value="p.so", action="code"),
        ArgumentFact(
            kind="execute", via="core.fsmonitor", index=None, value=None, action="configured"
        ),
        ArgumentFact(
            kind="network", via="operand", index=5, value="https://10.0.0.5/x", action="connect"
        ),
        ArgumentFact(kind="network", via="operand", index=5, value=None, action="resolve"),
        ArgumentFact(kind="read_environment", via="env", index=None, value=None),
        ArgumentFact(kind="read_environment", via="ENVIRON", index=None, value="HOME"),
        ArgumentFact(kind="lifetime", via="--follow", index=None, value=None, action="unbounded"),
        ArgumentFact(kind="bind", via="-c", index=None, value="core.pager=less"),
    )
    effects = effects_of("tool in.txt out.txt tree part_ p.so https://10.0.0.5/x", arguments=read)
    assert [(r.path.value, r.metadata) for r in only(effects, Read)] == [
        (f"{CWD}/in.txt", False),
        (f"{CWD}/in.txt", True),
    ]
    assert [
        (w.path.value, w.action, w.recursive, w.path.pattern) for w in only(effects, Write)
    ] == [
        (f"{CWD}/out.txt", "append", False, False),
        (f"{CWD}/tree", "delete", True, False),
        (f"{CWD}/part_*", "create", False, True),
    ]
    assert [(e.kind, e.via, e.text, e.origin) for e in only(effects, Execute)] == [
        ("code", "tool --plugin", "p.so", "literal"),
        ("configured", "tool core.fsmonitor", None, "unknown"),
    ]
    assert [(n.kind, n.target, n.address) for n in only(effects, Network)] == [
        ("connect", "https://10.0.0.5/x", "private"),
        ("resolve", None, "unknown"),
    ]
    assert only(effects, ReadEnvironment) == [ReadEnvironment(via="tool env")]
    assert [e.kind for e in only(effects, Lifetime)] == ["unbounded"]
    assert [(b.name, b.via, b.text) for b in only(effects, Bind)] == [
        ("core.pager", "setting", "less")
    ]


@pytest.mark.parametrize(
    ("source", "clause"),
    [
        ("mytool --fast", "`mytool` has no option table"),
        ("sort --frobnicate x", "`sort` is given the option `--frobnicate`"),
        ("cat $FILES", "the arguments of `cat` cannot be read"),
        ("env --frobnicate ls", "which its launcher table row does not declare"),
        ("$CMD -rf /", "the program comes from an expansion"),
    ],
)
def test_what_nothing_can_read_is_opaque(source: str, clause: str) -> None:
    opaque = only(effects_of(source), Opaque)
    assert any(clause in o.reason for o in opaque), opaque


def test_a_variable_a_program_reads_as_code_runs_when_the_call_binds_it() -> None:
    read = reader(environment=("PAGER",))
    for source in ("PAGER='sh -c id' man ls", "export PAGER='sh -c id'; man ls"):
        effects = effects_of(source, arguments=read)
        (code,) = [e for e in only(effects, Execute) if e.via == "man reads $PAGER"]
        assert (code.kind, code.text) == ("code", "sh -c id"), source
    assert only(effects_of("man ls", arguments=read), Execute) == []


def test_a_derived_path_stays_on_the_resolved_word() -> None:
    """``gzip ~/f`` writes ``~/f.gz``: the reader derives it from the stand-in ``~/f``."""
    assert [w.path.value for w in only(effects_of("gzip ~/notes"), Write)] == [
        "~/notes",
        "~/notes.gz",
    ]


# ───────────────────────── what runs inside ─────────────────────────


def test_find_exec_is_planned_from_its_own_words_with_the_found_path_unknown() -> None:
    plan = plan_program("find . -name '*.tmp' -exec rm -f {} +", cwd=CWD)
    (find,) = plan.statements[0].plan.commands
    (nested,) = find.nested
    assert (nested.via, nested.status) == ("find -exec", "measured")
    (rm,) = nested.plans[0].commands
    assert [(w.path.value, w.action) for w in only(rm.effects, Write)] == [(None, "delete")]
    assert [(e.kind, e.via) for e in only(find.effects, Execute)] == [("program", "find -exec")]


def test_find_execdir_runs_where_the_text_does_not_show() -> None:
    plan = plan_program("find . -execdir sh -c 'echo x > out' \\;", cwd=CWD)
    (nested,) = plan.statements[0].plan.commands[0].nested
    (inner,) = nested.plans[0].commands[0].nested
    (echo,) = inner.plans[0].commands
    assert [w.path.value for w in only(echo.effects, Write)] == [None]


@pytest.mark.parametrize(
    ("source", "via", "classes"),
    [
        ("bash -lc 'cat ~/.ssh/id_rsa'", "bash -c", ("home", "secret")),
        ("sh -c 'cd /etc && cat shadow'", "sh -c", ("secret", "system")),
        ("bash <<'EOF'\ncat ~/.aws/credentials\nEOF", "bash <<'EOF'", ("home", "secret")),
        ("sh <<< 'cat .env'", "sh <<<", ("workspace", "secret")),
        ("eval 'cat ~/.netrc'", "eval", ("home", "secret")),
        ("env -S 'cat .env'", "env -S", ("workspace", "secret")),
    ],
)
def test_shell_text_is_planned_with_its_effects(
    source: str, via: str, classes: tuple[str, ...]
) -> None:
    effects = effects_of(source)
    assert [(e.kind, e.via) for e in only(effects, Execute)][:1] == [("shell_text", via)]
    assert [r.path.classes for r in only(effects, Read)] == [classes]


def test_eval_runs_in_this_shell_and_text_it_cannot_show_makes_everything_unknown() -> None:
    assert not [o for _, _, o in number_sites("eval 'x=5'; echo $((x))") if o == "unknown"]
    assert ("number", "x", "unknown") in number_sites('x=5; eval "$c"; echo $((x))')
    effects = effects_of('eval "$c"; echo x > f')
    assert [w.path.value for w in only(effects, Write)] == [None]


def test_a_script_or_a_sourced_file_is_read_and_unknown() -> None:
    effects = effects_of("bash deploy.sh")
    assert [r.path.value for r in only(effects, Read)] == [f"{CWD}/deploy.sh"]
    assert [(e.kind, e.origin) for e in only(effects, Execute)] == [("shell_text", "unknown")]
    effects = effects_of(". ./env.sh; echo x > f")
    assert [r.path.value for r in only(effects, Read)] == [f"{CWD}/env.sh"]
    assert [w.path.value for w in only(effects, Write)] == [None]


def test_a_call_of_a_function_the_call_defines_runs_its_body() -> None:
    effects = effects_of("deploy() { rm -rf build; }; deploy")
    assert [(e.kind, e.via, e.text) for e in only(effects, Execute)] == [
        ("program", "function", "deploy")
    ]
    assert [b.name for b in only(effects, Bind) if b.via == "function"] == ["deploy"]
