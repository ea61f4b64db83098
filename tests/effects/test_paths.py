"""
Paths in effects are values, not spellings: resolved, normalised, placed, classified.

Quotes are removed, ``~`` and ``$HOME`` resolved, ``.``/``..``/``//``
folded, and the result joined to the effective working directory — the
call's, then every ``cd``/``pushd``/``popd`` in order, subshells and
pipeline stages restoring it, ``git -C``/``make -C``/``tar -C`` moving one
program. Where bash runs the text confined, the files it touched are the
files the plan named.
"""

# ruff: noqa: S108 -- the paths are planned, never opened: /tmp here is a value to classify

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from effects.support import CWD, HOME, PATHS, effects_of, in_bash, only, planned_in, reader
from gateway._calls._places import PathsSection
from gateway._plan._paths import (
    HOME as PATH_HOME,
    ROOT as PATH_ROOT,
    PathContext,
    normalise,
    path_context,
)
from gateway._programs import ArgumentFact
from gateway.effects import ChangeDirectory, EffectPath, Opaque, Read, Write


def _written(source: str, paths: PathContext = PATHS) -> list[tuple[str | None, tuple[str, ...]]]:
    return [(w.path.value, w.path.classes) for w in only(effects_of(source, paths), Write)]


def _read(source: str, paths: PathContext = PATHS) -> list[tuple[str | None, tuple[str, ...]]]:
    return [(r.path.value, r.path.classes) for r in only(effects_of(source, paths), Read)]


# ───────────────────────── values ─────────────────────────


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ('cat ~/".bashrc"', "~/.bashrc"),
        ("cat ~/'.ssh'/id_ed25519", "~/.ssh/id_ed25519"),
        ('cat "$HOME/.netrc"', "~/.netrc"),
        ("cat ${HOME}/.aws/credentials", "~/.aws/credentials"),
        ("cat $'\\x2fetc/shadow'", "/etc/shadow"),
        ("cat /etc//./passwd", "/etc/passwd"),
        ("cat ./src/../README.md", f"{CWD}/README.md"),
        ("cat ../../../../etc/hosts", "/etc/hosts"),
        ("cat $PWD/notes", f"{CWD}/notes"),
        ("d=~/.kube; cat $d/config", "~/.kube/config"),
        ("cat $'\\x7e'/x", f"{CWD}/~/x"),
        ("cat '~'/x", f"{CWD}/~/x"),
        (f"cat {HOME}/.gitconfig", "~/.gitconfig"),
    ],
)
def test_a_path_is_the_value_bash_opens(source: str, value: str) -> None:
    assert [v for v, _ in _read(source)] == [value]


@pytest.mark.parametrize(
    "source",
    ['cat "$X"', "cat ~root/.ssh/id_rsa", "cat $(pwd)/x", "cat $RANDOM", "cat ${d:-x}"],
)
def test_a_path_the_text_does_not_show_is_unknown_never_guessed(source: str) -> None:
    """An unknown path, or, where the word might even be an option, arguments not read at all."""
    effects = effects_of(source)
    reads = [(r.path.value, r.path.classes) for r in only(effects, Read)]
    assert reads in ([(None, ("unknown",))], [])
    if not reads:
        assert only(effects, Opaque), source


def test_a_quoted_tilde_is_a_directory_named_tilde_as_bash_finds() -> None:
    source = "echo x > $'\\x7e'/f; echo y > ~/f"
    run = in_bash(source, files={"~/.keep": ""})
    assert run.files["~/f"] == b"x\n"
    assert run.home["f"] == b"y\n"
    values = [w.path.value for w in only(planned_in(run, source), Write)]
    assert values == [f"{run.workdir}/~/f", "~/f"]


