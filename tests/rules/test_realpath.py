"""
The kernel's answer to where a path leads is ``os.path.realpath``'s, for every kind of path.

`gateway_rules._context._realpath` asks the kernel (an ``O_PATH`` open,
named in ``/proc/self/fd``) instead of resolving one component at a time;
where the kernel cannot say, it falls back. Judging rests on these answers
(where a link leads, whether ``PATH`` reaches a place the agent writes), so
they must be the same, links, loops and missing names included.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gateway_rules._context import _realpath


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Directories, a file, and links of every kind: relative, absolute, chained, climbing, dangling, looping."""
    (tmp_path / "real/sub").mkdir(parents=True)
    (tmp_path / "real/file").write_text("x")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "rel").symlink_to("real")
    (tmp_path / "abs").symlink_to(tmp_path / "real")
    (tmp_path / "chain").symlink_to("rel/sub")
    (tmp_path / "real/up").symlink_to("../elsewhere")
    (tmp_path / "to-file").symlink_to("real/file")
    (tmp_path / "dangling").symlink_to("nowhere/at/all")
    (tmp_path / "loop-a").symlink_to("loop-b")
    (tmp_path / "loop-b").symlink_to("loop-a")
    return tmp_path


NAMES = (
    "real",
    "real/sub",
    "real/file",
    "rel",
    "abs/sub",
    "chain",
    "chain/..",
    "rel/up",
    "rel/up/..",
    "abs/sub/../up",
    "to-file",
    "dangling",
    "dangling/deeper",
    "loop-a",
    "loop-a/x",
    "missing",
    "missing/../real",
    "real/file/below",
    "real//sub/.",
)


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_and_os_path_realpath_agree(tree: Path, name: str) -> None:
    path = f"{tree}/{name}"
    assert _realpath(path) == os.path.realpath(path)


def test_a_link_re_pointed_is_followed_to_where_it_leads_now(tree: Path) -> None:
    link = tree / "moving"
    link.symlink_to("real")
    assert _realpath(str(link)) == str(tree / "real")
    link.unlink()
    link.symlink_to("elsewhere")
    assert _realpath(str(link)) == str(tree / "elsewhere")


def test_a_directory_removed_after_it_was_resolved_is_resolved_again(tree: Path) -> None:
    (tree / "gone").mkdir()
    assert _realpath(str(tree / "gone")) == str(tree / "gone")
    (tree / "gone").rmdir()
    assert _realpath(str(tree / "gone")) == os.path.realpath(tree / "gone")


def test_proc_and_dev_paths_agree() -> None:
    for path in ("/", "/proc/self", "/proc/self/cwd", "/dev/null", "/dev/stdin", "/var"):
        assert _realpath(path) == os.path.realpath(path), path
