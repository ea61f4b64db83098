"""
Persistence points inside the workspace, each named by the program that loads it.

A persistence point is a file that makes code run later without the user
choosing that code: git runs a hook at the next commit and a filter driver
at the next ``git add``, Python runs a ``.pth`` line and ``sitecustomize``
at every start of the environment's interpreter, npm runs ``.npmrc``'s
``script-shell``, direnv and mise run what a directory names on ``cd``.
They are one table (`gateway._calls._places.DEFAULT_PERSISTENCE_PATTERNS`): a
write to one is declined under workspace-write, and inside the boundary it
is kept read-only. Each row here has its harmless twin, a file an ordinary
change makes, which stays allowed and writable. The loaders themselves are
run at the end, on a scratch repository and virtual environment, with
marker files: what the table says is what git, Python, npm and direnv do
(npm and direnv where they are installed).

Files the project's own commands run (``conftest.py``, ``Makefile``,
``package.json`` scripts, ``setup.py``) are not persistence points: they run
when someone runs the project's tests or build, code the rules cannot read
and judge as such, and writing them is the work an agent is asked to do.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gateway import default_config
from gateway.confinement import Confinement, Places, resolve_confinement
from gateway.effects import AnalysisContext, PathContext, Write, analyse_call
from rules.test_hostile_on_disk import (
    World,
    _review,
    world as world,  # the workspace and home they are judged in
)

WORK = "/work/app"
HOME = "/home/u"
_BOUND = 120  # seconds: only catches a hang

# (path in the workspace, the program that loads it and when)
POINTS = [
    (".git/hooks/pre-commit", "git, at `git commit`"),
    (".git/config", "git: filters, `core.fsmonitor`, `core.hooksPath`, at nearly every command"),
    (".git/info/attributes", "git: picks a filter driver, like `.gitattributes`, from no commit"),
    (".git/modules/sub/info/attributes", "git, in a submodule"),
    (".git/modules/sub/hooks/post-checkout", "git, in a submodule"),
    (".git/worktrees/w/config.worktree", "git, in a linked worktree"),
    (".githooks/pre-commit", "git, when `core.hooksPath` names it"),
    (".husky/pre-commit", "git through husky's `core.hooksPath`"),
    (".pre-commit-config.yaml", "pre-commit's hook, at `git commit`"),
    (".github/workflows/ci.yml", "CI, at the next push"),
    (".gitea/workflows/ci.yml", "Gitea Actions, at the next push"),
    (".forgejo/workflows/ci.yml", "Forgejo Actions, at the next push"),
    (".drone.yml", "Drone CI, at the next push"),
    (".woodpecker.yml", "Woodpecker CI, at the next push"),
    ("bitbucket-pipelines.yml", "Bitbucket Pipelines, at the next push"),
    (".cirrus.yml", "Cirrus CI, at the next push"),
    ("appveyor.yml", "AppVeyor, at the next push"),
    (".gitpod.yml", "Gitpod's tasks, when a workspace starts"),
    ("lefthook.yml", "lefthook's git hooks, at `git commit`"),
    (".simple-git-hooks.json", "simple-git-hooks' git hooks, at `git commit`"),
    (".roo/mcp.json", "Roo Code's MCP servers"),
    (".amazonq/mcp.json", "Amazon Q's MCP servers"),
    (".continue/config.json", "Continue's MCP servers and commands"),
    ("opencode.json", "opencode's MCP servers and commands"),
    (".aider.conf.yml", "aider's `lint-cmd` and `test-cmd`"),
    (".devcontainer.json", "dev containers' `initializeCommand`, on the host"),
    (".claude/settings.json", "Claude Code's hooks"),
    (".codex/config.toml", "Codex's settings"),
    (".gemini/settings.json", "Gemini CLI's settings"),
    (".cursor/hooks.json", "Cursor's hooks"),
    (".mcp.json", "MCP servers an agent starts"),
    (".agent-gateway.toml", "this gateway's project tier"),
    (".vscode/tasks.json", "VS Code's tasks"),
    ("app.code-workspace", "VS Code's workspace settings and tasks"),
    (".idea/workspace.xml", "JetBrains IDEs' run configurations and startup tasks"),
    (".zed/settings.json", "Zed's language servers and tasks"),
    (".helix/languages.toml", "Helix's language servers"),
    (".exrc", "vi and vim with `exrc`"),
    (".nvimrc", "neovim with `exrc`"),
    (".nvim.lua", "neovim with `exrc`"),
    (".dir-locals.el", "Emacs's directory variables (`eval`)"),
    (".devcontainer/devcontainer.json", "dev containers' `postCreateCommand`"),
    (".envrc", "direnv, on `cd`"),
    (".direnv/flake-profile.rc", "direnv's cached environments (nix-direnv sources them)"),
    (".tool-versions", "asdf and mise shims (`python path:DIR`)"),
    ("mise.toml", "mise's hooks, tasks and `_.source`, on `cd`"),
    (".mise.toml", "mise, on `cd`"),
    ("mise.local.toml", "mise, on `cd`"),
    (".mise/config.toml", "mise, on `cd`"),
    (".config/mise/config.toml", "mise, on `cd`"),
    (".rtx.toml", "rtx (mise's old name), on `cd`"),
    (".npmrc", "npm: `script-shell`, `node-options`, `git`, at every npm command"),
    (".yarnrc.yml", "yarn's `yarnPath`, at every yarn command"),
    (".yarn/releases/yarn-4.1.0.cjs", "yarn, where `yarnPath` points"),
    (".yarn/plugins/plugin.cjs", "yarn's plugins, at every yarn command"),
    (".pnpmfile.cjs", "pnpm's hooks, at every install"),
    ("rust-toolchain.toml", "rustup (`path`), at every cargo command"),
    (
        ".cargo/config.toml",
        "cargo's `build.rustc`, at every cargo command (`cargo metadata` on open)",
    ),
    (".cargo/config", "cargo's config under its old name"),
    ("sub/.cargo/config.toml", "cargo, in a subdirectory it is run from"),
    (".hg/hgrc", "Mercurial's `[hooks]`, at nearly every hg command"),
    (".venv/lib/python3.12/site-packages/evil.pth", "Python's `site`, at every start"),
    (".venv/lib/python3.12/site-packages/sitecustomize.py", "Python's `site`, at every start"),
    (".venv/lib/python3.12/site-packages/sitecustomize.pyc", "Python's `site` (bytecode)"),
    (".venv/lib/python3.12/site-packages/sitecustomize/__init__.py", "Python's `site` (package)"),
    (".venv/lib/python3.12/site-packages/usercustomize.py", "Python's `site`, at every start"),
    (".venv/pyvenv.cfg", "Python: which interpreter and library the venv uses"),
]

# Files an ordinary change makes, beside the points above: they stay allowed.
TWINS = [
    # pytest imports it (`test_allowlists` runs pytest on one): the
    # project's tests, run when someone runs them
    "conftest.py",
    "tests/conftest.py",
    "Makefile",  # make's recipes: the project's build
    "package.json",  # npm's scripts: the project's own commands
    "setup.py",
    "Cargo.toml",  # the project's own manifest and build script: its build
    "build.rs",
    ".cargo/registry-notes.md",
    ".hgignore",
    ".gitattributes",  # picks only drivers `.git/config` defines
    ".gitignore",
    ".python-version",  # picks an installed interpreter by name
    ".github/CODEOWNERS",
    ".venv/lib/python3.12/site-packages/mod/core.py",
    ".venv/lib/python3.12/site-packages/notes.txt",
    "src/hooks/pre-commit",
    "docs/mise.md",
    "bin/activity.sh",
    # the venv's programs: run when someone runs them, as the project's are
    ".venv/bin/activate",
    ".venv/bin/pytest",
]


def _box(profile: str = "workspace-write") -> Confinement:
    config = default_config()
    box = resolve_confinement(
        profile, config.profile(profile).confinement, cwd=WORK, home=HOME, paths=config.paths
    )
    assert isinstance(box, Confinement), box
    return box


def _written_classes(path: str) -> tuple[str, ...]:
    context = AnalysisContext(paths=PathContext(cwd=WORK, home=HOME))
    (effect,) = [
        e for e in analyse_call(f"echo x > {path}", context).effects if isinstance(e, Write)
    ]
    return effect.path.classes


@pytest.mark.parametrize(("path", "loader"), POINTS, ids=[p for p, _ in POINTS])
def test_a_persistence_point_is_one_to_the_planner_and_kept_read_only_in_the_boundary(
    path: str, loader: str
) -> None:
    assert loader
    assert "persistence" in _written_classes(path), path
    assert Places(_box()).place(f"{WORK}/{path}") == "protected"


@pytest.mark.parametrize("path", TWINS)
def test_harmless_twin_an_ordinary_file_beside_them_is_writable(path: str) -> None:
    assert "persistence" not in _written_classes(path), path
    assert Places(_box()).place(f"{WORK}/{path}") == "writable"


def test_the_rows_are_unique() -> None:
    paths = [path for path, _ in POINTS]
    assert len(set(paths)) == len(paths)
    assert not set(paths) & set(TWINS)


# ───────────────────────── what the policy decides ─────────────────────────


def test_planting_a_point_is_declined_and_writing_a_twin_allowed(world: World) -> None:
    planted = [f"echo x > {path}" for path, _ in POINTS]
    planted += [f'Write {{"file_path": "{path}"}}' for path, _ in POINTS[::7]]
    ordinary = [f"echo x > {path}" for path in TWINS if "/" not in path]
    ordinary += [f'Write {{"file_path": "{path}"}}' for path in TWINS]
    # whole directories named like a point's parents, that hold none
    ordinary += ["rm -rf build/bin", "cp -r bin out", "chmod -R +x bin", "rm -rf docs/tools"]
    verdicts = _review(planted + ordinary, "workspace-write", world)
    wrong = [
        f"{call!r} → {verdict.decision}: {verdict.reason}"
        for call, verdict in zip(planted, verdicts, strict=False)
        if verdict.decision != "decline" or verdict.rule != "write.persistence"
    ]
    wrong += [
        f"{call!r} → {verdict.decision}: {verdict.reason}"
        for call, verdict in zip(ordinary, verdicts[len(planted) :], strict=True)
        if verdict.decision != "allow"
    ]
    assert not wrong, "\n".join(wrong)


def test_the_repository_store_is_changed_only_through_git(world: World) -> None:
    calls = [
        "echo 0123abcd > .git/refs/heads/main",
        "printf 'ref: refs/heads/evil\\n' > .git/HEAD",
        "rm -rf .git/objects",
        'Write {"file_path": ".git/packed-refs"}',
        "echo x > notes.txt",
        "cat .git/HEAD",
        "echo build/ >> .git/info/exclude",
    ]
    found = [(v.decision, v.rule) for v in _review(calls, "workspace-write", world)]
    assert found[:4] == [("ask", "write.repository-store")] * 4, found
    assert [decision for decision, _ in found[4:]] == ["allow"] * 3, found


# ───────────────────────── the loaders, run ─────────────────────────


def _git_environment(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.com",
    }


@pytest.fixture
def repository(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    home = tmp_path / "home"
    home.mkdir()
    (home / "gitconfig").write_text("")
    work = tmp_path / "work"
    environ = _git_environment(home)
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=environ, timeout=_BOUND)
    return work, environ


def _git(work: Path, environ: dict[str, str], *arguments: str) -> None:
    subprocess.run(
        ["git", *arguments], cwd=work, check=True, env=environ, timeout=_BOUND, capture_output=True
    )


def _planner_sees_a_point(work: Path, path: Path) -> bool:
    relative = path.relative_to(work)
    context = AnalysisContext(paths=PathContext(cwd=str(work), home=HOME))
    (effect,) = [
        e for e in analyse_call(f"echo x > {relative}", context).effects if isinstance(e, Write)
    ]
    return "persistence" in effect.path.classes


def test_git_runs_a_hook_it_finds_in_git_hooks(repository: tuple[Path, dict[str, str]]) -> None:
    work, environ = repository
    marker = work.parent / "hook-ran"
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    _git(work, environ, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert _planner_sees_a_point(work, hook)


def test_git_runs_a_hook_where_core_hooks_path_points(
    repository: tuple[Path, dict[str, str]],
) -> None:
    work, environ = repository
    marker = work.parent / "hook-ran"
    _git(work, environ, "config", "core.hooksPath", ".githooks")
    hook = work / ".githooks" / "pre-commit"
    hook.parent.mkdir()
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    _git(work, environ, "commit", "-q", "--allow-empty", "-m", "x")
    assert marker.exists()
    assert _planner_sees_a_point(work, hook)


@pytest.mark.parametrize("attributes", [".gitattributes", ".git/info/attributes"])
def test_git_runs_a_filter_the_config_defines_where_attributes_pick_it(
    repository: tuple[Path, dict[str, str]], attributes: str
) -> None:
    work, environ = repository
    marker = work.parent / "filter-ran"
    _git(work, environ, "config", "filter.x.clean", f"touch {marker}; cat")
    (work / attributes).write_text("*.txt filter=x\n")
    (work / "a.txt").write_text("text\n")
    _git(work, environ, "add", "a.txt")
    assert marker.exists()
    assert _planner_sees_a_point(work, work / ".git" / "config")
    # the attributes only pick a driver: the code is the config's
    assert _planner_sees_a_point(work, work / attributes) == attributes.startswith(".git/")


def test_harmless_twin_attributes_alone_run_nothing(
    repository: tuple[Path, dict[str, str]],
) -> None:
    work, environ = repository
    (work / ".gitattributes").write_text("*.txt filter=undefined diff=undefined\n")
    (work / "a.txt").write_text("text\n")
    _git(work, environ, "add", "a.txt")
    _git(work, environ, "commit", "-q", "-m", "x")
    assert sorted(p.name for p in work.parent.iterdir()) == ["home", "work"]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment (no pip) and its site-packages."""
    root = tmp_path_factory.mktemp("venv") / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=_BOUND
    )
    return root


