"""
The hook's in-process path: a gateway started in the hook process answers one event.

Used by ``gateway-hook HOST`` when no ``gateway serve`` listens on its
socket. The config is ``--config FILE`` or the embedded default; the audit
log is wherever its sinks say. Every failure is exit 2 with one sentence, and
every wait is bounded: the audit-log lock (the sinks take it when they open),
the gateway's start, the review.
Anything a plugin prints goes to standard error, never to standard output.
"""

from __future__ import annotations

import contextlib
import os
import sys

import anyio

from gateway import (
    Gateway,
    GatewayConfig,
    GatewayError,
    default_config,
    load_config,
    not_confinable,
)
from gateway_hooks import HookReply, LinkStore, answer_hook, load_host
from gateway_hooks._routing import Routing, gateway_program

__all__ = ["run_standalone"]


def _config(path: str | None) -> GatewayConfig:
    try:
        return load_config(path) if path else default_config()
    except OSError as error:
        raise GatewayError(
            f"Cannot read the embedded default config ({error.strerror}); pass --config FILE."
        ) from None


def _routing(config: GatewayConfig, path: str | None) -> Routing:
    """How this hook routes shell calls through ``gateway run``, with the same config."""
    return Routing(
        profile=config.rules_profile,
        unavailable=not_confinable(),
        shell_tools=config.shell_tools,
        config=os.path.abspath(path) if path else None,
        program=gateway_program(),
    )


async def _answer(
    host_name: str, data: bytes, config: GatewayConfig, seconds: float, routing: Routing | None
) -> HookReply:
    host = load_host(host_name)
    with anyio.fail_after(seconds):
        async with Gateway(config) as gateway:
            return await answer_hook(
                host,
                gateway,
                data,
                allow=config.hosts.allow,
                links=LinkStore.default(),
                within=seconds,
                hook_pid=os.getpid(),
                routing=routing,
            )


def run_standalone(
    host_name: str, data: bytes, config_path: str | None, timeout: float, *, confine: bool = False
) -> tuple[int, str, str]:
    """
    Answer one event with a gateway in this process.

    ``confine``: the hook routes allowed shell calls through ``gateway run``
    (`gateway_hooks.Routing`), under the config's rules profile.

    Returns:
        ``(status, stdout, stderr)``: what the hook process prints and how it exits.
    """
    try:
        with contextlib.redirect_stdout(sys.stderr):
            config = _config(config_path)
            # Hosts run the hooks of parallel tool calls at the same time, each
            # in its own process: the audit sinks take the log's lock when they
            # open (bounded, a decline when another holds it too long), so they
            # take turns and the chain never forks.
            routing = _routing(config, config_path) if confine else None
            reply = anyio.run(_answer, host_name, data, config, timeout, routing)
    except TimeoutError:
        return 2, "", f"The gateway did not answer within {timeout:g} s, so the call is blocked."
    except GatewayError as error:
        return 2, "", str(error)
    except OSError as error:
        return (
            2,
            "",
            f"The gateway could not start ({error.strerror or error}), so the call is blocked.",
        )
    return reply.status, reply.stdout, reply.stderr
