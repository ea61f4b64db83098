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
import socket
import sys

import anyio
from gateway_relay import at_socket_path, default_socket
from gateway_relay._listen import peer_pid

from gateway import Gateway, GatewayConfig, GatewayError, default_config, load_config
from gateway.audit import log_writer
from gateway.config import state_path
from gateway.confinement import not_confinable
from gateway_hooks import HookReply, LinkStore, answer_hook, load_host
from gateway_hooks._routing import Routing, gateway_program

__all__ = [
    "hook_config",
    "hook_routing",
    "refusal",
    "refuse_beside_service",
    "run_standalone",
]


def hook_config(path: str | None) -> GatewayConfig:
    """The config a hook reviews with: ``--config FILE``, or the embedded default."""
    try:
        return load_config(path) if path else default_config()
    except OSError as error:
        raise GatewayError(
            f"Cannot read the embedded default config ({error.strerror}); pass --config FILE."
        ) from None


def hook_routing(config: GatewayConfig, path: str | None) -> Routing:
    """How this hook routes shell calls through ``gateway run``, with the same config."""
    return Routing(
        profile=config.rules_profile,
        unavailable=not_confinable(),
        shell_tools=config.shell_tools,
        config=os.path.abspath(path) if path else None,
        program=gateway_program(),
    )


def _service_pid(path: str) -> int | None:
    """The process of the ``gateway serve`` listening at ``path`` (the kernel names it), or ``None``."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(1.0)
    try:
        at_socket_path(path, connection.connect)
        return peer_pid(connection)
    except OSError:
        return None
    finally:
        connection.close()


def refuse_beside_service(config: GatewayConfig) -> None:
    """
    Refuse at once to open an audit log the running ``gateway serve`` writes.

    The service holds its log's lock for as long as it runs: a hook that
    waited for it would wait out the lock's whole patience and then block.
    Other writers (another hook, a warm worker) hold it only while they
    answer, so the hook takes its turn after them.

    Raises:
        GatewayError: A file sink's log is the one the service at the
            hook's socket (``[hook] socket``, else the default) writes.
    """
    paths = [state_path(sink.path) for sink in config.sinks.values() if sink.path]
    holders = {path: log_writer(path) for path in paths}
    if not any(holders.values()):
        return
    service = config.hook.socket or default_socket()
    pid = _service_pid(service)
    for path, holder in holders.items():
        if pid is not None and holder == pid:
            raise GatewayError(
                f"The audit log {str(path)!r} is written by the gateway serving hooks at "
                f"{service!r} (process {pid}), so this hook cannot record its review beside it; "
                "let the hook forward to it (no --in-process or --confine), or give the hook's "
                "config a log of its own."
            )


async def _answer(
    host_name: str, data: bytes, config: GatewayConfig, seconds: float, routing: Routing | None
) -> HookReply:
    host = load_host(host_name)
    refuse_beside_service(config)
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


def refusal(error: BaseException, timeout: float) -> str | None:
    """The one sentence that blocks the call when the gateway fails with ``error``; ``None`` for a bug."""
    if isinstance(error, TimeoutError):
        return f"The gateway did not answer within {timeout:g} s, so the call is blocked."
    if isinstance(error, GatewayError):
        return str(error)
    if isinstance(error, OSError):
        return f"The gateway could not start ({error.strerror or error}), so the call is blocked."
    return None


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
            config = hook_config(config_path)
            # Hosts run the hooks of parallel tool calls at the same time, each
            # in its own process: the audit sinks take the log's lock when they
            # open (bounded, a decline when another holds it too long), so they
            # take turns and the chain never forks.
            routing = hook_routing(config, config_path) if confine else None
            reply = anyio.run(_answer, host_name, data, config, timeout, routing)
    except (TimeoutError, GatewayError, OSError) as error:
        return 2, "", refusal(error, timeout) or ""
    return reply.status, reply.stdout, reply.stderr
