"""
What the repository check costs at review time, and what reading the languages costs.

Run: ``.venv/bin/python benchmarks/git_trust.py [--rounds N]``.

It builds, in a temporary directory, the repositories a review meets: a
fresh clone-sized repository, one with a linked worktree (the layout of a
checkout like this one), one whose configuration includes four more files
and sets code keys, one with 16 submodules, and one with every hook; then
it times `gateway._programs._git_trust.inspect_repository` on each (cold: the first
run, with the files outside the page cache only when the machine says so;
warm: the median of the rest) and prints p50/p95 in microseconds, with the
files read. For scale it times reading ``git status`` and ``git log -p`` with
the git reader, and the whole plan of ``git status`` (`plan_call`-style
reading through `gateway._read.read_shell` is measured by benchmarks/plan.py).

Nothing here is asserted: speed is measured here, never in unit tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gateway._programs._awk import read_awk  # noqa: E402
from gateway._programs._git import read_git  # noqa: E402
from gateway._programs._git_trust import inspect_repository, repository_refusal  # noqa: E402
from gateway._programs._jq import read_jq  # noqa: E402
from gateway._programs._sed import read_sed  # noqa: E402

ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@example.invalid",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@example.invalid",
}


def _git(directory: Path, *args: str) -> None:
    git = shutil.which("git")
    if git is None:
        raise SystemExit("git is not installed")
    subprocess.run(
        [git, *args],
        cwd=directory,
        env={**ENVIRONMENT, "HOME": str(directory)},
        check=True,
        capture_output=True,
    )


def _repository(directory: Path, files: int = 200) -> Path:
    directory.mkdir(parents=True)
    _git(directory, "init", "-q", "-b", "main")
    for index in range(files):
        (directory / f"f{index}.txt").write_text(f"{index}\n")
    _git(directory, "add", ".")
    _git(directory, "commit", "-qm", "first")
    return directory


def build(scratch: Path) -> dict[str, Path]:
    repositories: dict[str, Path] = {}
    repositories["plain"] = _repository(scratch / "plain")
    main = _repository(scratch / "main")
    _git(main, "worktree", "add", "-q", str(scratch / "linked"), "-b", "linked")
    repositories["linked worktree"] = scratch / "linked"
    included = _repository(scratch / "included")
    for index in range(4):
        (included / f"extra{index}.cfg").write_text(f'[diff "d{index}"]\n\ttextconv = t{index}\n')
        _git(included, "config", "--add", "include.path", f"../extra{index}.cfg")
    _git(included, "config", "core.pager", "less")
    repositories["4 includes, code keys"] = included
    modules = _repository(scratch / "modules")
    for index in range(16):
        module = modules / ".git" / "modules" / f"m{index}"
        module.mkdir(parents=True)
        (module / "HEAD").write_text("ref: refs/heads/main\n")
        (module / "objects").mkdir()
        (module / "refs").mkdir()
        (module / "config").write_text("[core]\n\tbare = false\n")
    repositories["16 submodules"] = modules
    hooked = _repository(scratch / "hooked")
    for name in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction"):
        hook = hooked / ".git" / "hooks" / name
        hook.write_text("#!/bin/sh\n")
        hook.chmod(0o755)
    repositories["4 hooks"] = hooked
    return repositories


def timed(function: Callable[[], object], rounds: int) -> tuple[float, float, float]:
    """(first, p50, p95) in microseconds."""
    samples: list[int] = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        function()
        samples.append(time.perf_counter_ns() - start)
    first = samples[0] / 1_000
    rest = sorted(samples[1:]) or sorted(samples)
    p95 = rest[min(len(rest) - 1, round(0.95 * len(rest)) - 1)] / 1_000
    return first, statistics.median(rest) / 1_000, p95


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=500)
    options = parser.parse_args()
    status = read_git("git", ["status"])
    with tempfile.TemporaryDirectory(prefix="gateway-bench-") as scratch:
        repositories = build(Path(scratch))
        print(f"inspect_repository, {options.rounds} rounds (microseconds)")
        print(
            f"{'repository':<24}{'first':>9}{'p50':>9}{'p95':>9}  files read / refusal of `git status`"
        )
        for name, path in repositories.items():
            environ = {"HOME": scratch, "GIT_CONFIG_NOSYSTEM": "1"}
            workspace = [str(path)]

            def inspect(
                path: Path = path,
                workspace: list[str] = workspace,
                environ: dict[str, str] = environ,
            ) -> object:
                return inspect_repository(str(path), workspace=workspace, environ=environ)

            first, p50, p95 = timed(inspect, options.rounds)
            inspection = inspect_repository(str(path), workspace=workspace, environ=environ)
            refusal = repository_refusal(status, inspection) or "none"
            print(
                f"{name:<24}{first:>9.1f}{p50:>9.1f}{p95:>9.1f}  {len(inspection.files)} / {refusal}"
            )
    print()
    print(f"reading a call's program words, {options.rounds} rounds (microseconds)")
    readers: dict[str, Callable[[], object]] = {
        "git status": lambda: read_git("git", ["status"]),
        "git log -p --stat -5": lambda: read_git("git", ["log", "-p", "--stat", "-5"]),
        "git -c k=v diff HEAD~1 -- src": lambda: read_git(
            "git", ["-c", "core.autocrlf=true", "diff", "HEAD~1", "--", "src"]
        ),
        "sed -n 1,20p f": lambda: read_sed("sed", ["-n", "1,20p", "f"]),
        "awk '{print $1}' f": lambda: read_awk("awk", ["{print $1}", "f"]),
        "awk 64 KiB program": lambda: read_awk("awk", ['{ s += $1; print s > "out" }\n' * 2_400]),
        "jq .name package.json": lambda: read_jq("jq", [".name", "package.json"]),
    }
    for name, reader in readers.items():
        first, p50, p95 = timed(reader, options.rounds if "64 KiB" not in name else 20)
        print(f"{name:<32}{first:>9.1f}{p50:>9.1f}{p95:>9.1f}")
    print()
    print(
        f"(CPUs on this machine: {os.cpu_count()}; other load makes these numbers worse, never better)"
    )


if __name__ == "__main__":
    main()
