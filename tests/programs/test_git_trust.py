"""
The git trust model, measured: which repository code each read-only subcommand runs, and the check that refuses it.

The measurement builds a repository that sets every code key git runs for
reading (``core.fsmonitor``, ``core.pager``, textconv and external diff
drivers, clean and smudge filters, ``gpg.program`` with a signed commit and
``log.showSignature``, a merge driver, a ``tar`` filter) and every hook, each
as a ``marker`` that records its name; it runs each read-only subcommand on a
terminal (so git pages) and collects the markers that ran. Two things must
hold for every subcommand: what ran is among the configured code the reading
states, and `repository_refusal` refuses the reading in that repository. The
unit tests hold `inspect_repository` to how git finds a repository and reads
its configuration, and the configuration reader to ``git config --list``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gateway._programs._git import read_git
from gateway._programs._git_trust import (
    HOOK_NAMES,
    RepositoryInspection,
    inspect_repository,
    repository_refusal,
)
from gateway._programs._gitconfig import GIT_CODE_KEYS, ConfigError, git_code_key, read_config
from programs.language_support import git, run_confined, tool

MARKED = {
    "core.fsmonitor": "core.fsmonitor",
    "core.pager": "core.pager",
    "diff.m.textconv": "diff.*.textconv",
    "diff.external": "diff.external",
    "filter.m.clean": "filter.*.clean",
    "filter.m.smudge": "filter.*.smudge",
    "merge.m.driver": "merge.*.driver",
    "gpg.program": "gpg.program",
    "tar.tar.gz.command": "tar.*.command",
}
"""Each code key the measurement sets → the pattern its marker records."""


def _signed_commit(work: Path, env: Mapping[str, str]) -> None:
    """Add a commit that carries a (fake) signature, so ``log.showSignature`` calls gpg."""
    body = subprocess.run(
        [tool("git"), "cat-file", "commit", "HEAD"],
        cwd=work,
        env=dict(env),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    head, _, message = body.partition("\n\n")
    signature = (
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    )
    signed = f"{head}\n{signature}\n\nsigned {message}"
    object_id = subprocess.run(
        [tool("git"), "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=work,
        env=dict(env),
        input=signed,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(work, env, "update-ref", "refs/heads/main", object_id)


def _hostile_repository(work: Path, env: Mapping[str, str]) -> None:
    git(work, env, "init", "-q", "-b", "main")
    (work / "f").write_text("one\nTODO two\n")
    (work / "g").write_text("three\n")
    (work / ".gitattributes").write_text("* diff=m filter=m merge=m\n")
    git(work, env, "add", ".")
    git(work, env, "commit", "-qm", "first")
    git(work, env, "tag", "v1")
    git(work, env, "branch", "topic")
    _signed_commit(work, env)
    gpg = work / ".git" / "gpg-marker"
    gpg.write_text("#!/bin/sh\nmarker gpg.program\n")
    gpg.chmod(0o755)
    for key, pattern in MARKED.items():
        # gpg.program is run as a program, not through the shell.
        git(work, env, "config", key, str(gpg) if key == "gpg.program" else f"marker {pattern}")
    git(work, env, "config", "log.showSignature", "true")
    hooks = work / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in HOOK_NAMES:
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\nmarker hooks/{name}\n")
        hook.chmod(0o755)
    (work / "f").write_text("one\nTODO changed\n")
    (work / "untracked").write_text("new\n")
    Path(env["MARKERS"]).write_text("")


READ_ONLY = {
    "status": ["status"],
    "status-short": ["status", "-s"],
    "diff": ["diff"],
    "diff-stat": ["diff", "--stat"],
    "diff-cached": ["diff", "--cached"],
    "diff-head": ["diff", "HEAD"],
    "log": ["log", "-1"],
    "log-patch": ["log", "-p", "-2"],
    "log-oneline": ["log", "--oneline"],
    "show": ["show"],
    "show-blob": ["show", "HEAD:f"],
    "blame": ["blame", "f"],
    "grep": ["grep", "TODO"],
    "grep-cached": ["grep", "--cached", "TODO"],
    "ls-files": ["ls-files"],
    "ls-files-modified": ["ls-files", "-m"],
    "ls-tree": ["ls-tree", "-r", "HEAD"],
    "branch": ["branch"],
    "branch-verbose": ["branch", "-avv"],
    "tag": ["tag", "-l"],
    "describe": ["describe", "--tags", "--always"],
    "describe-dirty": ["describe", "--tags", "--dirty"],
    "rev-parse": ["rev-parse", "HEAD"],
    "rev-list": ["rev-list", "--count", "HEAD"],
    "cat-file": ["cat-file", "-p", "HEAD"],
    "shortlog": ["shortlog", "-sn", "HEAD"],
    "reflog": ["reflog"],
    "for-each-ref": ["for-each-ref"],
    "config-get": ["config", "--get", "user.name"],
    "config-list": ["config", "--list"],
    "stash-list": ["stash", "list"],
    "worktree-list": ["worktree", "list"],
    "remote": ["remote", "-v"],
    "merge-base": ["merge-base", "HEAD", "topic"],
    "name-rev": ["name-rev", "HEAD"],
    "show-ref": ["show-ref"],
    "count-objects": ["count-objects", "-v"],
    "archive": ["archive", "--format=tar.gz", "-o", "a.tgz", "HEAD"],
    "whatchanged": ["whatchanged", "-1"],
    "cherry": ["cherry", "topic"],
    "show-branch": ["show-branch"],
    "check-ignore": ["check-ignore", "-v", "f"],
    "check-attr": ["check-attr", "-a", "f"],
    "verify-commit": ["verify-commit", "HEAD"],
    "ls-files-others": ["ls-files", "-o"],
    "grep-untracked": ["grep", "--untracked", "TODO"],
    "log-stat": ["log", "--stat", "-2"],
    "show-stat": ["show", "--stat"],
    "diff-name-only": ["diff", "--name-only"],
    "stash-show": ["stash", "show"],
    "status-porcelain-v2": ["status", "--porcelain=v2"],
    "diff-files": ["diff-files", "-p"],
    "diff-index": ["diff-index", "-p", "HEAD"],
    "diff-tree": ["diff-tree", "-p", "HEAD"],
    "format-patch-stdout": ["format-patch", "--stdout", "-1"],
    "reflog-show": ["reflog", "show"],
    "blame-porcelain": ["blame", "--porcelain", "g"],
    "rev-parse-toplevel": ["rev-parse", "--show-toplevel"],
    "describe-plain": ["describe", "--tags"],
    "log-graph": ["log", "--graph", "--all", "--oneline"],
    "show-tag": ["show", "v1"],
    "tag-list-n": ["tag", "-n"],
    "branch-show-current": ["branch", "--show-current"],
    "config-get-regexp": ["config", "--get-regexp", "core"],
}


def _ran(markers: tuple[str, ...]) -> set[str]:
    return {line.split()[1] for line in markers if len(line.split()) > 1}


@pytest.mark.parametrize("args", READ_ONLY.values(), ids=READ_ONLY.keys())
def test_what_a_read_only_subcommand_runs_is_stated_and_refused(args: list[str]) -> None:
    """Every marker that ran is configured code the reading states, and the check refuses the reading."""
    reading = read_git("git", args)
    stated = {fact.via for fact in reading.facts if fact.action == "configured"}
    inspections: list[RepositoryInspection] = []

    def inspect(work: Path) -> None:
        inspections.append(
            inspect_repository(
                str(work),
                workspace=[str(work)],
                environ={"HOME": str(work), "GIT_CONFIG_NOSYSTEM": "1"},
            )
        )

    outcome = run_confined(
        ["git", *args], prepare=_hostile_repository, keep=inspect, terminal=True, timeout=60
    )
    ran = _ran(outcome.markers)
    assert ran <= stated, (args, sorted(ran - stated))
    if ran:
        assert repository_refusal(reading, inspections[0]) is not None


def test_the_measurement_sees_code_run() -> None:
    """The marked repository does run code for reading: the test above is not vacuous."""
    seen: set[str] = set()
    for args in (["status"], ["diff"], ["log", "-1"], ["log", "-p", "-2"], ["show"]):
        seen |= _ran(
            run_confined(
                ["git", *args], prepare=_hostile_repository, terminal=True, timeout=60
            ).markers
        )
    assert {"core.fsmonitor", "core.pager", "diff.external", "gpg.program"} <= seen


def test_a_clean_repository_runs_nothing_and_is_not_refused() -> None:
    def clean(work: Path, env: Mapping[str, str]) -> None:
        git(work, env, "init", "-q", "-b", "main")
        (work / "f").write_text("one\n")
        git(work, env, "add", "f")
        git(work, env, "commit", "-qm", "first")
        (work / "f").write_text("two\n")

    inspections: list[RepositoryInspection] = []
    outcome = run_confined(
        ["git", "status"],
        prepare=clean,
        keep=lambda work: inspections.append(
            inspect_repository(
                str(work),
                workspace=[str(work)],
                environ={"HOME": str(work), "GIT_CONFIG_NOSYSTEM": "1"},
            )
        ),
    )
    assert outcome.markers == ()
    inspection = inspections[0]
    assert inspection.distrust is None
    assert inspection.code == ()
    assert inspection.hooks == ()
    assert repository_refusal(read_git("git", ["status"]), inspection) is None


# --- finding the repository, as git does --------------------------------------


def _layout(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


GIT_DIR = {".git/HEAD": "ref: refs/heads/main\n", ".git/objects/.keep": "", ".git/refs/.keep": ""}


def _inspect(root: Path, cwd: str = ".", **environ: str) -> RepositoryInspection:
    return inspect_repository(
        str(root / cwd),
        workspace=[str(root)],
        environ={"HOME": str(root / "home"), "GIT_CONFIG_NOSYSTEM": "1", **environ},
    )


def test_finds_code_keys_in_the_repository_config(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {**GIT_DIR, ".git/config": '[core]\n\tfsmonitor = "./x"\n[diff "pdf"]\n\ttextconv = y\n'},
    )
    inspection = _inspect(tmp_path)
    assert {(code.pattern, code.scope) for code in inspection.code} == {
        ("core.fsmonitor", "repository"),
        ("diff.*.textconv", "repository"),
    }
    assert (
        repository_refusal(read_git("git", ["status"]), inspection)
        == "the repository's configuration sets `core.fsmonitor`, which `git status` may run"
    )
    assert "diff.pdf.textconv" in (
        repository_refusal(read_git("git", ["log", "-p"]), inspection) or ""
    )
    assert repository_refusal(read_git("git", ["rev-parse", "HEAD"]), inspection) is None


def test_follows_includes_from_the_repository_config(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            **GIT_DIR,
            ".git/config": "[include]\n\tpath = ../extra.cfg\n",
            "extra.cfg": "[core]\n\tpager = evil\n",
        },
    )
    inspection = _inspect(tmp_path)
    assert [(code.name, code.scope) for code in inspection.code] == [("core.pager", "repository")]


def test_follows_every_include_if_whatever_its_condition(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            **GIT_DIR,
            ".git/config": '[includeIf "onbranch:never"]\n\tpath = ../x.cfg\n',
            "x.cfg": "[diff]\n\texternal = evil\n",
        },
    )
    assert [code.pattern for code in _inspect(tmp_path).code] == ["diff.external"]


@pytest.mark.parametrize(
    "value", ["~/.netrc", "/etc/shadow", "../../outside", "~other/.netrc", "%(prefix)/etc/x"]
)
def test_a_repository_key_that_reads_a_file_outside_the_workspace_is_distrusted(
    tmp_path: Path, value: str
) -> None:
    _layout(tmp_path, {**GIT_DIR, ".git/config": f"[blame]\n\tignoreRevsFile = {value}\n"})
    distrust = _inspect(tmp_path, HOME="/nonexistent-home").distrust or ""
    assert "`blame.ignorerevsfile`" in distrust
    assert "a file outside the workspace git would read" in distrust


@pytest.mark.parametrize(
    "line",
    [
        "[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n",
        "[core]\n\texcludesFile = {root}/ignored\n",
        "[user]\n\tname = a\n",
    ],
)
def test_a_repository_key_that_reads_a_file_inside_the_workspace_is_trusted(
    tmp_path: Path, line: str
) -> None:
    _layout(tmp_path, {**GIT_DIR, ".git/config": line.format(root=tmp_path)})
    assert _inspect(tmp_path, HOME="/nonexistent-home").distrust is None


def test_git_blame_prints_the_file_its_ignore_revs_key_names(tmp_path: Path) -> None:
    """The proof: a repository's `blame.ignoreRevsFile` shows the file's first line in the error."""
    work, secret = tmp_path / "w", tmp_path / "netrc"
    work.mkdir()
    secret.write_text("machine x password MARKER\n")
    names = {
        f"GIT_{who}_{what}": "a@b" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL")
    }
    env = {**os.environ, **names, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["config", "blame.ignoreRevsFile", str(secret)]):
        subprocess.run([tool("git"), *args], cwd=work, env=env, check=True, capture_output=True)
    (work / "a").write_text("a\n")
    subprocess.run([tool("git"), "add", "a"], cwd=work, env=env, check=True, capture_output=True)
    subprocess.run(
        [tool("git"), "commit", "-qm", "a"], cwd=work, env=env, check=True, capture_output=True
    )
    blamed = subprocess.run(
        [tool("git"), "blame", "a"], cwd=work, env=env, capture_output=True, text=True
    )
    assert "MARKER" in blamed.stderr
    assert "outside the workspace" in (_inspect(work, HOME=str(tmp_path / "h")).distrust or "")


def test_an_include_loop_is_refused(tmp_path: Path) -> None:
    _layout(tmp_path, {**GIT_DIR, ".git/config": "[include]\n\tpath = config\n"})
    assert "deeper" in (_inspect(tmp_path).distrust or "")


def test_a_config_git_would_refuse_is_distrusted(tmp_path: Path) -> None:
    _layout(tmp_path, {**GIT_DIR, ".git/config": "[core\n\tpager = x\n"})
    assert "not configuration git reads" in (_inspect(tmp_path).distrust or "")


def test_finds_executable_hooks_only(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            **GIT_DIR,
            ".git/hooks/pre-commit": "#!/bin/sh\n",
            ".git/hooks/post-index-change": "#!/bin/sh\n",
            ".git/hooks/pre-push.sample": "#!/bin/sh\n",
        },
    )
    (tmp_path / ".git/hooks/post-index-change").chmod(0o755)
    (tmp_path / ".git/hooks/pre-push.sample").chmod(0o755)
    assert _inspect(tmp_path).hooks == ("post-index-change",)


def test_hooks_path_in_the_repository_is_followed(tmp_path: Path) -> None:
    # Relative to the top of the work tree, where git runs hooks, not to `.git`.
    _layout(
        tmp_path,
        {
            **GIT_DIR,
            ".git/config": "[core]\n\thooksPath = myhooks\n",
            "myhooks/post-index-change": "#!/bin/sh\n",
        },
    )
    (tmp_path / "myhooks/post-index-change").chmod(0o755)
    inspection = _inspect(tmp_path)
    assert inspection.hooks == ("post-index-change",)
    assert [code.pattern for code in inspection.code] == ["core.hookspath"]


def test_discovers_the_repository_from_a_subdirectory(tmp_path: Path) -> None:
    _layout(tmp_path, {**GIT_DIR, "src/deep/x.py": ""})
    inspection = _inspect(tmp_path, "src/deep")
    assert inspection.work_tree == str(tmp_path.resolve())


def test_a_repository_above_the_workspace_is_distrusted(tmp_path: Path) -> None:
    _layout(tmp_path, {**GIT_DIR, "project/x": ""})
    inspection = inspect_repository(
        str(tmp_path / "project"),
        workspace=[str(tmp_path / "project")],
        environ={"GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert "outside the workspace" in (inspection.distrust or "")


def test_an_embedded_bare_repository_is_distrusted(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            "evil/HEAD": "ref: refs/heads/main\n",
            "evil/objects/.keep": "",
            "evil/refs/.keep": "",
            "evil/config": "[core]\n\tfsmonitor = x\n",
        },
    )
    assert "bare repository" in (_inspect(tmp_path, "evil").distrust or "")


def test_a_gitdir_file_is_followed(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            "real/HEAD": "ref: refs/heads/main\n",
            "real/objects/.keep": "",
            "real/refs/.keep": "",
            "real/config": "[core]\n\tpager = x\n",
            "work/.git": "gitdir: ../real\n",
        },
    )
    inspection = inspect_repository(
        str(tmp_path / "work"), workspace=[str(tmp_path)], environ={"GIT_CONFIG_NOSYSTEM": "1"}
    )
    assert inspection.git_dir == str(tmp_path / "real")
    assert [code.pattern for code in inspection.code] == ["core.pager"]


def test_a_linked_worktree_reads_the_common_config(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            "main/.git/HEAD": "ref: refs/heads/main\n",
            "main/.git/objects/.keep": "",
            "main/.git/refs/.keep": "",
            "main/.git/config": "[diff]\n\texternal = x\n",
            "main/.git/worktrees/w/HEAD": "ref: refs/heads/w\n",
            "main/.git/worktrees/w/commondir": "../..\n",
            "w/.git": f"gitdir: {tmp_path}/main/.git/worktrees/w\n",
        },
    )
    inspection = inspect_repository(
        str(tmp_path / "w"), workspace=[str(tmp_path / "w")], environ={"GIT_CONFIG_NOSYSTEM": "1"}
    )
    assert inspection.distrust is None
    assert [code.pattern for code in inspection.code] == ["diff.external"]


def test_submodule_configs_and_hooks_are_read(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            **GIT_DIR,
            ".git/modules/lib/HEAD": "ref: refs/heads/main\n",
            ".git/modules/lib/objects/.keep": "",
            ".git/modules/lib/refs/.keep": "",
            ".git/modules/lib/config": "[core]\n\tfsmonitor = x\n",
            ".git/modules/lib/hooks/post-index-change": "#!/bin/sh\n",
        },
    )
    (tmp_path / ".git/modules/lib/hooks/post-index-change").chmod(0o755)
    inspection = _inspect(tmp_path)
    assert [code.pattern for code in inspection.code] == ["core.fsmonitor"]
    assert inspection.hooks == ("post-index-change",)


def test_the_users_own_config_is_reported_not_refused(tmp_path: Path) -> None:
    _layout(
        tmp_path,
        {
            **{f"repo/{k}": v for k, v in GIT_DIR.items()},
            "home/.gitconfig": "[core]\n\tpager = delta\n",
        },
    )
    inspection = inspect_repository(
        str(tmp_path / "repo"),
        workspace=[str(tmp_path / "repo")],
        environ={"HOME": str(tmp_path / "home"), "GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert [(code.pattern, code.scope) for code in inspection.code] == [("core.pager", "user")]
    assert repository_refusal(read_git("git", ["log"]), inspection) is None


def test_a_user_config_inside_the_workspace_counts_as_the_repositorys(tmp_path: Path) -> None:
    """A home directory inside the workspace is one the agent can write: its configuration is not the user's alone."""
    _layout(tmp_path, {**GIT_DIR, "home/.gitconfig": "[core]\n\tpager = delta\n"})
    inspection = _inspect(tmp_path)
    assert [(code.pattern, code.scope) for code in inspection.code] == [
        ("core.pager", "repository")
    ]


