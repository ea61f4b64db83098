"""
Shell text as syntax: the reading both parsers agree on, and which program a command runs.

A namespace of the public API (like ``trio.lowlevel``): `read_shell` reads
bash text into a `ShellReading` (a neutral syntax tree when both readers
agree, else one sentence of reason); `read_program_position` says which
program one simple command really runs, looking through the launchers in
`LAUNCHERS` (``env``, ``timeout``, ``sudo``…, one `LauncherRow` each). What
the text would run, command by command, is `gateway.plans`'s; docs/parsing.md
tells how the text is read.

Examples:
    >>> from gateway.shell import read_program_position, read_shell
    >>> read_shell("cd src && grep -rn TODO .").status
    'measured'
    >>> read_program_position("timeout 60 pytest -x").program.basename
    'pytest'
"""

from gateway._plan import read_program_position as read_program_position
from gateway._plan._launchers import LAUNCHERS as LAUNCHERS, LauncherRow as LauncherRow
from gateway._read import ShellReading as ShellReading, read_shell as read_shell

__all__ = ["LAUNCHERS", "LauncherRow", "ShellReading", "read_program_position", "read_shell"]
