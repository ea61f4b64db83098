"""
The plans and verdicts of every corpus command, pinned by a golden file.

Every command of ``tests/data/corpus/{agent,nl2bash,tldr}.jsonl`` is reviewed
by a real `gateway.Gateway` whose only approver is the rules approver with the
default policy, once under each default profile (``read-only``,
``workspace-write``), as ``gateway check`` would. A command's *record* is its
`CallAnalysis` (the plan, positions, sequence plan, holes, effects), as the
gateway's own reading gives it, and its verdict under each profile, encoded
canonically. The records are cut into `CHUNKS` chunks per corpus (chunk ``k``
holds the commands whose index is ``k`` modulo `CHUNKS`, so every chunk samples
the whole corpus), and the golden file ``tests/data/golden/corpora.txt`` keeps
one line per chunk: how many commands, the decisions under each profile, and
the SHA-256 of the chunk's records. A behaviour change changes lines of that
file; ``scripts/golden --update`` writes it again, and the diff shows in review
which chunks moved and how their decisions moved.

The run is hermetic, so the file is the same on every machine and every run:
the gateway's home directory and the calls' working directory are fixed
(``/home/agent``, ``/testbed``), and the reviews run in a bubblewrap sandbox
that sees the machine's file system read-only with empty ``/tmp``,
``/var/tmp``, ``/home``, ``/root``, ``/run``, ``/mnt`` and ``/media``, a clean
environment and no network: the rules approver resolves the links and
repositories a call names on disk, and what lies in ``/tmp`` must not change a
verdict here. What the sandbox still shows of the machine is its system
(``/usr``, ``/etc``, ``/var``…): a link there leads to another system path
(measured on a Debian machine: 36 commands of the corpora name such a link,
each from a system path to a system path, which adds no class). ``/testbed`` must not exist, as on any
machine but a benchmark's: the run refuses to start otherwise. Deadlines are
raised so that a busy machine never turns a reading into a timeout.

Run: ``scripts/golden`` (check every chunk), ``scripts/golden --update``
(write the file), ``scripts/golden --explain [REF]`` (for each chunk that
differs, review the chunk again with the code of REF — by default the commit
that last wrote the golden file — in a temporary checkout, and print the first
command whose record differs, with its old and new record), ``scripts/golden
--chunks 0,1`` (only those chunks of each corpus, as the suite does).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import anyio
import msgspec

from gateway import Gateway, GatewayConfig, GatewayError, ToolCall, Verdict

REPOSITORY: Final = Path(__file__).resolve().parents[2]
CORPUS: Final = REPOSITORY / "tests" / "data" / "corpus"
GOLDEN: Final = REPOSITORY / "tests" / "data" / "golden" / "corpora.txt"
CORPORA: Final = ("agent", "nl2bash", "tldr")
PROFILES: Final = ("read-only", "workspace-write")
CHUNKS: Final = 64
CWD: Final = "/testbed"
HOME: Final = "/home/agent"
CONCURRENCY: Final = 6
DECISIONS: Final = ("allow", "ask", "decline")
# Directories the sandbox shows empty: what lies in them differs by machine and by hour.
EMPTIED: Final = ("/tmp", "/var/tmp", "/home", "/root", "/run", "/mnt", "/media")  # noqa: S108
_INSIDE: Final = "GATEWAY_GOLDEN_SANDBOX"
_ENCODER: Final = msgspec.json.Encoder(order="deterministic")
_HEADER: Final = (
    "# The plans and verdicts of every corpus command under the default policy "
    "(tests/golden/corpora.py).\n"
    "# Do not edit: a behaviour change writes it again with `scripts/golden --update`.\n"
    f"# A line per chunk: corpus, chunk k (the commands whose index is k modulo {CHUNKS}), "
    "commands,\n"
    "# allow/ask/decline under each profile, and the SHA-256 of the chunk's records.\n"
)


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the golden file."""

    corpus: str
    index: int
    commands: int
    decisions: tuple[tuple[str, str], ...]
    digest: str

    def line(self) -> str:
        """The chunk as the golden file writes it."""
        shown = " ".join(f"{profile} {counts}" for profile, counts in self.decisions)
        return f"{self.corpus} {self.index:02d} {self.commands} {shown} {self.digest}"

    @classmethod
    def parse(cls, line: str) -> Chunk:
        """A line of the golden file (raises ``ValueError`` when it is not one)."""
        words = line.split()
        if len(words) != 4 + 2 * len(PROFILES) or words[0] not in CORPORA:
            raise ValueError(f"not a chunk line: {line!r}")
        pairs = tuple(zip(words[3:-1:2], words[4:-1:2], strict=True))
        return cls(
            corpus=words[0],
            index=int(words[1]),
            commands=int(words[2]),
            decisions=pairs,
            digest=words[-1],
        )