def test_an_environment_that_moves_git_is_distrusted(tmp_path: Path) -> None:
    _layout(tmp_path, GIT_DIR)
    assert "GIT_DIR" in (_inspect(tmp_path, GIT_DIR="/elsewhere").distrust or "")
    assert "GIT_CONFIG_PARAMETERS" in (
        _inspect(tmp_path, GIT_CONFIG_PARAMETERS="'core.pager=x'").distrust or ""
    )


def test_an_oversized_config_is_distrusted(tmp_path: Path) -> None:
    _layout(tmp_path, {**GIT_DIR, ".git/config": "# x\n" * 300_000})
    assert "larger" in (_inspect(tmp_path).distrust or "")


def test_no_repository_means_only_the_users_config(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    inspection = inspect_repository(
        str(tmp_path / "plain"),
        workspace=[str(tmp_path / "plain")],
        environ={"GIT_CONFIG_NOSYSTEM": "1"},
    )
    assert inspection.git_dir is None
    assert inspection.distrust is None


def test_agrees_with_git_on_where_the_repository_is(tmp_path: Path) -> None:
    """`inspect_repository` finds the work tree `git rev-parse --show-toplevel` shows."""
    outcome_root: list[str] = []

    def prepare(work: Path, env: Mapping[str, str]) -> None:
        git(work, env, "init", "-q")
        (work / "a" / "b").mkdir(parents=True)

    def keep(work: Path) -> None:
        outcome_root.append(
            str(
                inspect_repository(
                    str(work / "a" / "b"),
                    workspace=[str(work)],
                    environ={"GIT_CONFIG_NOSYSTEM": "1"},
                ).work_tree
            )
        )

    outcome = run_confined(
        ["git", "-C", "a/b", "rev-parse", "--show-toplevel"], prepare=prepare, keep=keep
    )
    assert outcome.stdout.strip() == outcome_root[0]


# --- the configuration reader, held to git --------------------------------------

LINE = st.one_of(
    st.tuples(
        st.sampled_from(["core", "Diff", "filter", "a.b", "x-y"]),
        st.sampled_from(["", ' "pdf"', ' "a\\"b"', ' "S p"']),
    ).map(lambda t: f"[{t[0]}{t[1]}]"),
    st.tuples(
        st.sampled_from(["pager", "fsmonitor", "textconv", "Clean", "k-1", "k"]),
        st.sampled_from([" = ", "=", "", " =", "= "]),
        st.text(alphabet='ab "\\;#\tnt=', max_size=12),
    ).map(lambda t: "\t" + t[0] + (t[1] + t[2] if t[1] else "")),
    st.sampled_from(["# comment", "; comment", "", "  ", "[core] pager = inline"]),
)
CONFIGS = st.lists(LINE, min_size=1, max_size=8).map(
    lambda lines: "[core]\n" + "\n".join(lines) + "\n"
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONFIGS)
def test_reads_configuration_as_git_config_list_does(text: str) -> None:
    listed: list[str] = []

    def prepare(work: Path, env: Mapping[str, str]) -> None:
        (work / "cfg").write_text(text)

    outcome = run_confined(["git", "config", "--file", "cfg", "--null", "--list"], prepare=prepare)
    del listed
    try:
        entries = read_config(text)
    except ConfigError:
        assert outcome.returncode != 0, (text, outcome.stdout)
        return
    assert outcome.returncode == 0, (text, outcome.stderr)
    expected = [item for item in outcome.stdout.split("\0") if item]
    ours = [
        entry.name if entry.value is None else f"{entry.name}\n{entry.value}" for entry in entries
    ]
    assert ours == expected, text


def test_every_code_key_pattern_is_lowercase_but_its_subsection() -> None:
    for pattern in GIT_CODE_KEYS:
        section, _, rest = pattern.partition(".")
        assert section == section.lower()
        assert rest.rpartition(".")[2] == rest.rpartition(".")[2].lower()
        assert git_code_key(pattern.replace("*", "x")) == pattern


def test_the_inspection_reads_this_repository_without_distrust() -> None:
    """The project's own checkout (a linked worktree or a clone) inspects cleanly: the check works on real layouts."""
    here = Path(__file__).resolve().parents[2]
    inspection = inspect_repository(
        str(here), workspace=[str(here)], environ={"HOME": os.environ["HOME"]}
    )
    assert inspection.distrust is None, inspection.distrust
    assert inspection.git_dir is not None, "the tests run from a git checkout (CI clones one)"