def test_a_tilde_after_the_equals_of_an_argument_is_the_home_as_bash_expands_it() -> None:
    """Outside POSIX mode bash expands ``~`` in an argument shaped like an assignment."""
    source = "dd if=/dev/null of=~/f; ls a=b:~/g"
    run = in_bash(source)
    home = run.home_path
    assert run.logged == (("dd", "if=/dev/null", f"of={home}/f"), ("ls", f"a=b:{home}/g"))
    effects = planned_in(run, source)
    assert [w.path.value for w in only(effects, Write)] == ["~/f"]
    assert f"{run.workdir}/a=b:{home}/g" in [r.path.value for r in only(effects, Read)]


@pytest.mark.parametrize("operand", ['"of=~/f"', "of=\\~/f", "of='~'/f", "o-f=~/f"])
def test_a_tilde_bash_leaves_in_an_argument_is_a_name(operand: str) -> None:
    source = f"dd if=/dev/null {operand}"
    run = in_bash(source)
    assert run.logged[0][2].endswith("=~/f")
    assert not [w for w in only(planned_in(run, source), Write) if "home" in w.path.classes]


# ───────────────────────── the effective working directory ─────────────────────────


@pytest.mark.parametrize(
    ("source", "values"),
    [
        ("cd ~ && echo x > Documents", ["~/Documents"]),
        ("cd /tmp && echo x > f", ["/tmp/f"]),
        ("cd /tmp; echo x > f", ["/tmp/f", f"{CWD}/f"]),  # `cd` may fail before `;`
        ("cd /tmp || echo x > f", [f"{CWD}/f"]),  # runs only when `cd` failed
        ("(cd /tmp && echo a > f); echo b > g", ["/tmp/f", f"{CWD}/g"]),
        ("cd /tmp | cat; echo x > f", [f"{CWD}/f"]),  # a pipeline stage is a subshell
        ("echo $(cd /tmp) > f", [f"{CWD}/f"]),
        ("cd sub && { cd ..; echo x > f; }", [f"{CWD}/f", f"{CWD}/sub/f"]),
        ("pushd /tmp && popd && echo x > f", [f"{CWD}/f"]),
        ("cd /a && cd /b && cd - && echo x > f", ["/a/f"]),
        ("cd && echo x > f", ["~/f"]),
        ('cd "$d" && echo x > f', [None]),
        ("if true; then cd /a; fi; echo x > f", ["/a/f", f"{CWD}/f"]),
        ("f() { cd /; }; f; echo x > g", [None]),
        ("HOME=/srv; cd ~ && echo x > f", ["/srv/f"]),
    ],
)
def test_relative_paths_resolve_against_the_effective_working_directory(
    source: str, values: list[str | None]
) -> None:
    assert [v for v, _ in _written(source)] == values


PHYSICAL = [
    # (a climb from where `cd -P` led, bash's logical twin)
    ("cd -P lnk/.. && echo x > f", "cd lnk/.. && echo x > f"),
    ("cd -P lnk && cd .. && echo x > f", "cd lnk && cd .. && echo x > f"),
    ("cd lnk && cd -P .. && echo x > f", "cd lnk && cd -L .. && echo x > f"),
    ("cd -P lnk && (cd .. && echo x > f)", "cd -L lnk && (cd .. && echo x > f)"),
    (
        "cd -P lnk && /bin/bash -c 'cd .. && echo x > f'",
        "cd lnk && /bin/bash -c 'cd .. && echo x > f'",
    ),
]


@pytest.mark.parametrize(("physical", "logical"), PHYSICAL, ids=[p for p, _ in PHYSICAL])
def test_a_climb_after_cd_P_is_from_where_the_link_led(physical: str, logical: str) -> None:
    """``cd -P``: bash resolves the links, and ``..`` climbs from where one led; logical ``..`` is lexical."""
    setup = "/bin/mkdir -p far/in w && /bin/ln -s ../far/in w/lnk && cd w && "
    assert "far/f" in in_bash(setup + physical).files
    assert "w/f" in in_bash(setup + logical).files
    assert [v for v, _ in _written(physical)] == [None]
    assert [v for v, _ in _written(logical)] == [f"{CWD}/f"]


