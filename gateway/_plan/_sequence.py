"""
Sequence plans: a strict, literal view of a command as fixed argv steps and working directories.

For comparing a proposed check (``cd web && npm test``) with a declared one.
Only fixed argument lists joined by ``&&``, relative ``cd`` and subshells
(which restore the caller's directory) are measured; everything else —
``;``, ``||``, newlines, pipes, ``&``, redirects, control flow, assignments,
builtins other than ``cd``, and any word holding an expansion or glob
character (``$ ` * ? [ ~ {``) even quoted — is unmeasured with no steps.

A measured plan describes literal invocations only: it proves nothing ran
or passed and grants no authority.
"""

from __future__ import annotations

import posixpath
from typing import Final

from gateway._calls._plans import SequencePlan, SequenceStep
from gateway._plan._builtins import BASH_BUILTINS
from gateway._read import ShellReading, read_shell
from gateway._read._limits import MAX_SOURCE_BYTES
from gateway._read._tree import Command, SimpleCommand, Statement, Subshell, Word

__all__ = ["MAX_SEQUENCE_STEPS", "command_sequence_plan", "sequence_plan"]

MAX_SEQUENCE_STEPS: Final = 128
_DYNAMIC_CHARACTERS: Final = frozenset("$`*?[~{")


class _Unmeasured(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _literal(word: Word) -> str:
    if word.value is None or _DYNAMIC_CHARACTERS & set(word.text):
        raise _Unmeasured(f"The word `{word.text}` holds an expansion or glob character.")
    return word.value


def _normalise(base: str, target: str) -> str:
    if target.startswith("/"):
        raise _Unmeasured(f"`cd {target}` leaves the repository for an absolute path.")
    joined = posixpath.normpath(posixpath.join(base or ".", target))
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../"):
        raise _Unmeasured(f"`cd {target}` climbs above the repository root.")
    return joined


class _Walker:
    def __init__(self) -> None:
        self.steps: list[SequenceStep] = []

    def statements(self, statements: tuple[Statement, ...], cwd: str) -> str:
        if len(statements) != 1:
            raise _Unmeasured("Only one `&&` chain is measured; `;` and newlines are not.")
        statement = statements[0]
        if statement.terminator is not None:
            raise _Unmeasured(f"The `{statement.terminator}` operator is not measured.")
        andor = statement.body
        if any(operator != "&&" for operator in andor.operators):
            raise _Unmeasured("Only `&&` joins are measured; `||` is not.")
        for pipeline in andor.pipelines:
            if pipeline.negated:
                raise _Unmeasured("A negated command (`!`) is not measured.")
            if len(pipeline.commands) != 1:
                raise _Unmeasured("Pipelines are not measured.")
            cwd = self.command(pipeline.commands[0], cwd)
        return cwd

    def command(self, command: Command, cwd: str) -> str:
        if command.redirects:
            raise _Unmeasured("Redirects are not measured.")
        if isinstance(command, Subshell):
            self.statements(command.body, cwd)
            return cwd  # a subshell restores the caller's directory
        if not isinstance(command, SimpleCommand):
            raise _Unmeasured("Control flow is not measured.")
        if command.assignments:
            raise _Unmeasured("Leading assignments are not measured.")
        argv = [_literal(word) for word in command.words]
        if argv[0] == "cd":
            if len(argv) != 2 or argv[1].startswith("-") or argv[1] == "":
                raise _Unmeasured("Only `cd` to one relative directory is measured.")
            return _normalise(cwd, argv[1])
        if argv[0] in BASH_BUILTINS:
            raise _Unmeasured(f"The builtin `{argv[0]}` is not measured.")
        self.steps.append(SequenceStep(argv=tuple(argv), cwd=cwd))
        if len(self.steps) > MAX_SEQUENCE_STEPS:
            raise _Unmeasured(f"There are more than {MAX_SEQUENCE_STEPS} steps.")
        return cwd


def command_sequence_plan(source: str, cwd: str = "") -> SequencePlan:
    """
    Observe the literal steps of a command and the directory each runs in, without running it.

    Args:
        source: The shell text.
        cwd: The starting directory, relative to the repository root (``""`` is the root).

    Returns:
        A measured plan with its steps, or an unmeasured one with no steps and a reason.

    Examples:
        >>> plan = command_sequence_plan("(cd web && npm test) && make check")
        >>> [(s.argv, s.cwd) for s in plan.steps]
        [(('npm', 'test'), 'web'), (('make', 'check'), '')]
    """
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        return _unmeasured(f"The source is over {MAX_SOURCE_BYTES} bytes.")
    return sequence_plan(source, read_shell(source), cwd)


def sequence_plan(source: str, reading: ShellReading, cwd: str = "") -> SequencePlan:
    """The sequence plan of ``source`` from its reading (see `command_sequence_plan`)."""
    if len(source.encode("utf-8", "surrogatepass")) > MAX_SOURCE_BYTES:
        return _unmeasured(f"The source is over {MAX_SOURCE_BYTES} bytes.")
    try:
        steps = _steps(reading, cwd)
    except _Unmeasured as unmeasured:
        return _unmeasured(unmeasured.reason)
    return SequencePlan(status="measured", steps=steps, reason=None)


def _unmeasured(reason: str) -> SequencePlan:
    return SequencePlan(status="unmeasured", steps=(), reason=reason)


def _steps(reading: ShellReading, cwd: str) -> tuple[SequenceStep, ...]:
    if cwd.startswith("/"):
        raise _Unmeasured("The starting directory must be relative to the repository root.")
    start = _normalise("", cwd) if cwd else ""
    if reading.program is None:
        raise _Unmeasured(reading.reason or "The source could not be read.")
    if not reading.program.statements:
        raise _Unmeasured("The source runs nothing.")
    walker = _Walker()
    walker.statements(reading.program.statements, start)
    if not walker.steps:
        raise _Unmeasured("The source only changes directory.")
    return tuple(walker.steps)
