"""
Routing a hook host's shell calls through the confined runner (``gateway run``).

A hook installed with ``--confine`` is a confining caller: its shell calls are
reviewed as ``gateway run`` reviews them (`gateway.confinement.Confining`), and an allow,
which then carries its boundary, is answered by rewriting the call's command
to ``gateway run --profile NAME [--config FILE] -- 'TEXT'``, where ``TEXT`` is
exactly the reviewed text, quoted for the shell. The host runs that command;
the runner reviews the same text again in the same directory and runs it
inside the boundary, or runs nothing.

Only a host whose hook can change a call's input routes (Claude Code's
``updatedInput``); only a shell tool whose command is one string field at the
top of its input is routed (what the runner runs is that string).
"""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import msgspec

from gateway import ToolCall, Verdict
from gateway.config import ShellTool
from gateway.confinement import Confining

__all__ = ["ConfiningReviewer", "Routing", "gateway_program", "routed_command"]


@runtime_checkable
class ConfiningReviewer(Protocol):
    """A reviewer that can review for a caller running calls inside a boundary (`gateway.Gateway`)."""

    async def review(self, call: ToolCall, *, confining: Confining | None = None) -> Verdict:
        """Return the verdict for one proposed call."""


def gateway_program() -> tuple[str, ...]:
    """The absolute command that starts ``gateway``: beside this Python, on ``PATH``, or ``python -m gateway.cli``."""
    beside = Path(sys.executable).parent / "gateway"
    if beside.is_file():
        return (str(beside.absolute()),)
    found = shutil.which("gateway")
    if found:
        return (str(Path(found).absolute()),)
    return (str(Path(sys.executable).absolute()), "-m", "gateway.cli")


def routed_command(program: Sequence[str], profile: str, config: str | None, text: str) -> str:
    """
    The shell command that runs ``text`` through the runner, every word quoted.

    Examples:
        >>> print(routed_command(["/bin/gateway"], "workspace-write", None, "echo 'a' $(id)"))
        /bin/gateway run --profile workspace-write -- 'echo '"'"'a'"'"' $(id)'
    """
    words = [*program, "run", "--profile", profile]
    if config is not None:
        words += ["--config", config]
    return shlex.join([*words, "--", text])


class Routing(msgspec.Struct, frozen=True, kw_only=True):
    """
    How a confining hook routes its shell calls through ``gateway run``.

    Attributes:
        profile: The profile a call is reviewed for (`gateway.confinement.Confining`).
        unavailable: Why no boundary can be set up here (a clause), or ``None``.
        shell_tools: The config's ``[[shell-tools]]``: which calls are shells.
        config: The config file the runner is given (``--config``), absolute.
        program: The command that starts ``gateway``.
    """

    profile: str
    unavailable: str | None
    shell_tools: tuple[ShellTool, ...]
    config: str | None = None
    program: tuple[str, ...] = ()

    @property
    def confining(self) -> Confining:
        """What the review is told about how an allow runs."""
        return Confining(profile=self.profile, unavailable=self.unavailable)

    def field(self, call: ToolCall) -> str | None:
        """The top-level input field holding a routed call's bash text, or ``None`` when the call is not routed."""
        tool = next((tool for tool in self.shell_tools if tool.matches(call.tool)), None)
        if tool is None or tool.dialect != "bash":
            return None
        for field in tool.fields:
            if field in call.input:
                value = call.input[field]
                return field if "." not in field and isinstance(value, str) else None
            if "." in field and field.split(".")[0] in call.input:
                return None
        return None

    def updated_input(self, call: ToolCall, field: str, verdict: Verdict) -> dict[str, object]:
        """The call's input with its command run through the runner inside the verdict's boundary."""
        box = verdict.boundary
        if box is None:  # pragma: no cover - only an allow with a boundary is routed
            raise ValueError("only an allow with a boundary is routed")
        text = call.input[field]
        program = self.program or gateway_program()
        return {**call.input, field: routed_command(program, box.profile, self.config, text)}
