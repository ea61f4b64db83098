"""
``python -m gateway_mcp [--config FILE | --server URL [--token-file FILE]] [--timeout SECONDS] -- COMMAND [ARG…]``: guard an MCP server.

Starts ``COMMAND ARG…`` as the upstream MCP server (stdio) and serves the
reviewing proxy on standard input and output. With ``--server`` every call is
reviewed by that running approval service (its token read from
``--token-file``, by default where ``gateway serve`` stores it), so a person
can be asked in its page. Errors that stop it from starting are one sentence
on standard error and exit status 2.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
from gateway_guard import DEFAULT_TIMEOUT

from gateway import GatewayError, default_config, load_config
from gateway.config import default_token_file
from gateway_mcp import ServiceReviewer, serve_stdio


def main(argv: Sequence[str] | None = None) -> int:
    """Run the proxy until the client disconnects; return the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m gateway_mcp",
        description="Serve an MCP server's tools through the gateway, which reviews every call.",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the gateway config (default: the embedded default)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="seconds to wait for a verdict before refusing the call",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="review with this running approval service (gateway serve), which can ask a person",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="the service's token (default: where gateway serve stores it)",
    )
    parser.add_argument("command", metavar="COMMAND", help="the upstream MCP server's command")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARG", help="its arguments")
    arguments = parser.parse_args(argv)
    try:
        config = load_config(arguments.config) if arguments.config else default_config()
        service = None
        if arguments.server:
            token_file = Path(arguments.token_file or default_token_file()).expanduser()
            try:
                token = token_file.read_text("utf-8").strip()
            except (OSError, UnicodeDecodeError) as error:
                problem = error.strerror if isinstance(error, OSError) else "it is not UTF-8"
                raise ValueError(
                    f"Cannot read the service's token file {str(token_file)!r} ({problem}); pass --token-file FILE."
                ) from None
            service = ServiceReviewer(arguments.server, token, timeout=arguments.timeout)
    except (GatewayError, OSError, ValueError) as error:
        sys.stderr.write(f"gateway_mcp: {error}\n")
        return 2
    serve = functools.partial(
        serve_stdio,
        arguments.command,
        arguments.args,
        config=config,
        within=arguments.timeout,
        service=service,
    )
    try:
        anyio.run(serve)
    except Exception as error:  # noqa: BLE001 -- the proxy could not start or serve: one sentence, exit 2
        reason = str(error).rstrip(".")
        sys.stderr.write(f"gateway_mcp: the proxy stopped ({type(error).__name__}: {reason}).\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
