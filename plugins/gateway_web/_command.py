"""
``gateway serve``: run the approval service (the page, the API, the gateway behind them).

Contributed to the ``gateway`` command through the ``gateway.commands``
entry-point group, so the core command never imports the web parts
(Starlette, uvicorn: the ``web`` extra). A new bearer token is made at every
start, printed once, and stored with user-only permissions. Hooks
(``gateway-hook HOST``) forward to the service's Unix socket (mode 0600),
which needs no token. Stops cleanly on SIGINT or SIGTERM: what waits for a
person is declined.

The config comes from its tiers (managed, user — ``--config`` —, project;
the strictest wins). People's tokens (``gateway token create``) are
accepted too, from the state directory, or from the broker with one.

With ``--broker nats://HOST:PORT`` (or ``[broker] url``) the service is a
replica of a fleet (the ``nats`` extra): calls that wait for a person, the
decisions, people's tokens, remembered approvals and the managed policy live
in the broker's JetStream, and every event is published to its audit stream.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import msgspec
from gateway_relay import default_socket

from gateway import GatewayConfig, GatewayError
from gateway.cli import (
    CommandError,
    Exporters,
    Subcommand,
    add_broker_argument,
    add_config_argument,
    broker_of,
    broker_plugin,
    load_tiers,
    needs_extra,
    open_exporters,
    sole_exception,
)
from gateway.config import SinkConfig, default_token_file
from gateway.fleet import (
    Tier,
    TokenBook,
    TokenError,
    TokenFile,
    default_tokens_file,
    follow_token_file,
)

__all__ = ["SERVE"]


def _configure(parser: argparse.ArgumentParser) -> None:
    add_config_argument(parser)
    add_broker_argument(parser)
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
    parser.add_argument(
        "--tokens-file",
        metavar="FILE",
        help="people's tokens without a broker (default: ~/.local/state/agent-gateway/tokens.json)",
    )


def _load(arguments: argparse.Namespace) -> tuple[GatewayConfig, tuple[Tier, ...]]:
    effective = load_tiers(arguments)
    config = effective.config
    broker = broker_of(config, arguments.broker)
    if broker is not None:
        config = msgspec.structs.replace(config, broker=broker)
    if arguments.audit:
        # A file named on the command line is where the user is, not in the state directory.
        arguments.audit = str(Path(arguments.audit).expanduser().absolute())
        sinks = dict(config.sinks)
        name = "serve-audit" if "audit" in sinks else "audit"
        sinks[name] = SinkConfig(plugin="jsonl", path=arguments.audit, required=True)
        config = msgspec.structs.replace(config, sinks=sinks)
    if arguments.port is not None and not 0 <= arguments.port <= 65_535:
        raise CommandError(f"The port must be between 0 and 65535, not {arguments.port}.")
    return config, effective.tiers


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _until_signalled() -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            break
    sys.stderr.write("gateway serve: stopping; calls still waiting are declined.\n")


def _announce(running: Any, token: str, stored: Path) -> None:
    if running.board is not None and not running.board.link_base:
        running.board.link_base = running.url  # Where notices link to, without [serve] public-url.
    if running.board is None:
        sys.stderr.write(
            "gateway serve: no 'human' approver is in [gateway] approvers, so calls are never put to a person.\n"
        )
    _say(f"gateway serve: the approval page is at {running.url}")
    _say(f"gateway serve: bearer token (stored in {stored}, mode 0600): {token}")
    if running.hook_socket is not None:
        _say(f"gateway serve: hooks forward to {running.hook_socket} (mode 0600)")


def _hook_socket(arguments: argparse.Namespace) -> str | None:
    """Where hooks forward to: ``--socket``, else the state directory's ``gateway.sock``; none with ``--no-socket``."""
    return None if arguments.no_socket else (arguments.socket or default_socket())


@contextmanager
def _token_stored(token_file: Path, token: str) -> Iterator[Path]:
    """
    Store the token while the service runs, and remove it (if still its own) when it stops.

    Only a service that has bound its port (and opened its gateway) writes
    the token: a second ``gateway serve`` that fails to start must not
    replace the token of the one running.
    """
    import gateway_web

    try:
        stored = gateway_web.store_token(token_file, token)
    except OSError as error:
        raise CommandError(
            f"Cannot store the token in {str(token_file)!r} ({error.strerror}); pass --token-file FILE."
        ) from None
    try:
        yield stored
    finally:
        gateway_web.remove_token(stored, token)


