"""
``gateway serve``: run the approval service (the page, the API, the gateway behind them).

Contributed to the ``gateway`` command through the ``gateway.commands``
entry-point group, so the core command never imports the web parts
(Starlette, uvicorn: the ``web`` extra). A new bearer token is made at every
start, printed once, and stored with user-only permissions where ``gateway
hook HOST --server URL`` reads it. Stops cleanly on SIGINT or SIGTERM: what
waits for a person is declined.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import anyio
import msgspec
from gateway_relay import default_socket

from gateway import (
    GatewayConfig,
    GatewayError,
    SinkConfig,
    default_config,
    default_token_file,
    load_config,
)
from gateway.cli import CommandError, Subcommand
from gateway_web._server import open_service
from gateway_web._token import new_token, store_token

__all__ = ["SERVE"]


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", metavar="FILE", help="the gateway config (default: the embedded default)"
    )
    parser.add_argument("--host", help="the address to bind (default: [serve] host, 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, help="the port (default: [serve] port, 8787; 0 picks a free one)"
    )
    parser.add_argument(
        "--audit",
        metavar="FILE",
        help="also write a hash-chained audit log (JSON lines) to FILE, and serve it read-only",
    )
    sockets = parser.add_mutually_exclusive_group()
    sockets.add_argument(
        "--socket",
        metavar="PATH",
        help="answer hooks (`gateway-hook HOST`) on this Unix socket (default: gateway.sock in the state directory)",
    )
    sockets.add_argument(
        "--no-socket", action="store_true", help="do not answer hooks on a Unix socket"
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="where to store the bearer token (default: [serve] token-file, else ~/.local/state/agent-gateway/token)",
    )


def _load(arguments: argparse.Namespace) -> GatewayConfig:
    try:
        config = load_config(arguments.config) if arguments.config else default_config()
    except GatewayError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(
            f"Cannot read the embedded default config ({error.strerror}); pass --config FILE."
        ) from None
    if arguments.audit:
        sinks = dict(config.sinks)
        name = "serve-audit" if "audit" in sinks else "audit"
        sinks[name] = SinkConfig(plugin="jsonl", path=arguments.audit, required=True)
        config = msgspec.structs.replace(config, sinks=sinks)
    if arguments.port is not None and not 0 <= arguments.port <= 65_535:
        raise CommandError(f"The port must be between 0 and 65535, not {arguments.port}.")
    return config


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _serve(
    arguments: argparse.Namespace, config: GatewayConfig, token: str, stored: Path
) -> None:
    try:
        service = open_service(
            config,
            host=arguments.host,
            port=arguments.port,
            token=token,
            audit_path=arguments.audit,
            hook_socket=None if arguments.no_socket else (arguments.socket or default_socket()),
        )
        async with service as running:
            if running.board is None:
                sys.stderr.write(
                    "gateway serve: no 'human' approver is in [gateway] approvers, so calls are never put to a person.\n"
                )
            _say(f"gateway serve: the approval page is at {running.url}")
            _say(f"gateway serve: bearer token (stored in {stored}, mode 0600): {token}")
            if running.hook_socket is not None:
                _say(f"gateway serve: hooks forward to {running.hook_socket} (mode 0600)")
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    break
            sys.stderr.write("gateway serve: stopping; calls still waiting are declined.\n")
    except FileExistsError as error:
        raise CommandError(
            f"Cannot answer hooks: {error}; pass --socket PATH or --no-socket."
        ) from None
    except OSError as error:
        host = arguments.host or config.serve.host
        port = arguments.port if arguments.port is not None else config.serve.port
        raise CommandError(f"Cannot listen on {host}:{port} ({error.strerror}).") from None
    except GatewayError as error:
        raise CommandError(str(error)) from None


def _run(arguments: argparse.Namespace) -> int:
    config = _load(arguments)
    token = new_token()
    token_file = Path(
        arguments.token_file or config.serve.token_file or default_token_file()
    ).expanduser()
    try:
        stored = store_token(token_file, token)
    except OSError as error:
        raise CommandError(
            f"Cannot store the token in {str(token_file)!r} ({error.strerror}); pass --token-file FILE."
        ) from None
    anyio.run(_serve, arguments, config, token, stored)
    return 0


SERVE = Subcommand(
    name="serve",
    help="Run the approval service: a page where people see plans and decide, and its HTTP API.",
    configure=_configure,
    run=_run,
)
"""``gateway serve``, contributed through the ``gateway.commands`` entry-point group."""