def _site_packages(venv: Path) -> Path:
    (found,) = venv.glob("lib/python3*/site-packages")
    return found


def _start(venv: Path) -> None:
    subprocess.run(
        [str(venv / "bin" / "python"), "-c", "pass"],
        check=True,
        timeout=_BOUND,
        env={"PATH": "/usr/bin:/bin"},
    )


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("planted.pth", "import os; open({marker!r}, 'w').close()\n"),
        ("sitecustomize.py", "open({marker!r}, 'w').close()\n"),
    ],
)
def test_python_runs_a_file_of_site_packages_at_every_start(
    venv: Path, tmp_path: Path, name: str, body: str
) -> None:
    marker = tmp_path / "started"
    planted = _site_packages(venv) / name
    planted.write_text(body.format(marker=str(marker)))
    try:
        _start(venv)
    finally:
        planted.unlink()
    assert marker.exists()
    assert _planner_sees_a_point(venv.parent, planted)


def test_harmless_twin_a_module_of_site_packages_runs_only_when_imported(
    venv: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "started"
    module = _site_packages(venv) / "ordinary_module.py"
    module.write_text(f"open({str(marker)!r}, 'w').close()\n")
    try:
        _start(venv)
    finally:
        module.unlink()
    assert not marker.exists()
    assert not _planner_sees_a_point(venv.parent, module)


def test_npm_runs_the_shell_a_projects_npmrc_names(tmp_path: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("needs npm")
    marker = tmp_path / "shell-ran"
    shell = tmp_path / "shell.sh"
    shell.write_text(f'#!/bin/sh\ntouch {marker}\nexec /bin/sh "$@"\n')
    shell.chmod(0o755)
    (tmp_path / "package.json").write_text('{"name": "p", "scripts": {"check": "true"}}\n')
    (tmp_path / ".npmrc").write_text(f"script-shell={shell}\n")
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(
        [npm, "run", "--silent", "check"],
        cwd=tmp_path,
        timeout=_BOUND,
        capture_output=True,
        check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
    )
    assert marker.exists()
    assert _planner_sees_a_point(tmp_path, tmp_path / ".npmrc")


def test_cargo_runs_the_rustc_its_config_names_at_cargo_metadata(tmp_path: Path) -> None:
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("needs cargo")
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "Cargo.toml").write_text('[package]\nname = "p"\nversion = "0.1.0"\nedition = "2021"\n')
    (work / "src" / "main.rs").write_text("fn main() {}\n")
    marker = tmp_path / "wrapper-ran"
    wrapper = tmp_path / "wrapper.sh"
    wrapper.write_text(f'#!/bin/sh\ntouch {marker}\nexec "$@"\n')
    wrapper.chmod(0o755)
    config = work / ".cargo" / "config.toml"
    config.parent.mkdir()
    # what an editor's language server runs when the project is opened
    metadata = [cargo, "metadata", "--format-version", "1", "--offline"]
    # rustup's toolchains live in the user's own home, which the suite replaces
    own = Path(pwd.getpwuid(os.getuid()).pw_dir)
    environ = {
        "RUSTUP_HOME": str(own / ".rustup"),
        "CARGO_HOME": str(own / ".cargo"),
        **os.environ,
    }

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            metadata,
            cwd=work,
            timeout=_BOUND,
            capture_output=True,
            text=True,
            env=environ,
            check=False,
        )

    if run().returncode != 0:
        pytest.skip("cargo has no toolchain to run here")
    assert not marker.exists()  # harmless twin: no config, no wrapper
    config.write_text(f'[build]\nrustc-wrapper = "{wrapper}"\n')
    assert run().returncode == 0
    assert marker.exists()
    assert _planner_sees_a_point(work, config)
    assert not _planner_sees_a_point(work, work / "Cargo.toml")


def _direnv(work: Path, home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["direnv", *arguments],
        cwd=work,
        timeout=_BOUND,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home)},
    )


def test_direnv_runs_what_its_directory_holds_once_allowed(tmp_path: Path) -> None:
    if shutil.which("direnv") is None:
        pytest.skip("needs direnv")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    (work / ".direnv" / "bin").mkdir(parents=True)
    # what `layout python` does: the directory's own programs first on PATH
    (work / ".envrc").write_text("PATH_add .direnv/bin\n")
    assert _direnv(work, home, "allow", ".").returncode == 0
    # planted later, with no new `direnv allow`: `ls` in the directory runs it
    marker = tmp_path / "ran"
    planted = work / ".direnv" / "bin" / "ls"
    planted.write_text(f"#!/bin/sh\ntouch {marker}\n")
    planted.chmod(0o755)
    ran = _direnv(work, home, "exec", ".", "ls")
    assert ran.returncode == 0, ran.stderr
    assert marker.exists()
    assert _planner_sees_a_point(work, planted)
    assert _planner_sees_a_point(work, work / ".envrc")
