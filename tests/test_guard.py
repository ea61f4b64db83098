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
