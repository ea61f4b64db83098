"""
What the boundary costs a run: bubblewrap's start-up over a bare ``bash -c``, and building its layout.

Run: ``.venv/bin/python benchmarks/confine.py [--runs N] [--workspace DIR]``.

Three numbers, each as percentiles over ``--runs`` runs (default 50):

* **bare**: ``bash --noprofile --norc -c true``, as a host runs a command;
* **confined**: the same inside the workspace-write boundary of a workspace
  (`gateway._review._bwrap.layout` built once, then ``bwrap … -- bash … -c true``),
  and the median difference, which is what the boundary adds to each run;
* **layout**: building the boundary's options for the workspace (resolving
  the profile, walking the workspace for secrets and persistence points),
  which ``gateway run`` does once per run.

The workspace is a fresh git repository with 200 files by default, or
``--workspace DIR`` (a real project: the walk grows with its files).
With ``--ablate``, what each part of the boundary costs: the same run
with one part left out at a time (the network, PID and IPC namespaces; the
fresh ``/proc`` and ``/dev``; the file system's binds), each against bubblewrap
around a bare ``/usr``, and ``unshare`` alone (a user namespace, then one
with a network namespace). These variants are measured, never used to run
anything. All variants run interleaved, so a busy machine slows them alike.

Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gateway import default_config
from gateway._review._bwrap import bwrap_program, command_argv, layout, unavailable
from gateway.confinement import Confinement, Places, resolve_confinement


def _times(action: Callable[[], object], runs: int) -> list[float]:
    found = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        found.append(time.perf_counter() - started)
    return found


def _show(name: str, times: Sequence[float]) -> float:
    ordered = sorted(times)
    median = statistics.median(ordered)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    print(
        f"  {name:<10} median {1000 * median:8.2f} ms   p90 {1000 * p90:8.2f} ms   max {1000 * ordered[-1]:8.2f} ms"
    )
    return median


def _workspace(root: Path, files: int) -> Path:
    work = root / "work"
    (work / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for index in range(files):
        (work / "src" / f"module_{index}.py").write_text(f"value = {index}\n")
    (work / ".env").write_text("TOKEN=x\n")
    return work


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument(
        "--workspace", type=Path, help="a project to confine (default: a fresh one)"
    )
    parser.add_argument("--ablate", action="store_true", help="also measure each part's cost")
    arguments = parser.parse_args(argv)
    program = bwrap_program()
    missing = unavailable(program)
    if program is None or missing is not None:
        sys.exit(f"No boundary can be set up here: {missing}.")
    with tempfile.TemporaryDirectory(prefix="gateway-bench-") as scratch:
        root = Path(scratch)
        work = (arguments.workspace or _workspace(root, 200)).resolve()
        empty = root / "empty"
        empty.touch(mode=0o400)
        config = default_config()

        def build() -> Confinement:
            box = resolve_confinement(
                "workspace-write",
                config.profile("workspace-write").confinement,
                cwd=str(work),
                home=os.environ.get("HOME"),
                paths=config.paths,
                search_path=os.environ.get("PATH"),
            )
            assert isinstance(box, Confinement), box
            return box

        box = build()
        built = layout(box, cwd=str(work), empty_file=str(empty))
        assert not isinstance(built, str), built
        files = sum(len(names) for _, _, names in os.walk(work))
        print(
            f"== the workspace-write boundary of {work} ({files} files), {arguments.runs} runs =="
        )
        print(
            f"  {len(Places(box).mounts())} roots, {len(built.hidden)} paths hidden, {len(built.protected)} protected"
        )
        bash = command_argv(program, built.options, "true")[-5:]
        confined = command_argv(program, built.options, "true")

        def bare_run() -> None:
            subprocess.run(bash, cwd=work, check=True)

        def confined_run() -> None:
            subprocess.run(confined, cwd=work, check=True)

        def layout_run() -> None:
            layout(build(), cwd=str(work), empty_file=str(empty))

        bare = _show("bare", _times(bare_run, arguments.runs))
        inside = _show("confined", _times(confined_run, arguments.runs))
        print(
            f"  the boundary adds {1000 * (inside - bare):.2f} ms per run (median), {inside / bare:.1f}x"
        )
        _show("layout", _times(layout_run, max(arguments.runs // 5, 3)))
        if arguments.ablate:
            _ablate(program, built.options, bash, work, arguments.runs)


def _without(options: Sequence[str], *dropped: str) -> list[str]:
    """The options with each dropped option (and its argument, for ``--proc``/``--dev``) left out."""
    kept = list(options)
    for option in dropped:
        if option in kept:
            at = kept.index(option)
            del kept[at : at + (2 if option in ("--proc", "--dev") else 1)]
    return kept


def _ablate(program: str, options: Sequence[str], bash: list[str], work: Path, runs: int) -> None:
    usr = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"]
    usr += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]
    head = list(options[: options.index("--dev") + 2])
    variants = {
        "bare": bash,
        "boundary": [program, *options, "--", *bash],
        "no netns": [program, *_without(options, "--unshare-net"), "--", *bash],
        "no pidns": [program, *_without(options, "--unshare-pid"), "--", *bash],
        "no ipcns": [program, *_without(options, "--unshare-ipc"), "--", *bash],
        "no /proc": [program, *_without(options, "--proc"), "--", *bash],
        "no /dev": [program, *_without(options, "--dev"), "--", *bash],
        "only /usr": [program, *head, "--unshare-net", *usr, "--", *bash],
        "userns /usr": [program, "--unshare-user", *usr, "--", *bash],
        "unshare -U": ["unshare", "-U", *bash],
        "unshare -Un": ["unshare", "-Un", *bash],
    }
    found: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, argv in variants.items():
            started = time.perf_counter()
            subprocess.run(argv, cwd=work, check=True)
            found[name].append(time.perf_counter() - started)
    print("== what each part costs (median over bare; interleaved) ==")
    bare = statistics.median(found["bare"])
    for name, times in found.items():
        median = statistics.median(times)
        print(f"  {name:<12} median {1000 * median:8.2f} ms   +{1000 * (median - bare):7.2f} ms")


if __name__ == "__main__":
    main()
