"""
Places, names and tools judged by what is declared, not by lists of the dangerous.

Each row is a bypass that a list of dangerous spellings let through, with
its harmless twin; all go to a real `Gateway` built from the default config,
in the workspace and home directory of ``test_hostile_on_disk`` (a home with
keys, a workspace with a ``.env``, links into the home directory), under
both profiles. What bash does with the globs here is shown by running it in
``tests/effects/test_globs.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rules.test_hostile_on_disk import PROFILES, World, _review, build_world

WRITE = ("workspace-write",)

# (id, bypass, twin, profiles): the bypass must not be allowed, the twin must be.
PAIRS = [
    # Globs, in every segment, as bash matches them.
    ("glob-directory-segment", "cat ~/.a[w]s/cred*", "cat src/no*", PROFILES),
    ("glob-hidden-directory", "head -n 5 ~/.[a]ws/*", "head -n 5 s[r]c/*.txt", PROFILES),
    ("glob-into-hooks", "cp x.sh .git/hoo?s/", "cp x.sh sr?/", WRITE),
    ("glob-deletes-git", "rm -rf .gi?", "rm -rf buil?", WRITE),
    ("glob-matches-a-link-on-disk", "cat lib/*.txt", "cat src/*.txt", PROFILES),
    ("glob-nocaseglob", "shopt -s nocaseglob; cat ./.eN[v]", "cat ./.eN[x]", PROFILES),
    # `.ENV` is `.env` on a case-insensitive file system (macOS's, Windows')
    ("glob-upper-case", "cat ./.EN[V]", "cat ./.EN[X]", PROFILES),
    ("glob-dotglob", "shopt -s dotglob; cat ./[.]env", "cat ./[.]env", PROFILES),
    ("glob-shell-option", "bash -O dotglob -c 'cat ./?env'", "bash -c 'cat ./?env'", PROFILES),
    # A shell's options at start: judged as `set` and `shopt` in its text are.
    (
        "shell-started-keyword",
        "bash -k -c 'cat README.md BASH_ENV=x.sh'",
        "bash -e -c 'cat README.md'",
        PROFILES,
    ),
    (
        "shell-started-keyword-cluster",
        "bash -xkc 'cat README.md'",
        "bash -xc 'cat README.md'",
        PROFILES,
    ),
    (
        "shell-started-cdable-vars",
        "bash -O cdable_vars -c 'cd HOME && cat .aws/credentials'",
        "bash -O nullglob -c 'cd src && ls'",
        PROFILES,
    ),
    (
        "shell-started-expand-aliases",
        "bash -O expand_aliases -c ls",
        "bash -O dotglob -c ls",
        PROFILES,
    ),
    ("shell-started-allexport", "bash -o allexport -c ls", "bash -eo pipefail -c ls", PROFILES),
    ("shell-started-interactive", "bash -i -c ls", "bash -lc ls", PROFILES),
    (
        "shell-started-physical",
        "bash -P -c 'cd link_sub/.. && ls'",
        "bash --norc -c 'cd src/.. && ls'",
        PROFILES,
    ),
    # A quoted `..` climbs from where a link led as a plain one does.
    (
        "quoted-climb-through-a-link",
        'cat "link_sub/../.aws/credentials"',
        'cat "src/../README.md"',
        PROFILES,
    ),
    # `cd -P`: `..` climbs from where a link led, which only the disk shows.
    (
        "cd-physical-climbs-a-link",
        "cd -P link_sub/.. && cat .aws/credentials",
        "cd -P src && cat notes.txt",
        PROFILES,
    ),
    (
        "cd-physical-then-climbs",
        "cd -P link_sub && cd .. && cat .aws/credentials",
        "cd link_sub/.. && cat README.md",
        PROFILES,
    ),
    (
        "cd-climbs-physically",
        "cd link_sub && cd -P .. && cat .aws/credentials",
        "cd src && cd .. && cat README.md",
        PROFILES,
    ),
    # Reads: only of places the profile declares readable, whatever the name says.
    ("home-pgpass", "cat ~/.pgpass", "cat README.md", PROFILES),
    ("home-my-cnf", "cat ~/.my.cnf", "cat /etc/os-release", PROFILES),
    ("home-gemini-oauth", "cat ~/.gemini/oauth_creds.json", "cat .gitignore", PROFILES),
    (
        "home-copilot-tool",
        'Read {"file_path": "{HOME}/.config/github-copilot/hosts.json"}',
        'Read {"file_path": "src/notes.txt"}',
        PROFILES,
    ),
    ("home-through-a-link", "cat link_sub/notes.txt", "cat src/notes.txt", PROFILES),
    ("another-home", "cat /root/.aws/credentials", "cat /usr/lib/os-release", PROFILES),
    ("shadow-backup", "cat /etc/shadow-", "cat /etc/hostname", PROFILES),
    (
        "service-account-token",
        "cat /var/run/secrets/kubernetes.io/serviceaccount/token",
        "cat /etc/hosts",
        PROFILES,
    ),
    ("run-secrets", "cat /run/secrets/db_password", "cat /etc/passwd", PROFILES),
    ("cluster-admin", "cat /etc/kubernetes/admin.conf", "cat /etc/hostname", PROFILES),
    ("k3s-admin", "cat /etc/rancher/k3s/k3s.yaml", "cat /etc/os-release", PROFILES),
    ("mysql-maintenance", "cat /etc/mysql/debian.cnf", "cat /etc/issue", PROFILES),
    ("workspace-git-credentials", "cat backup/.git-credentials", "cat backup/notes.txt", PROFILES),
    ("workspace-kubeconfig", "cat deploy/kubeconfig", "cat deploy/values.yaml", PROFILES),
    ("workspace-pgpass", "cat .pgpass", "cat .editorconfig", PROFILES),
    ("proc-task-environ", "cat /proc/self/task/1/environ", "cat /proc/self/status", PROFILES),
    ("proc-task-root", "cat /proc/self/task/1/root/etc/hostname", "cat /proc/cpuinfo", PROFILES),
    ("device", "head -c 64 /dev/sda", "head -c 64 /dev/urandom", PROFILES),
    # Application bundles are a system place; the keychains and the data
    # volume beside them are not.
    (
        "macos-data-volume",
        "cat /System/Volumes/Data/Users/u/.aws/credentials",
        "find /Applications/ -name '*.java' -exec grep -i TODO {} +",
        PROFILES,
    ),
    (
        "macos-keychain",
        "cat /Applications/../Library/Keychains/System.keychain",
        "cat /Applications/Tool.app/Contents/Info.plist",
        PROFILES,
    ),
    ("logs-record-command-lines", "tail /var/log/syslog", "cat /proc/meminfo", PROFILES),
    ("boot-secrets", "cat /boot/grub/user.cfg", "cat /usr/share/doc/git/copyright", PROFILES),
    # Tables: what a help option, a config printer or awk reaches.
    ("pytest-help-imports-conftest", "pytest --help", "pytest --version", PROFILES),
    ("pip-config-prints-index-password", "pip config list", "pip list", PROFILES),
    ("pip-config-get", "pip config get global.index-url", "pip show requests", PROFILES),
    (
        "npm-config-prints-token",
        "npm config get //registry.npmjs.org/:_authToken",
        "npm ls",
        PROFILES,
    ),
    (
        "find-puts-a-name-into-shell-text",
        "find src -name '*.py' -exec bash -c 'echo {}' \\;",
        "find src -name '*.py' -exec wc -l {} \\;",
        PROFILES,
    ),
    (
        "gawk-symtab-environ",
        """awk 'BEGIN{print SYMTAB["ENVIRON"]["X"]}'""",
        "awk '{print $1}' README.md",
        PROFILES,
    ),
    ("jq-env", "jq -n '$ENV.X'", "jq . README.md", PROFILES),
    ("jq-library-directory", "jq -L lib 'import \"x\" as x; .' README.md", "jq -n 1", PROFILES),
    # Variables: shown only when declared harmless, whatever the name says.
    ("variable-database-url", 'echo "$DATABASE_URL"', 'echo "$HOME"', PROFILES),
    ("variable-dsn", "echo $SENTRY_DSN", "echo $SHELL", PROFILES),
    ("variable-pass", "echo $SMTP_PASS", "echo $LANG $LC_ALL", PROFILES),
    ("variable-printenv", "printenv DATABASE_URL", "printenv PATH", PROFILES),
    ("variable-declare-p", "declare -p SMTP_PASS", "printenv HOME", PROFILES),
    ("variable-whole-environment", "env", "echo $USER", PROFILES),
    # Tools: a field the row does not declare may name a path.
    (
        "tool-undeclared-path-field",
        'read_file {"path": "{HOME}/.ssh/id_rsa"}',
        'read_file {"file_path": "README.md"}',
        PROFILES,
    ),
    (
        "tool-extra-field",
        'Read {"file_path": "README.md", "path": "{HOME}/.ssh/id_rsa"}',
        'Read {"file_path": "README.md", "offset": 1, "limit": 5}',
        PROFILES,
    ),
    (
        "tool-glob-pattern-climbs",
        'Glob {"pattern": "../home/.ssh/*"}',
        'Glob {"pattern": "*.py", "path": "src"}',
        PROFILES,
    ),
    (
        "tool-glob-pattern-absolute",
        'glob {"pattern": "{HOME}/.a[w]s/*"}',
        'glob {"pattern": "**/*.md", "dir_path": "src"}',
        PROFILES,
    ),
    ("variable-in-heredoc", "cat <<EOF\n$SENTRY_DSN\nEOF", "cat <<EOF\n$TERM\nEOF", PROFILES),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    built = build_world(tmp_path_factory.mktemp("places"))
    work = Path(built.work)
    (work / "lib").mkdir()
    os.symlink(Path(built.home) / ".ssh/id_rsa", work / "lib/k.txt")
    (work / "src/notes.txt").write_text("notes\n")
    (work / "build").mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", built.home)
        yield built


@pytest.mark.parametrize("profile", PROFILES)
def test_no_bypass_is_allowed_and_every_twin_is(profile: str, world: World) -> None:
    rows = [row for row in PAIRS if profile in row[3]]
    calls = [call for _, bypass, twin, _ in rows for call in (bypass, twin)]
    verdicts = iter(_review(calls, profile, world))
    wrong = []
    for row_id, bypass, twin, _ in rows:
        first, second = next(verdicts), next(verdicts)
        if first.decision == "allow":
            wrong.append(f"{row_id}: {bypass!r} was allowed: {first.reason}")
        if second.decision != "allow":
            wrong.append(f"{row_id}: twin {twin!r} → {second.decision}: {second.reason}")
    assert wrong == [], "\n".join(wrong)


def test_a_shell_option_at_start_is_named_as_the_same_option_in_the_text(world: World) -> None:
    """``bash -k -c …`` is asked about with the sentence ``set -k`` gets: it names the option."""
    calls = ["bash -k -c ls", "set -k", "bash -O cdable_vars -c ls", "shopt -s cdable_vars"]
    reasons = [verdict.reason or "" for verdict in _review(calls, "read-only", world)]
    for reason, option in zip(
        reasons, ("keyword", "keyword", "cdable_vars", "cdable_vars"), strict=True
    ):
        assert f"sets the shell option `{option}`" in reason, reason


@pytest.mark.parametrize("profile", PROFILES)
def test_a_program_path_finds_where_the_agent_writes_is_code_of_the_workspace(
    profile: str, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PATH=.venv/bin:…``: ``python3 --version`` runs the workspace's file, judged as ``./python3`` is."""
    directory = Path(world.work) / ".venv/bin"
    directory.mkdir(parents=True)
    try:
        for name in ("python3", "cat"):
            (directory / name).write_text("#!/bin/sh\n")
            (directory / name).chmod(0o755)
        calls = ["python3 --version", "cat README.md", "ls", "bash -c 'python3 -V'"]
        plain = _review(calls, profile, world)
        monkeypatch.setenv("PATH", f"{directory}:{os.environ['PATH']}")
        activated = _review(calls, profile, world)
    finally:
        shutil.rmtree(directory.parent)
    assert [v.decision for v in plain] == ["allow"] * 4, [v.reason for v in plain]
    assert [v.decision for v in activated] == ["ask", "ask", "allow", "ask"]
    for index, name in ((0, "python3"), (1, "cat"), (3, "python3")):
        assert f"{directory}/{name}" in (activated[index].reason or ""), activated[index].reason


