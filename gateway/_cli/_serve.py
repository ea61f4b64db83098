"""
``gateway serve``: run the approval service (the page, the API, the gateway behind them).

The web parts (Starlette, uvicorn) come with the ``web`` extra and are
imported only when this command runs, so every other command starts without
them. A new bearer token is made at every start, printed once, and stored
with user-only permissions where ``gateway hook claude-code --server`` reads
it. Stops cleanly on SIGINT or SIGTERM: what waits for a person is declined.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import anyio
import msgspec

from gateway._cli._common import CommandError, Subcommand, register
from gateway._config import (
    GatewayConfig,
    SinkConfig,
    default_config,
    default_token_file,
    load_config,
)
from gateway._errors import GatewayError

__all__: list[str] = []


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
    arguments: argparse.Namespace, config: GatewayConfig, token: str, token_file: Path
) -> None:
    import gateway_web

    try:
        service = gateway_web.open_service(
            config,
            host=arguments.host,
            port=arguments.port,
            token=token,
            audit_path=arguments.audit,
        )
        async with service as running:
            # Only a service that has bound its port (and opened its gateway)
            # writes the token: a second `gateway serve` that fails to start
            # must not replace the token of the one running.
            try:
                stored = gateway_web.store_token(token_file, token)
            except OSError as error:
                raise CommandError(
                    f"Cannot store the token in {str(token_file)!r} ({error.strerror}); pass --token-file FILE."
                ) from None
            if running.board is None:
                sys.stderr.write(
                    "gateway serve: no 'human' approver is in [gateway] approvers, so calls are never put to a person.\n"
                )
            _say(f"gateway serve: the approval page is at {running.url}")
            _say(f"gateway serve: bearer token (stored in {stored}, mode 0600): {token}")
            try:
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    async for _ in signals:
                        break
                sys.stderr.write("gateway serve: stopping; calls still waiting are declined.\n")
            finally:
                gateway_web.remove_token(stored, token)
    except OSError as error:
        host = arguments.host or config.serve.host
        port = arguments.port if arguments.port is not None else config.serve.port
        raise CommandError(f"Cannot listen on {host}:{port} ({error.strerror}).") from None
    except GatewayError as error:
        raise CommandError(str(error)) from None


def _run(arguments: argparse.Namespace) -> int:
    config = _load(arguments)
    try:
        import gateway_web
    except ImportError:
        raise CommandError(
            "The approval service needs the web extra: pip install 'agent-gateway[web]'."
        ) from None
    token = gateway_web.new_token()
    token_file = Path(
        arguments.token_file or config.serve.token_file or default_token_file()
    ).expanduser()
    anyio.run(_serve, arguments, config, token, token_file)
    return 0


register(
    Subcommand(
        name="serve",
        help="Run the approval service: a page where people see plans and decide, and its HTTP API.",
        configure=_configure,
        run=_run,
    )
)
