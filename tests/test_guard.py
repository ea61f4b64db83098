"""The session guards in tests/conftest.py hold: no test can run shell text or delete outside tmp."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def test_a_shell_given_text_is_refused() -> None:
    with pytest.raises(RuntimeError, match=r"never run them|outside the temporary"):
        subprocess.run(["bash", "-c", "rm -rf ~"], check=False)
    with pytest.raises(RuntimeError, match=r"never run them|outside the temporary"):
        subprocess.run(["/bin/sh", "script.sh"], check=False)


def test_a_syntax_check_is_allowed() -> None:
    assert subprocess.run(["bash", "-n", "-c", "rm -rf ~"], check=False).returncode == 0
    assert subprocess.run(["bash", "-c", "-n", "rm -rf ~"], check=False).returncode == 0
    assert subprocess.run(["bash", "-enc", "rm -rf ~"], check=False).returncode == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["bash", "-c", "true", "-n"],
        ["bash", "-n", "+n", "-c", "true"],
        ["bash", "-O", "-n", "-c", "true"],
        ["bash", "--", "-n", "-c", "true"],
        ["timeout", "5", "bash", "-c", "true", "-n"],
    ],
    ids=[
        "n-is-dollar-zero",
        "n-undone",
        "n-is-an-option-argument",
        "after-double-dash",
        "launcher",
    ],
)
def test_a_syntax_check_flag_that_bash_does_not_obey_is_refused(argv: list[str]) -> None:
    with pytest.raises(RuntimeError, match=r"never run them"):
        subprocess.run(argv, check=False)


def test_os_system_is_refused() -> None:
    with pytest.raises(RuntimeError, match=r"never run them|outside the temporary"):
        os.system("true")  # noqa: S605 -- the call under test is refused before it runs


def test_deleting_outside_the_temporary_directories_is_refused(tmp_path: Path) -> None:
    outside = Path("/no-such-directory-to-delete-by-a-test")
    with pytest.raises(RuntimeError, match=r"never run them|outside the temporary"):
        shutil.rmtree(outside)
    inside = tmp_path / "scratch"
    inside.mkdir()
    (inside / "file").write_text("x")
    shutil.rmtree(inside)
    assert not inside.exists()


def test_home_is_a_temporary_directory() -> None:
    assert Path(os.environ["HOME"]).resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())


@pytest.mark.parametrize(
    "argv",
    [
        ["timeout", "5", "bash", "-c", "rm -rf ~"],
        ["env", "X=1", "/bin/sh", "script.sh"],
        ["/usr/bin/unshare", "--net", "--", "/bin/bash", "-c", "true"],
        ["nice", "-n", "5", "zsh", "-c", "true"],
    ],
    ids=["timeout", "env", "unshare", "nice"],
)
def test_a_shell_behind_a_launcher_is_refused(argv: list[str]) -> None:
    with pytest.raises(RuntimeError, match=r"never run them"):
        subprocess.run(argv, check=False)


def test_the_confined_bash_oracle_is_admitted() -> None:
    from oracle import bash

    assert bash.run("printf ok > marker").files == {"marker": b"ok"}


def test_the_oracle_shape_started_elsewhere_is_refused() -> None:
    """The exact confined argv, env and directory, but not started by the runner's ``_spawn``."""
    from oracle import bash

    box = bash._box(())
    try:
        script = box.root / "harness.bash"
        script.write_text("# bash oracle: run harness\nrm -rf ~\n")
        with pytest.raises(RuntimeError, match=r"never run them"):
            subprocess.Popen(bash._argv(box, script), cwd=box.work, env=bash._environment(box))
    finally:
        shutil.rmtree(box.root)


def test_the_oracle_with_a_wider_path_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_spawn`` itself, but with ``PATH`` reaching real programs: not the confinement admitted."""
    from oracle import bash

    real = bash._environment

    def widened(box: bash._Box) -> dict[str, str]:
        return {**real(box), "PATH": f"{box.bin}:/usr/bin:/bin"}

    monkeypatch.setattr(bash, "_environment", widened)
    with pytest.raises(RuntimeError, match=r"never run them"):
        bash.run("printf x > marker")


def test_the_guard_knows_every_launcher_the_product_reads() -> None:
    """The guard keeps its own list (it must not trust the code under test), but misses none."""
    from conftest import _LAUNCHERS

    from gateway._plan._launchers import LAUNCHERS

    assert set(LAUNCHERS) <= _LAUNCHERS