def test_a_move_to_a_whole_path_after_cd_P_is_known_again() -> None:
    assert [v for v, _ in _written("cd -P lnk && cd /srv/app && cd .. && echo x > f")] == ["/srv/f"]
    assert [v for v, _ in _written("cd -P lnk && echo x > f")] == [f"{CWD}/lnk/f"]


def test_cd_home_then_a_delete_deletes_in_the_home_directory() -> None:
    """``cd ~ && rm -rf Documents`` (with ``rm``'s table): a recursive delete of ``~/Documents``."""
    (delete,) = only(effects_of("cd ~ && rm -rf Documents"), Write)
    assert (delete.path.value, delete.path.classes, delete.action, delete.recursive) == (
        "~/Documents",
        ("home",),
        "delete",
        True,
    )
    run = in_bash("cd ~ && echo x > Documents")  # the same resolution, proved with a write
    assert run.home == {"Documents": b"x\n"}


def test_the_changes_of_directory_are_effects_of_their_own() -> None:
    effects = effects_of("cd /etc && cd ../tmp")
    assert [(c.via, c.path.value) for c in only(effects, ChangeDirectory)] == [
        ("cd", "/etc"),
        ("cd", "/tmp"),
    ]


def test_a_cwd_fact_moves_the_later_paths_of_that_command_only() -> None:
    """``git -C DIR``/``make -C DIR``: a reader's ``cwd`` fact; here a test's reader states one."""
    read = reader(
        ArgumentFact(kind="write", via="--log", index=0, value="before.log", action="write"),
        ArgumentFact(kind="cwd", via="-C", index=1, value="/srv/app"),
        ArgumentFact(kind="write", via="operand", index=2, value="out", action="write"),
    )
    effects = effects_of("tool before.log /srv/app out; echo x > after", arguments=read)
    assert [w.path.value for w in only(effects, Write)] == [
        f"{CWD}/before.log",
        "/srv/app/out",
        f"{CWD}/after",
    ]
    assert [c.path.value for c in only(effects, ChangeDirectory)] == ["/srv/app"]


def test_tar_c_with_the_real_table() -> None:
    effects = effects_of("tar -C /tmp/out -xzf a.tgz")
    assert [c.path.value for c in only(effects, ChangeDirectory)] == ["/tmp/out"]
    assert ("/tmp/out", ("temp",)) in _written("tar -C /tmp/out -xzf a.tgz")


def test_a_launcher_moves_the_program() -> None:
    effects = effects_of("env -C /srv/www rm -f index.html; sudo -D /opt rm -f x")
    assert [w.path.value for w in only(effects, Write)] == ["/srv/www/index.html", "/opt/x"]


def test_an_unknown_working_directory_resolves_relative_paths_relative() -> None:
    paths = PathContext()
    assert _written("echo x > notes", paths) == [("./notes", ("workspace",))]
    assert _written("cd .. && echo x > notes", paths) == [("./../notes", ("other",))]


# ───────────────────────── classes ─────────────────────────


@pytest.mark.parametrize(
    ("source", "classes"),
    [
        ("echo x > build/out.txt", ("workspace",)),
        ("echo x > /tmp/scratch", ("temp",)),
        ("echo x > /var/tmp/scratch", ("temp",)),
        ("echo x > ~/notes.txt", ("home",)),
        ("echo x > ~/.ssh/authorized_keys", ("home", "secret", "persistence")),
        ("echo x > .env", ("workspace", "secret")),
        ("echo x > config/.env.local", ("workspace", "secret")),
        ("echo x > deploy.pem", ("workspace", "secret")),
        ("echo x > .git/hooks/pre-commit", ("workspace", "persistence")),
        ("echo x > .git//hooks/pre-commit", ("workspace", "persistence")),
        ("echo x > .github/workflows/ci.yml", ("workspace", "persistence")),
        ("echo x > .claude/settings.json", ("workspace", "persistence")),
        ("echo x > ~/.codex/config.toml", ("home", "persistence")),
        ("echo x > ~/.config/systemd/user/evil.service", ("home", "persistence")),
        ("echo x > ~/.docker/config.json", ("home", "secret")),
        ("echo x > /etc/cron.d/job", ("persistence", "system")),
        ("echo x > /etc/hosts", ("system",)),
        ("echo x > /usr/local/bin/ls", ("system",)),
        ("echo x > /dev/sda", ("system",)),
        ("echo x > /dev/null", ("stream",)),
        ("echo x > /dev/stderr", ("stream",)),
        ("echo x > /srv/data/out", ("other",)),
        ("echo x > /data/out", ("other",)),
        ('echo x > "$OUT"', ("unknown",)),
    ],
)
def test_a_path_has_its_classes(source: str, classes: tuple[str, ...]) -> None:
    assert [c for _, c in _written(source)] == [classes]


