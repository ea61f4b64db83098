"""
``gateway hook``, ``gateway install``, ``gateway uninstall`` and ``gateway doctor``.

Contributed to the ``gateway`` command through the ``gateway.commands``
entry-point group. This module imports nothing heavy at load: ``gateway
--help`` lists these commands without starting a gateway.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from gateway.cli import CommandError, Subcommand

if TYPE_CHECKING:
    from gateway_hooks import HookHost

__all__ = ["DOCTOR", "HOOK", "INSTALL", "UNINSTALL"]

_CONFINE_HELP: Final = (
    "run each allowed shell call through `gateway run`, inside the boundary of the rules' profile"
)

_SLACK: Final = 30.0
"""Seconds a host waits for the hook beyond the hook's own timeout, so the hook's answer comes first."""


def _host_names() -> list[str]:
    from gateway_hooks import installed_hosts

    return sorted(installed_hosts())


def _load(name: str) -> HookHost:
    from gateway import PluginLoadError
    from gateway_hooks import load_host

    try:
        return load_host(name)
    except PluginLoadError as error:
        raise CommandError(str(error)) from None


# ── gateway hook HOST ──


def _configure_hook(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "host",
        metavar="HOST",
        help="the agent host whose hook this is (claude-code, codex, gemini, cursor)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the gateway config for in-process reviews (default: the embedded one)",
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        help="the Unix socket of a running `gateway serve` (default: [hook] socket, else the state directory's gateway.sock)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        help="seconds to wait for a verdict before blocking (default: [hook] timeout, 330)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="forward to the approval service at URL over HTTP instead (another machine: use https)",
    )
    parser.add_argument("--token-file", metavar="FILE", help="the bearer token for --server")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--require-service",
        action="store_true",
        help="block when no service listens, instead of reviewing in-process",
    )
    mode.add_argument(
        "--in-process",
        action="store_true",
        help="review in this process even when a service listens",
    )
    mode.add_argument(
        "--confine",
        action="store_true",
        help=_CONFINE_HELP + " (reviews without the service)",
    )
    parser.add_argument(
        "--no-worker",
        action="store_true",
        help="without a service, review in this process instead of through the warm worker",
    )


def _run_hook(arguments: argparse.Namespace) -> int:
    import gateway_relay

    argv = [arguments.host]
    for option in ("config", "socket", "timeout", "server", "token_file"):
        value = getattr(arguments, option)
        if value is not None:
            argv += [f"--{option.replace('_', '-')}", str(value)]
    if arguments.require_service:
        argv.append("--require-service")
    if arguments.in_process:
        argv.append("--in-process")
    if arguments.confine:
        argv.append("--confine")
    if arguments.no_worker:
        argv.append("--no-worker")
    return gateway_relay.main(argv)


HOOK: Final = Subcommand(
    name="hook",
    help="Answer one agent-host hook event read as JSON on standard input (exit 2 blocks); `gateway-hook HOST` is the same, faster.",
    configure=_configure_hook,
    run=_run_hook,
)


# ── gateway install / uninstall HOST ──


def _configure_install(parser: argparse.ArgumentParser, *, installing: bool) -> None:
    parser.add_argument("host", metavar="HOST", help="claude-code, codex, gemini or cursor")
    parser.add_argument(
        "--scope",
        choices=["project", "user"],
        default="project",
        help="this project's settings (default) or yours, for every project",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=".",
        help="the project directory (default: the current one)",
    )
    parser.add_argument("--dry-run", action="store_true", help="show the change without writing it")
    if installing:
        parser.add_argument(
            "--config",
            metavar="FILE",
            help="the gateway config the hook reviews with in-process (default: the embedded one)",
        )
        modes = parser.add_mutually_exclusive_group()
        modes.add_argument(
            "--require-service",
            action="store_true",
            help="block every call when no `gateway serve` is running",
        )
        modes.add_argument(
            "--confine",
            action="store_true",
            help=_CONFINE_HELP + " (Claude Code only; reviews in-process)",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=330.0,
            metavar="SECONDS",
            help="seconds the hook waits for a verdict (default: 330)",
        )


def _change(arguments: argparse.Namespace, *, installing: bool) -> int:
    from gateway_hooks._install import hook_command, plan_change, write_settings

    host = _load(arguments.host)
    project = Path(arguments.project).expanduser().resolve()
    command = None
    timeout = 0.0
    if installing:
        if not 0 < arguments.timeout <= 86_000:
            raise CommandError(
                f"The timeout must be between 0 and 86000 seconds, not {arguments.timeout:g}."
            )
        if arguments.config and not Path(arguments.config).expanduser().is_file():
            raise CommandError(f"The config file {arguments.config!r} does not exist.")
        if arguments.confine and host.name != "claude-code":
            raise CommandError(
                f"--confine needs a host whose hook can rewrite a call (claude-code), not {host.name!r}."
            )
        command = hook_command(
            host.name,
            config=arguments.config,
            require_service=arguments.require_service,
            confine=arguments.confine,
        )
        if arguments.timeout != 330.0:
            command += f" --timeout {arguments.timeout:g}"
        timeout = arguments.timeout + _SLACK
    try:
        change = plan_change(
            host,
            scope=arguments.scope,
            project=project,
            home=Path.home(),
            command=command,
            timeout=timeout,
        )
    except ValueError as error:
        raise CommandError(str(error)) from None
    verb = "install" if installing else "uninstall"
    if not change.changed:
        sys.stdout.write(
            f"gateway {verb}: {change.path} already has what it needs; nothing to change.\n"
        )
        return 0
    sys.stdout.write(change.diff())
    if arguments.dry_run:
        sys.stdout.write(f"gateway {verb}: --dry-run, so {change.path} was not written.\n")
        return 0
    try:
        write_settings(change)
    except OSError as error:
        raise CommandError(f"Cannot write {str(change.path)!r} ({error.strerror}).") from None
    done = "installed in" if installing else "removed from"
    sys.stdout.write(f"gateway {verb}: the {host.title} hook was {done} {change.path}.\n")
    if installing:
        for note in host.notes():
            sys.stdout.write(f"gateway {verb}: {note}\n")
    return 0


INSTALL: Final = Subcommand(
    name="install",
    help="Install the gateway's hook into an agent host's settings (shows the change first; idempotent).",
    configure=lambda parser: _configure_install(parser, installing=True),
    run=lambda arguments: _change(arguments, installing=True),
)

UNINSTALL: Final = Subcommand(
    name="uninstall",
    help="Take the gateway's hook out of an agent host's settings (the rest is left as it is).",
    configure=lambda parser: _configure_install(parser, installing=False),
    run=lambda arguments: _change(arguments, installing=False),
)


# ── gateway doctor ──


def _configure_doctor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "host",
        nargs="?",
        metavar="HOST",
        help="check only this host (default: every host with the hook installed)",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=".",
        help="the project directory (default: the current one)",
    )


def _run_doctor(arguments: argparse.Namespace) -> int:
    from gateway_hooks._doctor import diagnose

    names = [arguments.host] if arguments.host else _host_names()
    hosts = [_load(name) for name in names]
    return diagnose(
        hosts,
        project=Path(arguments.project).expanduser().resolve(),
        home=Path.home(),
        only=bool(arguments.host),
    )


DOCTOR: Final = Subcommand(
    name="doctor",
    help="Check the installed hooks end to end: they run, answer, block on bad input; the service and token.",
    configure=_configure_doctor,
    run=_run_doctor,
)
