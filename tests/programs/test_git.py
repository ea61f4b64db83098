"""
The git reader: hostile command lines with harmless twins, option arities held to git, and proofs.

Each hostile row names the facts that must be stated (a write, an execution,
a network connection, a bind…) and each twin the facts that must not be.
The proofs run the real git confined in a fresh repository: what the reader
calls a write is written, what it calls an execution runs (the ``marker``
stub records it), and the twins do neither. One test holds every option
the revision and diff rows declare as taking the next word as its value to
git itself: git must not read that next word as an option.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given, settings, strategies as st

from gateway._programs._git import read_git
from gateway._programs._git_commands import COMMANDS
from gateway._programs._git_forms import _SECOND
from gateway._programs._languages import LANGUAGE_READERS
from gateway._programs._rows import ProgramRow
from programs.language_support import git, run_confined, steps, tool

ANY = object()
Fact = tuple[str, str, object]


class Case(NamedTuple):
    args: list[str | None]
    has: list[Fact]
    unreadable: str | None = None
    undeclared: str | None = None


def _facts(args: list[str | None]) -> list[tuple[str, str, str | None, str | None]]:
    return [(f.kind, f.via, f.value, f.action) for f in read_git("git", args).facts]


def _has(facts: Sequence[tuple[str, str, str | None, str | None]], wanted: Fact) -> bool:
    return any(
        kind == wanted[0] and via == wanted[1] and (wanted[2] is ANY or value == wanted[2])
        for kind, via, value, _ in facts
    )


HOSTILE: dict[str, Case] = {
    "pager-in-c": Case(
        ["-c", "core.pager=sh -c id", "log"],
        [("execute", "-c", "sh -c id"), ("bind", "-c", "core.pager=sh -c id")],
    ),
    "fsmonitor-in-c": Case(
        ["-c", "core.fsmonitor=marker fsm", "status"], [("execute", "-c", "marker fsm")]
    ),
    "textconv-in-c": Case(
        ["-c", "diff.x.textconv=marker t", "diff"], [("execute", "-c", "marker t")]
    ),
    "key-case-folded": Case(
        ["-c", "Core.SSHCommand=marker s", "fetch"], [("execute", "-c", "marker s")]
    ),
    "editor-in-c": Case(["-c", "core.editor=marker e", "commit"], [("execute", "-c", "marker e")]),
    "filter-in-c": Case(
        ["-c", "filter.x.smudge=marker f", "checkout", "."], [("execute", "-c", "marker f")]
    ),
    "include-in-c": Case(
        ["-c", "include.path=evil.cfg", "status"],
        [("read", "-c", "evil.cfg"), ("execute", "-c", None)],
    ),
    "config-env": Case(
        ["--config-env=core.pager=PAGER_TEXT", "log"],
        [("read_environment", "--config-env", "PAGER_TEXT"), ("execute", "--config-env", None)],
    ),
    "exec-path": Case(["--exec-path=./bin", "status"], [("execute", "--exec-path", "./bin")]),
    "alias-shell": Case(
        ["-c", "alias.x=!marker alias", "x"], [("execute", "alias.x", "marker alias")]
    ),
    "alias-to-log-output": Case(
        ["-c", "alias.x=log --output=out", "x"], [("write", "--output", "out")]
    ),
    "alias-chain": Case(
        ["-c", "alias.a=b", "-c", "alias.b=!marker b", "a"], [("execute", "alias.b", "marker b")]
    ),
    "cwd": Case(["-C", "..", "status"], [("cwd", "-C", "..")]),
    "git-dir": Case(["--git-dir=/srv/x/.git", "status"], [("read", "--git-dir", "/srv/x/.git")]),
    "work-tree": Case(["--work-tree", "/", "status"], [("read", "--work-tree", "/")]),
    "paginate": Case(["-p", "status"], [("execute", "core.pager", None)]),
    "log-output": Case(["log", "--output=x.patch"], [("write", "--output", "x.patch")]),
    "log-output-separate": Case(
        ["log", "-p", "--output", "x.patch"], [("write", "--output", "x.patch")]
    ),
    "diff-output": Case(["diff", "--output=x.patch"], [("write", "--output", "x.patch")]),
    "show-output": Case(["show", "--output=x"], [("write", "--output", "x")]),
    "ext-diff": Case(["log", "-p", "--ext-diff"], [("execute", "diff.external", None)]),
    "show-signature": Case(["log", "--show-signature"], [("execute", "gpg.program", None)]),
    "orderfile": Case(["diff", "-Osecret.txt"], [("read", "-O", "secret.txt")]),
    "grep-pager": Case(["grep", "-Omarker", "x"], [("execute", "--open-files-in-pager", "marker")]),
    "grep-pager-long": Case(
        ["grep", "--open-files-in-pager=vim", "x"], [("execute", "--open-files-in-pager", "vim")]
    ),
    "grep-pattern-file": Case(["grep", "-f", "patterns", "--", "."], [("read", "-f", "patterns")]),
    "blame-contents": Case(
        ["blame", "--contents", "secret", "f"], [("read", "--contents", "secret")]
    ),
    "format-patch-default-writes": Case(
        ["format-patch", "-1"], [("write", "git format-patch", "./")]
    ),
    "format-patch-directory": Case(
        ["format-patch", "-o", "out", "-1"], [("write", "--output-directory", "out")]
    ),
    "archive-output": Case(["archive", "--output=a.tar", "HEAD"], [("write", "--output", "a.tar")]),
    # Every subcommand that takes the diff options takes `--output` with them.
    "stash-show-output": Case(
        ["stash", "show", "-p", "feature", "--output=.git/hooks/pre-commit"],
        [("write", "--output", ".git/hooks/pre-commit")],
    ),
    "range-diff-output": Case(["range-diff", "--output=x", "a...b"], [("write", "--output", "x")]),
    "format-patch-output": Case(
        ["format-patch", "--stdout", "--output=x", "-1"], [("write", "--output", "x")]
    ),
    "diff-tree-output": Case(
        ["diff-tree", "-p", "--output=x", "HEAD"], [("write", "--output", "x")]
    ),
    "stash-show-orderfile": Case(["stash", "show", "-Osecret"], [("read", "-O", "secret")]),
    "interpret-trailers-in-place": Case(
        ["interpret-trailers", "--in-place", "--trailer", "a: b", ".git/hooks/pre-commit"],
        [("write", "git interpret-trailers --in-place", ".git/hooks/pre-commit")],
    ),
    # Listing git's configuration prints the user's files, credentials included.
    "config-list": Case(["config", "-l"], [("read", "git config", "~/.gitconfig")]),
    "config-global-list": Case(
        ["config", "--global", "-l"], [("read", "git config", "~/.gitconfig")]
    ),
    "config-new-syntax-list": Case(["config", "list"], [("read", "git config", "~/.gitconfig")]),
    "config-urlmatch": Case(
        ["config", "--get-urlmatch", "http", "https://github.com"],
        [("read", "git config", "~/.gitconfig")],
    ),
    "config-regexp": Case(
        ["config", "--get-regexp", "url"], [("read", "git config", "/etc/gitconfig")]
    ),
    "config-credential-key": Case(
        ["config", "--get", "http.extraHeader"], [("read", "git config", "~/.gitconfig")]
    ),
    "config-file-includes": Case(
        ["config", "-f", "inc.cfg", "--includes", "-l"],
        [("read", "--file", "inc.cfg"), ("read", "git config --includes", None)],
    ),
    "var-list": Case(["var", "-l"], [("read", "git var -l", "~/.gitconfig")]),
    "fsck-lost-found": Case(["fsck", "--lost-found"], [("write", "git fsck", ".git/lost-found")]),
    "archive-remote": Case(
        ["archive", "--remote=git@host:repo", "HEAD"], [("network", "--remote", "git@host:repo")]
    ),
    "archive-exec": Case(
        ["archive", "--remote=x", "--exec=marker", "HEAD"], [("execute", "--exec", "marker")]
    ),
    "fetch-upload-pack": Case(
        ["fetch", "--upload-pack=marker u", "."],
        [("execute", "--upload-pack", "marker u"), ("network", "git fetch", None)],
    ),
    "clone-upload-pack": Case(
        ["clone", "-u", "marker u", "src", "dst"], [("execute", "--upload-pack", "marker u")]
    ),
    "clone-config-code": Case(
        ["clone", "--config", "core.fsmonitor=marker", "src"],
        [("execute", "git clone --config", "marker")],
    ),
    "push-receive-pack": Case(
        ["push", "--receive-pack=marker", "origin"], [("execute", "--receive-pack", "marker")]
    ),
    "push-exec": Case(["push", "--exec=marker", "origin"], [("execute", "--exec", "marker")]),
    "ls-remote-url": Case(
        ["ls-remote", "https://example.com/r.git"],
        [("network", "git ls-remote", "https://example.com/r.git")],
    ),
    "pull": Case(["pull"], [("network", "git pull", None), ("write", "git pull", ".")]),
    "rebase-exec": Case(["rebase", "-x", "marker", "HEAD~1"], [("execute", "--exec", "marker")]),
    "merge-strategy-program": Case(
        ["merge", "-s", "evil", "topic"], [("execute", "--strategy", "git-merge-evil")]
    ),
    "submodule-foreach": Case(
        ["submodule", "foreach", "marker", "sub"],
        [("execute", "git submodule foreach", "marker sub")],
    ),
    "bisect-run": Case(["bisect", "run", "marker", "b"], [("execute", "git bisect run", "marker")]),
    "config-set-code-key": Case(
        ["config", "core.pager", "marker"],
        [("write", "git config", ".git/config"), ("bind", "git config", "core.pager=marker")],
    ),
    "config-global": Case(
        ["config", "--global", "alias.x", "!marker"], [("write", "git config", "~/.gitconfig")]
    ),
    "config-file": Case(["config", "--file", "cfg", "a.b", "c"], [("write", "git config", "cfg")]),
    "config-new-syntax-set": Case(
        ["config", "set", "core.pager", "marker"], [("write", "git config", ".git/config")]
    ),
    "branch-create": Case(["branch", "topic"], [("write", "git branch", ".git/refs")]),
    "branch-delete": Case(["branch", "-D", "topic"], [("write", "git branch", ".git/refs")]),
    "branch-upstream-config": Case(
        ["branch", "-u", "origin/main"], [("write", "git branch", ".git/config")]
    ),
    "tag-create": Case(["tag", "v1"], [("write", "git tag", ".git/refs")]),
    "remote-add": Case(
        ["remote", "add", "o", "https://x.invalid/r"], [("write", "git remote", ".git/config")]
    ),
    "remote-update": Case(["remote", "update"], [("network", "git remote", None)]),
    # git reads `-v` and then the second word: this removes the remote.
    "remote-option-before-rm": Case(
        ["remote", "-v", "rm", "origin"], [], unreadable="an option stands before"
    ),
    "remote-option-before-expanding": Case(
        ["remote", "-v", None, "origin"], [], unreadable="an option stands before"
    ),
    "remote-show-contacts": Case(["remote", "show", "origin"], [("network", "git remote", None)]),
    "stash-bare-pushes": Case(["stash"], [("write", "git stash", ".")]),
    "worktree-add": Case(["worktree", "add", "../x"], [("write", "git worktree add", "../x")]),
    "clean": Case(["clean", "-fdx"], [("write", "git clean", ".")]),
    "commit-hooks": Case(
        ["commit", "-m", "x"],
        [("execute", "hooks/pre-commit", None), ("write", "git commit", ".git/refs")],
    ),
    "checkout-writes-work-tree": Case(["checkout", "main"], [("write", "git checkout", ".")]),
    "help-runs-man": Case(["help", "log"], [("execute", "git help", "man")]),
    "dash-dash-help-runs-man": Case(["--help"], [("execute", "--help", "man")]),
    "diff-no-index-reads-anywhere": Case(
        ["diff", "--no-index", "a", "/etc/shadow"], [("read", "pathspec", "/etc/shadow")]
    ),
    "show-blob-path": Case(["show", "HEAD:.env"], [("read", "pathspec", ".env")]),
    # A path in the index (`:PATH`, `:STAGE:PATH`) is that file, judged by its class.
    "show-stage-path": Case(["show", ":0:.env"], [("read", "pathspec", ".env")]),
    "show-index-path": Case(["show", ":.env"], [("read", "pathspec", ".env")]),
    # An object by its hash, or read from standard input, may be any file: read as `grep -r .`.
    "cat-file-hash": Case(["cat-file", "-p", "d7f072f"], [("read", "git cat-file", ".")]),
    "cat-file-batch": Case(["cat-file", "--batch"], [("read", "git cat-file", ".")]),
    "cat-file-typed-blob": Case(["cat-file", "blob", "v1"], [("read", "git cat-file", ".")]),
    "grep-revision": Case(["grep", "API_KEY", "HEAD"], [("read", "git grep", ".")]),
    "grep-untracked": Case(["grep", "--untracked", "SECRET"], [("read", "git grep", ".")]),
    "grep-dash-dash-as-a-pattern": Case(
        ["grep", "-e", "--", "-e", "SECRET", "HEAD"], [("read", "git grep", ".")]
    ),
    "grep-paths-before-dash-dash": Case(["grep", "x", "main"], [("read", "git grep", ".")]),
    "maintenance-start": Case(
        ["maintenance", "start"], [("write", "git maintenance start", "~/.gitconfig")]
    ),
    "init-template": Case(
        ["init", "--template=t", "r"],
        [("read", "--template", "t"), ("write", "git init", "r/.git")],
    ),
    "unknown-subcommand": Case(["frobnicate"], [], "not a subcommand"),
    "subcommand-expands": Case([None], [], "expands"),
    "option-expands": Case(["log", None], [], "expansion"),
    "c-expands": Case(["-c", None, "status"], [], "may be no word or several"),
    "unknown-global": Case(["--frobnicate", "status"], [], None, "--frobnicate"),
    "log-abbreviation-refused": Case(["log", "--outp=x"], [], None, "--outp"),
    "unknown-log-option": Case(["log", "--frobnicate"], [], None, "--frobnicate"),
    "no-subcommand": Case(["-C", "x"], [("cwd", "-C", "x")], "no subcommand"),
}

READ_ONLY: dict[str, list[str]] = {
    "status": ["status"],
    "status-porcelain-abbreviated": ["status", "--porc"],
    "log-oneline": ["log", "--oneline", "-5"],
    "log-patch": ["log", "-p", "-1"],
    "log-format": ["log", "--format=%H %s", "-3"],
    "diff": ["diff", "--stat"],
    "diff-cached": ["diff", "--cached", "HEAD"],
    "show": ["show", "HEAD"],
    "branch-list": ["branch"],
    "branch-all-verbose": ["branch", "-avv"],
    "branch-contains": ["branch", "--contains", "HEAD"],
    "branch-list-pattern": ["branch", "--list", "topic*"],
    "tag-list": ["tag", "-l", "v1.*"],
    "tag-bare": ["tag"],
    "remote-verbose": ["remote", "-v"],
    "remote-get-url": ["remote", "get-url", "origin"],
    "remote-show-no-query": ["remote", "show", "-n", "origin"],
    "stash-list": ["stash", "list"],
    "stash-show": ["stash", "show", "-p"],
    "worktree-list": ["worktree", "list", "--porcelain"],
    "rev-parse": ["rev-parse", "--show-toplevel", "HEAD"],
    "ls-files": ["ls-files", "-m"],
    "ls-tree": ["ls-tree", "-r", "HEAD"],
    "blame": ["blame", "-L", "1,5", "f"],
    "grep": ["grep", "-n", "TODO"],
    "describe": ["describe", "--tags", "--always"],
    "interpret-trailers": ["interpret-trailers", "--trailer", "a: b", "f"],
    "fsck": ["fsck", "--full"],
    "cat-file": ["cat-file", "-p", "HEAD"],
    "shortlog": ["shortlog", "-sn"],
    "reflog": ["reflog"],
    "reflog-show": ["reflog", "show", "-5"],
    "for-each-ref": ["for-each-ref", "--format=%(refname)"],
    "config-get": ["config", "--get", "user.name"],
    "config-one-name": ["config", "user.name"],
    "config-list": ["config", "-l"],
    "config-new-syntax-get": ["config", "get", "user.name"],
    "rev-list": ["rev-list", "--count", "HEAD"],
    "merge-base": ["merge-base", "HEAD", "main"],
    "name-rev": ["name-rev", "HEAD"],
    "no-pager-log": ["--no-pager", "log", "-1"],
    "version": ["--version"],
    "exec-path-prints": ["--exec-path"],
}


@pytest.mark.parametrize("case", HOSTILE.values(), ids=HOSTILE.keys())
def test_states_what_a_hostile_command_line_does(case: Case) -> None:
    reading = read_git("git", case.args)
    facts = [(f.kind, f.via, f.value, f.action) for f in reading.facts]
    for wanted in case.has:
        assert _has(facts, wanted), (wanted, facts)
    if case.unreadable is None:
        assert reading.unreadable is None
    else:
        assert reading.unreadable is not None
        assert case.unreadable in reading.unreadable
    assert reading.undeclared == case.undeclared


@pytest.mark.parametrize("args", READ_ONLY.values(), ids=READ_ONLY.keys())
def test_a_read_only_twin_states_no_write_run_or_send(args: list[str]) -> None:
    """Listing forms read: no write, no code from the call, no network; only configured code."""
    reading = read_git("git", args)
    assert reading.unreadable is None
    assert reading.undeclared is None
    for fact in reading.facts:
        assert fact.kind not in ("write", "network", "bind", "cwd"), fact
        assert fact.kind != "execute" or fact.action == "configured", fact


@pytest.mark.parametrize(
    "args",
    [
        ["config", "--get", "user.name"],
        ["config", "User.Email"],
        ["config", "get", "init.defaultBranch"],
        ["config", "--global", "--get", "user.name"],
        ["config", "--local", "-l"],
        ["config", "--get-color", "color.diff.old", "red"],
        ["var", "GIT_AUTHOR_IDENT"],
    ],
    ids=" ".join,
)
def test_a_plain_key_or_the_repository_own_file_reads_no_other_file(args: list[str]) -> None:
    """One key that holds no credential, or the repository's own file (read as ``.git``)."""
    reads = [f.value for f in read_git("git", args).facts if f.kind == "read"]
    assert reads == [".git"], reads