def test_a_recursive_effect_has_the_classes_of_what_lies_below() -> None:
    assert _written("rm -rf ~") == [("~", ("home", "secret", "persistence"))]
    assert _written("rm -rf ./../../..") == [("/", ("secret", "persistence", "system"))]
    assert _written("rm -rf ~/..") == [("/home", ("secret", "persistence", "other"))]
    assert _written("rm -rf .git") == [(f"{CWD}/.git", ("workspace", "persistence"))]
    assert _written("rm -rf build") == [(f"{CWD}/build", ("workspace",))]


def test_a_glob_has_the_classes_of_what_it_may_match() -> None:
    (read,) = only(effects_of("cat ~/.ssh/*"), Read)
    assert (read.path.value, read.path.pattern) == ("~/.ssh/*", True)
    assert read.path.classes == ("home", "secret", "persistence")  # authorized_keys, config…
    (env,) = only(effects_of("cat .en*"), Read)
    assert env.path.classes == ("workspace", "secret", "persistence")  # .env, .envrc


def test_configured_roots_and_patterns_classify_paths() -> None:
    paths = path_context(
        PathsSection(
            project_roots=("/srv/shared",),
            extra_secret_patterns=("**/vault.txt",),
            extra_persistence_patterns=("**/Makefile",),
        ),
        CWD,
        HOME,
    )
    assert _written("echo x > /srv/shared/out", paths) == [("/srv/shared/out", ("workspace",))]
    assert _written("echo x > vault.txt", paths) == [(f"{CWD}/vault.txt", ("workspace", "secret"))]
    assert _written("echo x > Makefile", paths) == [
        (f"{CWD}/Makefile", ("workspace", "persistence"))
    ]


def test_a_home_inside_the_workspace_is_the_workspace() -> None:
    paths = PathContext(cwd=f"{HOME}/project", home=HOME)
    assert _written("echo x > notes", paths) == [("~/project/notes", ("workspace",))]
    assert _written("echo x > ../notes", paths) == [("~/notes", ("home",))]


def test_a_path_known_by_its_role_keeps_its_content_classes() -> None:
    """A git directory's ``config``, wherever the directory is: no value, yet persistence."""
    read = reader(
        ArgumentFact(kind="write", via="config", index=None, value=".git/config", within="git_dir")
    )
    (write,) = only(effects_of("git config core.pager less", arguments=read), Write)
    assert write.path == EffectPath(
        written=".git/config", value=None, classes=("persistence", "unknown")
    )


def test_bad_paths_configuration_is_refused() -> None:
    for table in ({"project_roots": ("relative",)}, {"extra_secret_patterns": ("*.key",)}):
        with pytest.raises(ValueError, match="entries"):
            PathsSection(**table)  # type: ignore[arg-type]


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["/", ".", "..", "a", "b.py", ".git", "~", PATH_HOME, PATH_ROOT, " "]),
        min_size=1,
        max_size=12,
    )
)
def test_normalise_folds_the_same_with_or_without_its_shortcut(pieces: list[str]) -> None:
    """
    A path with nothing to fold is returned as it is: it must fold as the long
    way folds it. Ending a path in ``/.`` changes no fold, and always takes the
    long way (the shortcut never takes a ``/.``), so the two must agree.
    """
    path = "".join(pieces)
    assert normalise(path) == normalise(path + "/.")