class Golden(msgspec.Struct, frozen=True, kw_only=True):
    """The golden file: the policy version under each profile, and the chunks."""

    policies: tuple[tuple[str, str], ...]
    chunks: tuple[Chunk, ...]

    def text(self) -> str:
        """The file's text."""
        lines = [f"policy {profile} {version}" for profile, version in self.policies]
        lines += [chunk.line() for chunk in self.chunks]
        return _HEADER + "".join(f"{line}\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Golden:
        """The golden file's text (raises ``ValueError`` on a malformed line)."""
        policies: list[tuple[str, str]] = []
        chunks: list[Chunk] = []
        for line in text.splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("policy "):
                _, profile, version = line.split(" ", 2)
                policies.append((profile, version))
            else:
                chunks.append(Chunk.parse(line))
        return cls(policies=tuple(policies), chunks=tuple(chunks))


def commands(name: str) -> tuple[str, ...]:
    """The ``cmd`` of each line of one corpus, in file order."""
    with (CORPUS / f"{name}.jsonl").open(encoding="utf-8") as lines:
        return tuple(str(json.loads(line)["cmd"]) for line in lines if line.strip())


def config(profile: str) -> GatewayConfig:
    """The gateway of one profile: the default policy, a fixed home, deadlines no busy machine reaches."""
    return msgspec.convert(
        {
            "gateway": {
                "approvers": ["rules"],
                "plan-timeout": 300.0,
                "approver-timeout": 300.0,
                "review-timeout": 1200.0,
                "audit-timeout": 60.0,
            },
            "approver": {"rules": {"profile": profile}},
            "paths": {"home": HOME},
        },
        GatewayConfig,
    )


async def _review_profile(
    profile: str, texts: Sequence[str], *, analyse: bool
) -> tuple[list[Verdict], list[Any], str]:
    """Each text's verdict under one profile (and its analysis, when asked); the policy version."""
    verdicts: list[Verdict | None] = [None] * len(texts)
    analyses: list[Any] = [None] * len(texts)
    limiter = anyio.CapacityLimiter(CONCURRENCY)
    async with Gateway(config(profile), sinks={}) as gateway:

        async def one(index: int) -> None:
            async with limiter:
                text = texts[index]
                if analyse:
                    try:
                        analyses[index] = await gateway.analyse(text, CWD)
                    except GatewayError as error:
                        analyses[index] = {"error": str(error)}
                call = ToolCall("Bash", {"command": text}, call_id=str(index), cwd=CWD)
                verdicts[index] = await gateway.review(call)

        async with anyio.create_task_group() as group:
            for index in range(len(texts)):
                group.start_soon(one, index)
    done = [v for v in verdicts if v is not None]
    versions = {v.policy for v in done if v.policy is not None}
    if len(done) != len(texts) or len(versions) > 1:
        raise RuntimeError(f"the {profile} reviews gave {len(done)} verdicts, policies {versions}")
    return done, analyses, versions.pop() if versions else ""


async def review(texts: Sequence[str]) -> tuple[list[bytes], tuple[tuple[str, str], ...]]:
    """
    Each text's record (its analysis and its verdict under every profile), and each profile's policy.

    A verdict is recorded without its call id, and with ``policy`` as
    ``"policy"`` where it names the policy: the version is the golden
    file's own line, so a policy edit that moves no decision changes that
    line, not every chunk.
    """
    per_profile: list[list[Verdict]] = []
    analyses: list[Any] = []
    policies: list[tuple[str, str]] = []
    for number, profile in enumerate(PROFILES):
        verdicts, found, version = await _review_profile(profile, texts, analyse=number == 0)
        if number == 0:
            analyses = found
        per_profile.append(verdicts)
        policies.append((profile, version))
    records = [
        _ENCODER.encode(
            {
                "analysis": analyses[index],
                "verdicts": {
                    profile: msgspec.structs.replace(
                        verdicts[index],
                        call_id=None,
                        policy=None if verdicts[index].policy is None else "policy",
                    )
                    for profile, verdicts in zip(PROFILES, per_profile, strict=True)
                },
            }
        )
        for index in range(len(texts))
    ]
    return records, tuple(policies)


def _selected(corpora: Sequence[str], chunks: Sequence[int]) -> list[tuple[str, int, str]]:
    """``(corpus, index, text)`` of every command of the chosen chunks, in corpus and index order."""
    chosen = set(chunks)
    return [
        (name, index, text)
        for name in corpora
        for index, text in enumerate(commands(name))
        if index % CHUNKS in chosen
    ]


def golden(corpora: Sequence[str], chunks: Sequence[int]) -> Golden:
    """The golden file's lines for the chosen chunks of the chosen corpora."""
    items = _selected(corpora, chunks)
    records, policies = anyio.run(review, [text for _, _, text in items])
    by_chunk: dict[tuple[str, int], list[bytes]] = {}
    for (name, index, _), record in zip(items, records, strict=True):
        by_chunk.setdefault((name, index % CHUNKS), []).append(record)
    lines = []
    for (name, chunk), found in sorted(
        by_chunk.items(), key=lambda item: (CORPORA.index(item[0][0]), item[0][1])
    ):
        digest = hashlib.sha256(b"".join(record + b"\n" for record in found)).hexdigest()
        decisions = []
        for profile in PROFILES:
            counts = Counter(
                msgspec.json.decode(record)["verdicts"][profile]["decision"] for record in found
            )
            decisions.append((profile, "/".join(str(counts[d]) for d in DECISIONS)))
        lines.append(
            Chunk(
                corpus=name,
                index=chunk,
                commands=len(found),
                decisions=tuple(decisions),
                digest=digest[:32],
            )
        )
    return Golden(policies=policies, chunks=tuple(lines))


# ───────────────────────── the sandbox ─────────────────────────


def sandboxed(
    argv: Sequence[str],
    *,
    script: Path | None = None,
    binds: Iterable[Path] = (),
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """
    The command that runs this module with ``argv`` in the golden file's sandbox.

    The machine's file system read-only, `EMPTIED` directories empty (the
    interpreter, the repository and ``binds`` shown again where they lie
    under one), a fresh ``/dev``, ``/proc`` and ``/dev/shm``, no network, a
    clean environment and ``/`` as the working directory.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise RuntimeError("bubblewrap (bwrap) is not installed; the golden run needs its sandbox.")
    command = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/dev/shm",  # noqa: S108
    ]
    command += [arg for empty in EMPTIED if os.path.isdir(empty) for arg in ("--tmpfs", empty)]
    shown = {Path(sys.base_prefix), Path(sys.prefix), REPOSITORY, *binds}
    for path in sorted(str(p.resolve()) for p in shown):
        if any(path == e or path.startswith(e + "/") for e in EMPTIED):
            command += ["--ro-bind", path, path]
    command += ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--chdir", "/"]
    variables = {
        "HOME": HOME,
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        _INSIDE: "1",
        **(environ or {}),
    }
    for name, value in variables.items():
        command += ["--setenv", name, value]
    return [*command, sys.executable, str(script or Path(__file__).resolve()), *argv]


def _emit(arguments: argparse.Namespace) -> None:
    """Inside the sandbox: print the golden lines, or the records, of the chosen chunks."""
    if os.path.lexists(CWD):
        raise SystemExit(
            f"{CWD} exists on this machine; the golden run judges the corpora's calls as "
            "made in a workspace that does not, so run it on another machine."
        )
    corpora = arguments.corpus or list(CORPORA)
    chunks = arguments.chunks if arguments.chunks is not None else list(range(CHUNKS))
    if arguments.emit == "golden":
        sys.stdout.write(golden(corpora, chunks).text())
        return
    items = _selected(corpora, chunks)
    records, _ = anyio.run(review, [text for _, _, text in items])
    for (name, index, text), record in zip(items, records, strict=True):
        line = {"corpus": name, "index": index, "command": text, "record": json.loads(record)}
        sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")


def run(argv: Sequence[str], *, checkout: Path | None = None) -> str:
    """Run this module (or the one of an older ``checkout``) in the sandbox; its standard output."""
    if checkout is None:
        command = sandboxed(argv)
    else:
        command = sandboxed(
            argv,
            script=checkout / "tests" / "golden" / "corpora.py",
            binds=[checkout],
            environ={"PYTHONPATH": f"{checkout}:{checkout / 'plugins'}"},
        )
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"The golden run failed with status {result.returncode}: {result.stderr.strip()[-3000:]}"
        )
    return result.stdout


def _chunk_list(text: str) -> list[int]:
    chunks = sorted({int(part) for part in text.split(",") if part.strip()})
    if not chunks or chunks[0] < 0 or chunks[-1] >= CHUNKS:
        raise argparse.ArgumentTypeError(
            f"chunks are numbers from 0 to {CHUNKS - 1}, comma-separated"
        )
    return chunks


def differences(found: Golden, expected: Golden) -> list[tuple[Chunk | None, Chunk | None]]:
    """The chunks of ``found`` whose line differs from ``expected``'s (``None``: missing there)."""
    known = {(c.corpus, c.index): c for c in expected.chunks}
    return [
        (known.get((chunk.corpus, chunk.index)), chunk)
        for chunk in found.chunks
        if known.get((chunk.corpus, chunk.index)) != chunk
    ]


def _merged(found: Golden, expected: Golden) -> Golden:
    """The golden file with the chunks ``found`` replaced (a partial update)."""
    fresh = {(c.corpus, c.index): c for c in found.chunks}
    chunks = {(c.corpus, c.index): c for c in expected.chunks} | fresh
    order = sorted(chunks, key=lambda key: (CORPORA.index(key[0]), key[1]))
    return Golden(policies=found.policies, chunks=tuple(chunks[key] for key in order))


def _records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def explain(chunk: Chunk, reference: str) -> str:
    """The first command of ``chunk`` whose record differs from what the code of ``reference`` gives."""
    argv = ["--emit", "records", "--corpus", chunk.corpus, "--chunks", str(chunk.index)]
    new = _records(run(argv))
    with tempfile.TemporaryDirectory(prefix="gateway-golden-") as directory:
        checkout = Path(directory) / "old"
        subprocess.run(
            [
                "git",
                "-C",
                str(REPOSITORY),
                "worktree",
                "add",
                "--quiet",
                "--detach",
                str(checkout),
                reference,
            ],
            check=True,
        )
        try:
            old = _records(run(argv, checkout=checkout))
        finally:
            subprocess.run(
                ["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(checkout)],
                check=False,
            )
    for before, after in zip(old, new, strict=True):
        if before != after:
            old_lines, new_lines = (
                json.dumps(r["record"], indent=1, sort_keys=True).splitlines()
                for r in (before, after)
            )
            diff = difflib.unified_diff(
                old_lines, new_lines, reference[:12], "now", lineterm="", n=2
            )
            return (
                f"{after['corpus']} command {after['index']}: {after['command']!r}\n"
                + "\n".join(diff)
            )
    return f"{chunk.corpus} chunk {chunk.index}: every record is the same as with {reference[:12]}."


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--update", action="store_true", help="write the golden file")
    parser.add_argument(
        "--explain",
        nargs="?",
        const="",
        metavar="REF",
        help="show the first differing command of each differing chunk against REF's code "
        "(default: the commit that last wrote the golden file)",
    )
    parser.add_argument("--chunks", type=_chunk_list, help="only these chunks, as 0,5,9")
    parser.add_argument("--corpus", action="append", choices=CORPORA, help="only this corpus")
    parser.add_argument("--emit", choices=("golden", "records"), help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.emit:
        if os.environ.get(_INSIDE) != "1":
            parser.error("--emit runs only inside the golden sandbox")
        _emit(arguments)
        return 0
    selection = []
    for name in arguments.corpus or ():
        selection += ["--corpus", name]
    if arguments.chunks is not None:
        selection += ["--chunks", ",".join(map(str, arguments.chunks))]
    found = Golden.parse(run(["--emit", "golden", *selection]))
    expected = (
        Golden.parse(GOLDEN.read_text(encoding="utf-8"))
        if GOLDEN.exists()
        else Golden(policies=(), chunks=())
    )
    if arguments.update:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(_merged(found, expected).text(), encoding="utf-8")
        _say(
            f"wrote {GOLDEN.relative_to(REPOSITORY)}: {len(found.chunks)} chunks, {sum(c.commands for c in found.chunks)} commands"
        )
        return 0
    moved = differences(found, expected)
    if found.policies != expected.policies:
        _say(f"policy: {expected.policies} in the file, {found.policies} now")
    for before, after in moved:
        _say(
            f"- {before.line() if before else '(missing)'}\n+ {after.line() if after else '(missing)'}"
        )
    _say(
        f"{len(found.chunks) - len(moved)} of {len(found.chunks)} chunks "
        f"({sum(c.commands for c in found.chunks)} commands) as the golden file says"
    )
    if arguments.explain is not None and moved:
        reference = (
            arguments.explain
            or subprocess.run(
                ["git", "-C", str(REPOSITORY), "log", "-1", "--format=%H", "--", str(GOLDEN)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        for _, after in moved[:3]:
            if after is not None:
                _say(explain(after, reference or "HEAD"))
    return 1 if moved or found.policies != expected.policies else 0


if __name__ == "__main__":
    sys.exit(main())