async def _serve(
    arguments: argparse.Namespace,
    config: GatewayConfig,
    token: str,
    token_file: Path,
    exporters: Exporters,
) -> None:
    import gateway_web

    tokens = TokenFile(arguments.tokens_file or default_tokens_file())
    book = TokenBook()
    try:
        book.replace(tokens.records())
    except TokenError as error:
        raise CommandError(str(error)) from None
    try:
        service = gateway_web.open_service(
            config,
            host=arguments.host,
            port=arguments.port,
            token=token,
            audit_path=arguments.audit,
            tokens=book,
            hook_socket=_hook_socket(arguments),
            tracer_provider=exporters.tracer_provider,
            meter_provider=exporters.meter_provider,
        )
        async with service as running, anyio.create_task_group() as group:
            # People's tokens made or revoked while the service runs count within a second.
            group.start_soon(follow_token_file, tokens, book)
            with _token_stored(token_file, token) as stored:
                _announce(running, token, stored)
                await _until_signalled()
            group.cancel_scope.cancel()
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


async def _serve_fleet(
    arguments: argparse.Namespace,
    config: GatewayConfig,
    tiers: tuple[Tier, ...],
    token: str,
    token_file: Path,
    exporters: Exporters,
) -> None:
    import gateway_web

    plugin = broker_plugin()
    try:
        async with plugin.open_fleet(config, tiers) as fleet:
            service = gateway_web.open_service(
                fleet.config,
                host=arguments.host,
                port=arguments.port,
                token=token,
                audit_path=arguments.audit,
                hook_socket=_hook_socket(arguments),
                services=fleet.services,
                tokens=fleet.tokens,
                tracer_provider=exporters.tracer_provider,
                meter_provider=exporters.meter_provider,
            )
            async with service as running:
                fleet.bind(running.gateway, running.url)
                with _token_stored(token_file, token) as stored:
                    _announce(running, token, stored)
                    _say(
                        f"gateway serve: replica {fleet.broker.replica!r} of the fleet at {fleet.broker.where}"
                        f" (policy {fleet.policy.state.version or 'of this replica alone'})"
                    )
                    await _until_signalled()
    except BaseExceptionGroup as group:
        # The fleet's mirrors run in a task group, which hands back what
        # failed inside it as a group: say the one thing that failed.
        raise _failure(arguments, config, plugin, sole_exception(group)) from None
    except Exception as error:  # noqa: BLE001 -- every failure at start becomes one sentence
        raise _failure(arguments, config, plugin, error) from None


def _failure(
    arguments: argparse.Namespace, config: GatewayConfig, plugin: Any, error: BaseException
) -> BaseException:
    if isinstance(error, BaseExceptionGroup | CommandError):
        return error
    if isinstance(error, plugin.BrokerError | GatewayError):
        return CommandError(str(error))
    if isinstance(error, FileExistsError):
        return CommandError(f"Cannot answer hooks: {error}; pass --socket PATH or --no-socket.")
    if isinstance(error, OSError):
        host = arguments.host or config.serve.host
        port = arguments.port if arguments.port is not None else config.serve.port
        return CommandError(f"Cannot listen on {host}:{port} ({error.strerror}).")
    return error


def _run(arguments: argparse.Namespace) -> int:
    config, tiers = _load(arguments)
    try:
        import gateway_web
    except ImportError:
        raise CommandError(needs_extra("The approval service", "web")) from None
    token = gateway_web.new_token()
    token_file = Path(
        arguments.token_file or config.serve.token_file or default_token_file()
    ).expanduser()
    # Traces and metrics go where [telemetry] says; what is buffered is sent before the exit.
    with open_exporters(config.telemetry) as exporters:
        if config.broker.servers:
            anyio.run(
                _serve_fleet,
                arguments,
                config,
                tiers,
                token,
                token_file,
                exporters,
                backend="asyncio",
            )
        else:
            anyio.run(_serve, arguments, config, token, token_file, exporters)
    return 0


SERVE = Subcommand(
    name="serve",
    help="Run the approval service: a page where people see plans and decide, and its HTTP API.",
    configure=_configure,
    run=_run,
)
"""``gateway serve``, contributed through the ``gateway.commands`` entry-point group."""
