"""
Hostile calls run through ``gateway run`` with real bubblewrap and bash do no harm; their harmless twins do their work.

A deterministic sample of the replay's corpus (``boundary/corpus.py``: the
project's hostile tables, the attack classes of the allowlists, calls
written against the boundary's source) runs under both profiles, each call
in a fresh world of marker secrets (``boundary/replay.py``); whatever the
gateway said, no secret may show, nothing outside the workspace may change,
no persistence point may be replaced, the audit log may only grow, and no
listener may hear anything. ``benchmarks/confined_replay.py`` runs the whole corpus.

Without ``bwrap`` these tests are skipped, except where every extra is
required (CI: ``GATEWAY_TESTS_NEED_EVERY_EXTRA=1``), where they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from boundary.corpus import PROFILES, TWINS, Twin, hostile
from boundary.replay import (
    AUDIT,
    MARKERS,
    STATE,
    Ran as _Ran,
    Replay,
    World,
    copy_world,
    harms,
    replay,
    take_before,
)
from gateway._review._bwrap import bwrap_program, unavailable

_MISSING = unavailable(bwrap_program())
if _MISSING is not None:
    if os.environ.get("GATEWAY_TESTS_NEED_EVERY_EXTRA") == "1":
        raise RuntimeError(f"These tests need bubblewrap, and {_MISSING}.")
    pytest.skip(f"needs bubblewrap: {_MISSING}", allow_module_level=True)

_CALLS = hostile()
OWN = [call for call in _CALLS if call.source.startswith("replay:")]
TABLES = [call for call in _CALLS if not call.source.startswith("replay:")]
SAMPLE = OWN[::7] + TABLES[::120]
"""About two dozen calls a profile: every seventh of the replay's own, every hundred-and-twentieth of the tables'."""


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replay]:
    with replay(tmp_path_factory.mktemp("replay"), workers=2, timeout=60.0) as found:
        yield found


@pytest.mark.parametrize("profile", PROFILES)
def test_hostile_calls_do_no_harm(profile: str, runner: Replay) -> None:
    outcomes = runner.many([(profile, call.text) for call in SAMPLE])
    harmed = [
        f"[{outcome.kind}] {call.source}: {call.text!r}: {'; '.join(outcome.harms)}"
        for call, outcome in zip(SAMPLE, outcomes, strict=True)
        if outcome.harms
    ]
    assert harmed == []
    kinds = {outcome.kind for outcome in outcomes}
    assert "timeout" not in kinds, [o.text for o in outcomes if o.kind == "timeout"]
    assert "not-set-up" not in kinds
    # The sample reaches the boundary: some of it ran, and under workspace-write code it cannot read ran inside it.
    assert "allowed plain" in kinds
    if profile == "workspace-write":
        assert "allowed confined" in kinds


def _twin_look(twin: Twin) -> object:
    def look(world: World) -> list[str]:
        if twin.creates and not (world.work / twin.creates).exists():
            return [f"{twin.creates} was not made"]
        return []

    return look


@pytest.mark.parametrize("profile", PROFILES)
def test_harmless_twins_are_allowed_and_do_their_work(profile: str, runner: Replay) -> None:
    twins = [twin for twin in TWINS if profile in twin.profiles]

    def one(twin: Twin) -> str | None:
        outcome = runner.one(profile, twin.text, look=_twin_look(twin))  # type: ignore[arg-type]
        if outcome.ran.verdict != "allow" or outcome.ran.status != 0:
            return f"{twin.text!r}: {outcome.kind}, status {outcome.ran.status}: {outcome.ran.err.strip()}"
        if twin.out not in outcome.ran.out:
            return f"{twin.text!r} printed {outcome.ran.out!r}, not {twin.out!r}"
        if outcome.harms:
            return f"{twin.text!r}: {'; '.join(outcome.harms)}"
        return None

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        wrong = [found for found in pool.map(one, twins) if found is not None]
    assert wrong == []


# ───────────────────────── the judge itself ─────────────────────────


def test_the_judge_sees_every_kind_of_harm(runner: Replay, tmp_path: Path) -> None:
    """Each harm the replay looks for, done by hand outside any boundary, is named."""
    world = copy_world(runner.template, tmp_path / "world")
    before = take_before(world)
    quiet = harms(world, before, _Ran(0, "", ""))
    assert quiet == []
    key = MARKERS["home/.ssh/id_rsa"].split()[-1]
    (world.work / "loot.txt").write_text("x" + key[::-1][::-1] + "y")
    with open(world.home / ".bashrc", "a") as rc:
        rc.write("echo pwned\n")
    (world.work / ".git/hooks/pre-commit").write_text("echo pwned\n")
    (world.work / ".venv/lib/python3/site-packages/sitecustomize.py").write_text("import os\n")
    (world.work / "tools/post-checkout").write_text("echo pwned\n")
    (world.work / ".venv/lib/python3/site-packages/_distutils_hack/__init__.py").write_text("x\n")
    with open(world.home / AUDIT, "ab") as log:
        log.write(b'{"not": "a record"}\n')
    found = harms(world, before, _Ran(0, "ok " + key, ""))
    assert "stdout shows home/.ssh/id_rsa" in found
    assert "loot.txt holds home/.ssh/id_rsa" in found
    assert f"changed outside the workspace: {world.home / '.bashrc'}" in found
    assert "changed a persistence point: .git/hooks/pre-commit" in found
    assert "created a persistence point: .venv/lib/python3/site-packages/sitecustomize.py" in found
    assert "changed a persistence point: tools/post-checkout" in found
    assert (
        "changed a persistence point: .venv/lib/python3/site-packages/_distutils_hack/__init__.py"
        in found
    )
    assert any(harm.startswith("the audit log holds a record") for harm in found)


def test_the_judge_sees_the_gateways_own_files_replaced(runner: Replay, tmp_path: Path) -> None:
    """The first run made the signing key and a witness; a run may not replace the one nor rewrite the other."""
    world = copy_world(runner.template, tmp_path / "world")
    state = world.home / STATE
    key = next(state.glob("*.pem"))
    witness = next(path for path in state.glob("*witness*"))
    assert witness.read_bytes(), "the first run left the witness empty"
    before = take_before(world)
    key.write_text("another key\n")
    witness.write_bytes(b"")
    found = harms(world, before, _Ran(0, "", ""))
    assert f"the gateway's state directory changed: {key.name}" in found
    assert any(
        harm.startswith("the witness ") and harm.endswith(" was rewritten") for harm in found
    )


def test_the_judge_sees_a_secret_in_base64(runner: Replay, tmp_path: Path) -> None:
    import base64

    world = copy_world(runner.template, tmp_path / "world")
    before = take_before(world)
    leaked = base64.b64encode(MARKERS["home/.aws/credentials"].encode()).decode()
    assert harms(world, before, _Ran(0, leaked, "")) == ["stdout shows home/.aws/credentials"]