@pytest.mark.parametrize(
    "args",
    [
        ["grep", "-n", "TODO", "--", "src"],
        ["grep", "-n", "TODO", "HEAD", "--", "src"],
        ["grep", "-e", "TODO", "--", "src"],
        ["cat-file", "-p", "HEAD"],
        ["cat-file", "-p", "HEAD:README.md"],
        ["cat-file", "-t", "d7f072f"],
        ["cat-file", "--batch-check"],
    ],
    ids=" ".join,
)
def test_named_paths_and_named_commits_read_no_unknown_file(args: list[str]) -> None:
    """Pathspecs after ``--`` limit ``grep``; a commit by name or ``-t`` prints no file."""
    facts = read_git("git", args).facts
    assert not [f for f in facts if f.via in ("git grep", "git cat-file")], facts


def test_git_grep_searches_untracked_files_and_revisions_whole(tmp_path: Path) -> None:
    """What the reader reads as ``.``: an untracked file, and a file only the history holds."""
    names = {
        f"GIT_{who}_{what}": "a@b" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL")
    }
    env = {**os.environ, **names, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    _repository(tmp_path, env)

    def output(*args: str) -> str:
        done = subprocess.run(
            [tool("git"), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30
        )
        return done.stdout

    assert "secret:s3cr3t" in output("grep", "--untracked", "s3cr3t")
    (tmp_path / "f").write_text("gone\n")
    assert "HEAD:f:TODO two" in output("grep", "TODO", "HEAD")
    assert "TODO two" in output("show", ":0:f")


def test_no_pager_drops_the_pager() -> None:
    assert ("execute", "core.pager", None, "configured") in _facts(["log"])
    assert ("execute", "core.pager", None, "configured") not in _facts(["--no-pager", "log"])


def test_no_verify_drops_the_hooks_it_skips() -> None:
    assert ("execute", "hooks/pre-commit", None, "configured") in _facts(["commit", "-m", "x"])
    quiet = _facts(["commit", "--no-verify", "-m", "x"])
    assert ("execute", "hooks/pre-commit", None, "configured") not in quiet
    assert ("execute", "hooks/post-commit", None, "configured") in quiet


def test_git_is_registered() -> None:
    assert LANGUAGE_READERS["git"] is read_git


def test_every_fact_index_points_at_its_word() -> None:
    """Facts carry the index of the word in the call, not in the subcommand's own words."""
    reading = read_git("git", ["-C", "x", "-c", "a.b=c", "log", "--output", "out"])
    by_via = {fact.via: fact.index for fact in reading.facts}
    assert by_via["-C"] == 1
    assert by_via["-c"] == 3
    assert by_via["--output"] == 6


def test_an_expanding_value_is_read_only_when_it_is_one_word() -> None:
    # `git -C $d status`: an unquoted `$d` may be `. -c core.fsmonitor=./x`.
    several = read_git("git", ["-C", None, "status"])
    assert (
        several.unreadable
        == "the value of `-C` (argument 2) expands, and may be no word or several"
    )
    quoted = read_git("git", ["-C", None, "status"], one_word={1})
    assert quoted.unreadable is None
    assert ("cwd", "-C", None) in {(f.kind, f.via, f.value) for f in quoted.facts}
    setting = read_git("git", ["-c", None, "status"], one_word={1})
    assert setting.unreadable is not None
    assert "what it configures is unknown" in setting.unreadable
    assert ("bind", "-c") in {(f.kind, f.via) for f in setting.facts}


def test_the_subcommand_reads_what_is_known_of_its_expanding_words() -> None:
    assert read_git("git", ["commit", "-m", None]).unreadable is not None
    message = read_git("git", ["-C", "d", "commit", "-m", None], one_word={4})
    assert message.unreadable is None
    assert message.subcommand == ("commit",)
    added = read_git("git", ["add", None], one_word={1}, no_dash={1})
    assert added.unreadable is None
    assert ("read", "pathspec", 1, None) in {(f.kind, f.via, f.index, f.value) for f in added.facts}
    # A second subcommand word moves the words along: `remote add NAME "$url"`.
    remote = read_git("git", ["remote", "add", "o", None], one_word={3}, no_dash={3})
    assert remote.unreadable is None, remote


def test_an_alias_keeps_what_is_known_of_the_words_after_it() -> None:
    args: list[str | None] = ["-c", "alias.ci=commit -q", "ci", "-m", None]
    assert read_git("git", args).unreadable is not None
    reading = read_git("git", args, one_word={4})
    assert reading.unreadable is None
    assert reading.subcommand == ("commit",)


# --- proofs against git -------------------------------------------------------


def _repository(work: Path, env: Mapping[str, str]) -> None:
    git(work, env, "init", "-q", "-b", "main")
    (work / "f").write_text("line one\nTODO two\n")
    (work / "secret").write_text("s3cr3t\n")
    git(work, env, "add", "f")
    git(work, env, "commit", "-qm", "first")
    (work / "f").write_text("line one\nTODO changed\n")


PROOFS: dict[str, tuple[list[str], bool, set[str]]] = {
    # args, a marker runs, files created or changed (outside .git, plus refs)
    "c-fsmonitor": (["-c", "core.fsmonitor=marker fsm", "status"], True, set()),
    "c-unrelated-key": (["-c", "color.ui=never", "status"], False, set()),
    "c-external-diff": (["-c", "diff.external=marker ext", "diff"], True, set()),
    "alias-shell": (["-c", "alias.x=!marker alias", "x"], True, set()),
    "alias-builtin": (["-c", "alias.x=status", "x"], False, set()),
    "fetch-upload-pack": (["fetch", "--upload-pack=marker up", "."], True, set()),
    "grep-pager": (["grep", "-Omarker", "TODO"], True, set()),
    "grep-twin": (["grep", "-n", "TODO"], False, set()),
    "log-output": (["log", "--output=out", "-1"], False, {"out"}),
    "log-twin": (["log", "--oneline", "-1"], False, set()),
    "archive-output": (["archive", "--output=a.tar", "HEAD"], False, {"a.tar"}),
    "format-patch-writes-here": (["format-patch", "-1", "HEAD"], False, {"0001-first.patch"}),
    "format-patch-stdout": (["format-patch", "--stdout", "-1", "HEAD"], False, set()),
    "interpret-trailers-in-place": (
        ["interpret-trailers", "--in-place", "--trailer", "a: b", "f"],
        False,
        {"f"},
    ),
    "interpret-trailers-prints": (["interpret-trailers", "--trailer", "a: b", "f"], False, set()),
    "ssh-command-for-ls-remote": (
        ["-c", "core.sshCommand=marker ssh", "ls-remote", "ssh://host.invalid/r"],
        True,
        set(),
    ),
}


@pytest.mark.parametrize("case", PROOFS.values(), ids=PROOFS.keys())
def test_git_does_what_the_reading_states(case: tuple[list[str], bool, set[str]]) -> None:
    args, runs, written = case
    reading = read_git("git", list(args))
    stated_runs = any(f.kind == "execute" and f.action != "configured" for f in reading.facts)
    assert stated_runs == runs
    stated_writes = {f.value for f in reading.facts if f.kind == "write" and f.within is None}
    outcome = run_confined(["git", *args], prepare=_repository, timeout=30)
    assert bool(outcome.markers) == runs, (outcome.markers, outcome.stderr)
    touched = {path for path in outcome.created | outcome.changed if not path.startswith(".git/")}
    assert touched == written, outcome.stderr
    for path in written:
        assert path in stated_writes or "./" in stated_writes


def _rows() -> list[tuple[str, ProgramRow]]:
    rows = [(name, command.row) for name, command in COMMANDS.items()]
    for name, seconds in _SECOND.items():
        rows.extend((f"{name} {second}", row) for second, row in seconds.items())
    return rows


def test_every_row_that_takes_the_diff_options_writes_with_output() -> None:
    """``--output`` and ``-O`` do the same in every subcommand that reads the diff options."""
    for name, row in _rows():
        output, order = row.options.get("--output"), row.options.get("-O")
        if output is not None:
            assert output.effect is not None, name
            assert output.effect.kind == "write", name
        if order is not None and order.name == "-O":
            assert order.effect is not None, name
            assert order.effect.kind == "read", name


UNKNOWN_GLOBALS = (
    "-Csrc", "-C=src", "-Cx", "-ccore.pager=x", "-c=x", "-pP", "-Pp", "--", "-", "--no-pag",
    "--GIT-DIR=.git", "--no-pager=1", "--bare=1", "--version=1", "--list-cmds", "-x",
)  # fmt: skip
"""Words git's own options refuse: no clusters, no fused short values, no prefixes, no ``--``."""


@pytest.mark.parametrize("word", UNKNOWN_GLOBALS)
def test_git_refuses_what_the_reader_calls_an_unknown_global_option(word: str) -> None:
    # Were the word read as an option, git would go on to the alias, which runs the marker.
    args = ["-c", "alias.x=!marker alias", word, "x"]
    reading = read_git("git", args)
    spelled = word.partition("=")[0] if word.startswith("--") else word
    assert reading.undeclared == spelled
    outcome = run_confined(["git", *args], prepare=_repository)
    assert f"unknown option: {word}\n" in outcome.stderr
    assert outcome.markers == ()


KNOWN_GLOBALS = (
    ["-C", "."], ["-C", ""], ["--git-dir=.git"], ["--git-dir", ".git"], ["--work-tree=."],
    ["--work-tree", "."], ["--namespace=n"], ["--namespace", "n"], ["-c", "color.ui=never"],
    ["--config-env=user.name=HOME"], ["--config-env", "user.name=HOME"], ["-p"], ["-P"],
    ["--paginate"], ["--no-pager"], ["--no-replace-objects"], ["--literal-pathspecs"],
    ["--glob-pathspecs"], ["--icase-pathspecs"], ["--no-optional-locks"],
    ["--shallow-file", "shallow"],
)  # fmt: skip
"""Global options git reads, with their values in each spelling it accepts."""


@pytest.mark.parametrize("words", KNOWN_GLOBALS, ids=" ".join)
def test_git_reads_the_global_options_the_reader_reads(words: list[str]) -> None:
    args = ["-c", "alias.x=!marker alias", *words, "x"]
    reading = read_git("git", args)
    assert reading.undeclared is None
    assert reading.unreadable is None
    assert ("execute", "shell_text") in {(f.kind, f.action) for f in reading.facts}
    outcome = run_confined(["git", *args], prepare=_repository)
    assert outcome.markers == ("marker alias",), outcome.stderr


def test_a_bare_exec_path_prints_and_a_valued_one_runs_helpers_from_its_directory() -> None:
    bare = read_git("git", ["--exec-path", "foo"])
    assert bare.options == ("--exec-path",)
    assert not [f for f in bare.facts if f.kind == "execute"]
    helper = {"bin/git-foo": "mode:0755:#!/bin/sh\nmarker helper\n"}
    printed = run_confined(["git", "--exec-path", "foo"], files=helper)
    assert printed.markers == ()
    assert printed.stdout.strip()
    valued = read_git("git", ["--exec-path=bin", "foo"])
    assert ("execute", "--exec-path", "bin", "code") in {
        (f.kind, f.via, f.value, f.action) for f in valued.facts
    }
    ran = run_confined(["git", "--exec-path=bin", "foo"], files=helper)
    assert ran.markers == ("marker helper",), ran.stderr


def test_git_pages_through_the_configured_pager_on_a_terminal() -> None:
    """Why every paging subcommand states `core.pager`: on a terminal git runs it."""
    outcome = run_confined(
        ["git", "-c", "core.pager=marker pager", "log", "-1"], prepare=_repository, terminal=True
    )
    assert outcome.markers == ("marker pager",)
    quiet = run_confined(
        ["git", "-c", "core.pager=marker pager", "--no-pager", "log", "-1"],
        prepare=_repository,
        terminal=True,
    )
    assert quiet.markers == ()


def test_branch_listing_writes_nothing_and_creating_writes_a_ref() -> None:
    listing = run_confined(["git", "branch", "--list", "topic"], prepare=_repository)
    creating = run_confined(["git", "branch", "topic"], prepare=_repository)
    assert not {p for p in listing.created | listing.changed if "refs" in p}
    assert ".git/refs/heads/topic" in creating.created


def _with_remote(work: Path, env: Mapping[str, str]) -> None:
    _repository(work, env)
    git(work, env, "remote", "add", "origin", "https://example.invalid/r")


def test_an_option_before_a_remote_word_still_runs_the_word() -> None:
    """`git remote -v rm origin` rewrites the config; `git remote -v` only lists."""
    listing = run_confined(["git", "remote", "-v"], prepare=_with_remote)
    removing = run_confined(["git", "remote", "-v", "rm", "origin"], prepare=_with_remote)
    assert ".git/config" not in listing.changed
    assert ".git/config" in removing.changed


def test_config_with_two_operands_writes_the_repository_config() -> None:
    reading = run_confined(["git", "config", "user.name"], prepare=_repository)
    writing = run_confined(["git", "config", "user.name", "x"], prepare=_repository)
    assert ".git/config" not in reading.changed
    assert ".git/config" in writing.changed


@pytest.mark.parametrize(
    "name", ["log", "show", "diff", "whatchanged", "diff-tree", "format-patch", "range-diff"]
)
def test_options_read_as_taking_the_next_word_take_it_in_git(name: str) -> None:
    """
    For each option a revision or diff row reads with its value in the next word, git does too.

    The next word is ``--output=M``: were git to read the option as a switch,
    it would honour ``--output`` and write ``M``, a write the reader missed.
    """
    row = COMMANDS[name].row
    valued = sorted(
        {
            spelling
            for spelling, option in row.options.items()
            if option.arity == 1 and spelling != "--output"
        }
    )

    def check(work: Path, env: Mapping[str, str]) -> None:
        _repository(work, env)
        git(work, env, "commit", "-qam", "second")
        for spelling in valued:
            extra = ["--stdout"] if name == "format-patch" else []
            revisions = ["HEAD~1..HEAD"] if name in ("log", "whatchanged", "format-patch") else []
            git_args = [name, *extra, spelling, "--output=M", *revisions]
            with contextlib.suppress(subprocess.CalledProcessError):
                git(work, env, *git_args)  # git refusing the line is fine; only a write matters
            assert not (work / "M").exists(), spelling

    run_confined(["git", "--version"], prepare=check, timeout=120)


# --- properties ---------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "-c",
        "core.pager=x",
        "alias.x=!y",
        "-C",
        "d",
        "log",
        "status",
        "diff",
        "--output=o",
        "-p",
        "--",
        "x",
        "-v",
        "branch",
        "config",
        "remote",
        "add",
        "stash",
        "--no-pager",
        "--git-dir=g",
        "x",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(WORDS, st.text(max_size=8), st.none()), max_size=8))
def test_never_raises_on_any_command_line(args: list[str | None]) -> None:
    read_git("git", args)


def test_work_grows_linearly_with_the_command_line() -> None:
    # Operands are read by the shared table reader (`gateway._programs._table_reader`), held to its own bound.
    for shape in (["-c", "a.b=c"], ["--output=x"], ["-p"], ["-c", "alias.a=log"]):
        small = ["log"] if shape[0] != "-c" else []
        large = list(small)
        for _ in range(200):
            small = [*small, *shape] if shape[0] != "-c" else [*shape, *small]
        for _ in range(400):
            large = [*large, *shape] if shape[0] != "-c" else [*shape, *large]
        if shape[0] == "-c":
            small, large = [*small, "log"], [*large, "log"]
        _, small_steps = steps(read_git, "git", small)
        _, large_steps = steps(read_git, "git", large)
        assert large_steps <= 2.2 * small_steps + 2000, shape


def test_the_proof_directory_is_a_repository_only_inside_the_temporary_directory() -> None:
    """A canary: the proofs' repositories never appear in the real working directory."""
    run_confined(["git", "status"], prepare=_repository)
    assert not Path("secret").exists() or Path("secret").read_text() != "s3cr3t\n"
    assert os.environ.get("GIT_DIR") is None
