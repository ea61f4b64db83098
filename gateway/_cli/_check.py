"""``gateway check``: review tool calls read as JSON lines, one verdict per line, in order."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import anyio
import msgspec

from gateway._calls._calls import ToolCall
from gateway._calls._confinement import Confining
from gateway._calls._errors import ConfigError, GatewayError
from gateway._cli._common import (
    CommandError,
    Subcommand,
    add_audit_argument,
    add_cwd_argument,
    cwd_of,
    read_input,
    with_audit_file,
    write_json,
)
from gateway._cli._fleet import add_config_argument, load_tiers
from gateway._cli._view import Style, add_json_argument, verdict_view, wants_json, write_text
from gateway._gateway import Gateway
from gateway._settings._config import AuditSection, GatewayConfig

_MAX_LINE = 1 << 20
_QUESTION = (
    'Check what? Pipe in tool calls as JSON lines (echo \'{"cmd": "git status"}\' | gateway check), '
    "or name a FILE of them ('-' reads standard input)."
)


class _Line(msgspec.Struct, forbid_unknown_fields=True):
    tool: str | None = None
    input: dict[str, Any] | None = None
    id: str | None = None
    cmd: str | None = None
    cwd: str | None = None
    session_id: str | None = None


def _configure(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    add_audit_argument(parser)
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="judge under this profile (read-only, workspace-write, or one [profiles.NAME] defines) instead of the config's",
    )
    add_cwd_argument(parser, "a call that names no `cwd` runs in")
    parser.add_argument(
        "--confined",
        action="store_true",
        help="judge as a caller that runs what is allowed inside the profile's boundary (as `gateway run` does) would be judged: each allow shows its confinement",
    )
    parser.add_argument(
        "input",
        nargs="?",
        metavar="FILE",
        help="JSON lines to read ('-' or nothing: standard input)",
    )
    add_json_argument(parser)


def _call(line: bytes, number: int, cwd: str) -> tuple[str | None, ToolCall | None, str | None]:
    """The call on one line (run in ``cwd`` unless it names its own), or why there is none."""
    if len(line) > _MAX_LINE:
        return None, None, f"Line {number} is over {_MAX_LINE} bytes."
    try:
        record = msgspec.json.decode(line, type=_Line)
    except msgspec.ValidationError as error:
        return None, None, f"Line {number} is not a tool call ({error})."
    except msgspec.DecodeError as error:
        return None, None, f"Line {number} is not valid JSON ({error})."
    if record.cmd is not None:
        if record.tool is not None or record.input is not None:
            return record.id, None, f"Line {number} gives both `cmd` and `tool`/`input`."
        return (
            record.id,
            ToolCall(
                "Bash",
                {"command": record.cmd},
                call_id=record.id,
                cwd=record.cwd or cwd,
                session_id=record.session_id,
            ),
            None,
        )
    if record.tool is None or record.input is None:
        return record.id, None, f"Line {number} has neither `cmd` nor `tool` and `input`."
    return (
        record.id,
        ToolCall(
            record.tool,
            record.input,
            call_id=record.id,
            cwd=record.cwd or cwd,
            session_id=record.session_id,
        ),
        None,
    )


class _Printer:
    """Each verdict as JSON (piped, or ``--json``) or as a readable block (a terminal)."""

    def __init__(self, arguments: argparse.Namespace) -> None:
        self.json = wants_json(arguments)
        self.style = Style()

    def __call__(self, row: dict[str, Any]) -> None:
        if self.json:
            write_json(row)
        else:
            write_text(verdict_view(row, self.style))


async def _check(
    config: GatewayConfig,
    lines: list[bytes],
    cwd: str,
    emit: _Printer,
    confining: Confining | None = None,
) -> None:
    async with Gateway(config) as gateway:
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line:
                continue
            call_id, call, problem = _call(line, number, cwd)
            if call is None:
                emit(
                    {
                        "id": call_id,
                        "decision": "decline",
                        "reason": problem,
                        "digest": None,
                        "approver": None,
                        "rule": None,
                        "confinement": None,
                    }
                )
                continue
            verdict = await gateway.review(call, confining=confining)
            emit(
                {
                    "id": call_id if call_id is not None else verdict.call_id,
                    "decision": verdict.decision,
                    "reason": verdict.reason,
                    "digest": verdict.digest,
                    "approver": verdict.approver,
                    "rule": verdict.rule,
                    "confinement": msgspec.to_builtins(verdict.boundary),
                }
            )


def without_person(config: GatewayConfig) -> GatewayConfig:
    """``config`` with only the approvers that decide without a person: nobody is there to ask."""
    approvers = tuple(name for name in config.gateway.approvers if name != "human")
    return msgspec.structs.replace(
        config, gateway=msgspec.structs.replace(config.gateway, approvers=approvers)
    )


def _run(arguments: argparse.Namespace) -> int:
    # The managed, user (--config) and project tiers, strictest wins.
    config = load_tiers(arguments).config
    if arguments.audit:
        config = with_audit_file(config, arguments.audit)
    else:
        # No log: nothing to sign, and no checkpoint a witness should keep.
        config = msgspec.structs.replace(config, sinks={}, audit=AuditSection(), witnesses={})
    config = without_person(config)
    if arguments.profile:
        try:
            config.profile(arguments.profile)
        except ConfigError as error:
            raise CommandError(str(error)) from None
        rules = {**config.approver.get("rules", {}), "profile": arguments.profile}
        config = msgspec.structs.replace(config, approver={**config.approver, "rules": rules})
    try:
        data = (
            read_input(arguments.input, _QUESTION)
            if arguments.input in (None, "-")
            else Path(arguments.input).read_bytes()
        )
    except OSError as error:
        raise CommandError(f"Cannot read {arguments.input!r}: {error.strerror}.") from None
    confining = None
    if arguments.confined:
        confining = Confining(profile=config.rules_profile)
    try:
        anyio.run(
            _check, config, data.split(b"\n"), cwd_of(arguments), _Printer(arguments), confining
        )
    except GatewayError as error:
        raise CommandError(str(error)) from None
    return 0


COMMAND = Subcommand(
    name="check",
    help='Review tool calls given as JSON lines ({"id", "tool", "input"} or {"cmd"}) and print one verdict per line.',
    configure=_configure,
    run=_run,
)