def test_the_rows_are_unique() -> None:
    assert len({row[0] for row in PAIRS}) == len(PAIRS)


def test_pytest_help_imports_the_projects_conftest(tmp_path: Path) -> None:
    """What the `pytest --help` row rests on: pytest imports conftest.py to list its options."""
    (tmp_path / "conftest.py").write_text(
        "import pathlib\npathlib.Path(__file__).with_name('ran').write_text('x')\n"
    )
    for option, runs in (("--version", False), ("--help", True)):
        subprocess.run(
            [sys.executable, "-m", "pytest", option, "-p", "no:cacheprovider"],
            cwd=tmp_path,
            capture_output=True,
            # Installed plugins are not the point: without them it starts at once.
            env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
            timeout=600,
            check=False,
        )
        assert (tmp_path / "ran").exists() is runs, option
        (tmp_path / "ran").unlink(missing_ok=True)


def test_find_puts_a_file_name_into_the_shell_text(tmp_path: Path) -> None:
    """What the `find -exec sh -c '… {}'` row rests on: a file's name runs as code."""
    (tmp_path / "a$(touch ran)").write_text("")
    subprocess.run(
        ["/usr/bin/find", ".", "-name", "a*", "-exec", "/bin/sh", "-c", "echo {}", ";"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (tmp_path / "ran").exists()
