"""
``gateway hook claude-code``: answer one Claude Code hook event, and block on anything else.

Claude Code runs a command hook with one JSON event on standard input. For
``PreToolUse`` it reads the decision from standard output when the hook exits
0, and blocks the call when it exits 2 (standard error is then the reason).
Every other exit status, a timeout, or a hook that cannot start lets the call
through unless the hook is configured with ``"onFailure": "block"``. So this
command never fails any other way: whatever it cannot handle — bad JSON,
invalid UTF-8, an unknown event, an unreachable service, a slow answer, a bug —
exits 2 with one sentence on standard error, and nothing but the one JSON
answer is ever written to standard output.

Two modes:

* standalone: the gateway runs in this process with the config file given by
  ``--config`` (or the embedded default), and writes its audit log wherever
  that config's sinks say;
* forward: with ``--server URL`` (or ``[hook] server``), the event is posted
  to a running ``gateway serve`` at ``URL/hooks/claude-code`` with the bearer
  token from ``--token-file`` (or ``[hook] token-file``), and its answer is
  checked and relayed. Only the standard library is used, so the hook needs no
  extra installed.

Every wait is bounded: reading standard input, taking the audit-log lock, the
review, and the request to the service.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import select
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Literal

import anyio
import msgspec

from gateway._cli._common import CommandError, Subcommand, register, write_json
from gateway._config import (
    MAX_SECONDS,
    GatewayConfig,
    default_config,
    default_token_file,
    load_config,
)
from gateway._errors import GatewayError
from gateway._gateway import Gateway
from gateway._hosts import (
    ClaudeCodeEvent,
    claude_code_call,
    claude_code_permission_response,
    claude_code_pre_tool_use_response,
)
from gateway._telemetry import trace_headers

__all__ = ["check_service_answer", "run_hook"]

MAX_EVENT_BYTES: Final = 8 * 1024 * 1024
MAX_ANSWER_BYTES: Final = 1024 * 1024
STDIN_TIMEOUT: Final = 10.0
ENDPOINT: Final = "/hooks/claude-code"
EVENTS: Final = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure")

Event = Literal["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"]


class _Blocked(CommandError):
    """The hook cannot answer; it exits 2 so that Claude Code blocks the call."""

    def __init__(self, message: str) -> None:
        super().__init__(message, status=2)


# ── reading the event ──


def read_stdin(timeout: float = STDIN_TIMEOUT, limit: int = MAX_EVENT_BYTES) -> bytes:
    """Read standard input to its end, within ``timeout`` seconds and ``limit`` bytes."""
    fd = sys.stdin.fileno()
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _Blocked(
                f"No complete hook event arrived on standard input within {timeout:g} s."
            )
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise _Blocked(f"The hook event is larger than {limit} bytes.")
        chunks.append(chunk)


def parse_event(data: bytes) -> tuple[ClaudeCodeEvent, dict[str, Any]]:
    """The event, typed and as a plain object; `_Blocked` when it is not one we can answer."""
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as error:
        raise _Blocked(f"The hook event is not valid UTF-8 (byte offset {error.start}).") from None
    try:
        raw = msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        raise _Blocked(f"The hook event is not JSON ({_short(error)}).") from None
    if not isinstance(raw, dict):
        raise _Blocked("The hook event is not a JSON object.")
    name = raw.get("hook_event_name")
    if name not in EVENTS:
        raise _Blocked(
            f"The hook cannot handle the event {name!r}; it handles {', '.join(EVENTS)}."
        )
    try:
        event = msgspec.convert(raw, ClaudeCodeEvent)
    except msgspec.ValidationError as error:
        raise _Blocked(f"The {name} event is malformed ({_short(error)}).") from None
    return event, raw


def _short(error: Exception) -> str:
    text = " ".join(str(error).split())
    return text[:160].rstrip(".")


# ── standalone: the gateway in this process ──


def _sink_paths(config: GatewayConfig) -> list[Path]:
    return sorted({Path(sink.path).resolve() for sink in config.sinks.values() if sink.path})


@contextlib.contextmanager
def _audit_locks(config: GatewayConfig, timeout: float) -> Iterator[None]:
    """
    Hold an exclusive lock beside each audit log while this process writes to it.

    Claude Code runs the hooks of parallel tool calls at the same time, each in
    its own process; each continues the log's hash chain from its last record,
    so two writers at once would fork the chain.
    """
    deadline = time.monotonic() + timeout
    with contextlib.ExitStack() as stack:
        for path in _sink_paths(config):
            path.parent.mkdir(parents=True, exist_ok=True)
            lock = stack.enter_context(Path(f"{path}.lock").open("ab"))
            while True:
                try:
                    fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise _Blocked(
                            f"The audit log {str(path)!r} stayed locked by another hook for {timeout:g} s."
                        ) from None
                    time.sleep(0.02)
        yield


def _outcome(event: ClaudeCodeEvent, raw: dict[str, Any]) -> tuple[str, str | None]:
    if event.hook_event_name == "PostToolUseFailure":
        error = raw.get("error")
        return "failed", error if isinstance(error, str) else None
    response = event.tool_response
    if isinstance(response, dict) and response.get("interrupted") is True:
        return "failed", "interrupted"
    return "succeeded", None


async def _standalone(
    config: GatewayConfig, event: ClaudeCodeEvent, raw: dict[str, Any], seconds: float
) -> dict[str, Any] | None:
    call = claude_code_call(event)
    with anyio.fail_after(seconds):
        async with Gateway(config) as gateway:
            if event.hook_event_name in ("PostToolUse", "PostToolUseFailure"):
                outcome, detail = _outcome(event, raw)
                await gateway.record_outcome(call.call_id, outcome, detail)
                return None
            verdict = await gateway.review(call)
    if event.hook_event_name == "PermissionRequest":
        return claude_code_permission_response(verdict)
    return claude_code_pre_tool_use_response(verdict)


def run_standalone(
    config: GatewayConfig, event: ClaudeCodeEvent, raw: dict[str, Any], timeout: float
) -> dict[str, Any] | None:
    """Review (or record) the event with an in-process gateway; the answer to print, if any."""
    try:
        with _audit_locks(config, timeout):
            return anyio.run(_standalone, config, event, raw, timeout)
    except TimeoutError:
        raise _Blocked(f"The gateway did not answer within {timeout:g} s.") from None
    except GatewayError as error:
        raise _Blocked(str(error)) from None
    except OSError as error:
        raise _Blocked(f"The gateway could not start ({error.strerror or error}).") from None


# ── forward: a running approval service ──


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would send the event (and the token) somewhere not configured; refuse it."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def service_url(server: str) -> str:
    """The hook endpoint of the service at ``server`` (an http or https URL)."""
    parts = urllib.parse.urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise _Blocked(f"The server {server!r} is not an http:// or https:// URL.")
    path = parts.path.rstrip("/")
    if not path.endswith(ENDPOINT):
        path += ENDPOINT
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def read_token(token_file: str | None) -> str | None:
    """The bearer token in ``token_file`` (``None`` when no file is configured)."""
    if not token_file:
        return None
    try:
        token = Path(token_file).expanduser().read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8"
        raise _Blocked(f"Cannot read the token file {token_file!r} ({reason}).") from None
    if not token:
        raise _Blocked(f"The token file {token_file!r} is empty.")
    return token


def _post(url: str, body: bytes, token: str | None, timeout: float) -> bytes:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    # The host's trace context, when it gives one (TRACEPARENT): the review joins its trace.
    headers.update(trace_headers(os.environ))
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")  # noqa: S310 -- the scheme is checked in service_url
    # No proxies from the environment (the token must go only where configured), no redirects.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
    try:
        with opener.open(request, timeout=timeout) as response:
            data: bytes = response.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as error:
        raise _Blocked(
            f"The approval service answered HTTP {error.code} ({error.reason})."
        ) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", None) or error
        raise _Blocked(f"The approval service at {url!r} is unreachable ({reason}).") from None
    if len(data) > MAX_ANSWER_BYTES:
        raise _Blocked(f"The approval service's answer is larger than {MAX_ANSWER_BYTES} bytes.")
    return data


def post_bounded(url: str, body: bytes, token: str | None, timeout: float) -> bytes:
    """
    POST ``body`` and return the answer, within ``timeout`` seconds in all.

    The socket timeout bounds each read; a server that trickles bytes could
    still take longer, so the request runs in a daemon thread that is
    abandoned (and dies with this short-lived process) at the deadline.
    """
    result: list[bytes | BaseException] = []

    def work() -> None:
        try:
            result.append(_post(url, body, token, timeout))
        except BaseException as error:  # noqa: BLE001 -- handed to the caller, which re-raises it
            result.append(error)

    worker = threading.Thread(target=work, name="gateway-hook-forward", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or not result:
        raise _Blocked(f"The approval service did not answer within {timeout:g} s.")
    answer = result[0]
    if isinstance(answer, BaseException):
        raise answer
    return answer


def check_service_answer(event_name: str, data: bytes) -> dict[str, Any] | None:
    """
    The service's answer if it is one Claude Code reads as intended; else `_Blocked`.

    Relaying an answer unchecked could fail open: Claude Code ignores output it
    does not understand and lets the call through.
    """
    if event_name in ("PostToolUse", "PostToolUseFailure"):
        return None
    try:
        answer = msgspec.json.decode(data) if data.strip() else {}
    except msgspec.DecodeError:
        raise _Blocked("The approval service's answer is not JSON.") from None
    if not isinstance(answer, dict):
        raise _Blocked("The approval service's answer is not a JSON object.")
    specific = answer.get("hookSpecificOutput")
    if event_name == "PermissionRequest" and specific is None and not answer:
        return answer  # no decision: Claude Code shows its own permission dialog
    if not isinstance(specific, dict) or specific.get("hookEventName") != event_name:
        raise _Blocked(f"The approval service's answer is not a {event_name} decision.")
    if event_name == "PreToolUse":
        if specific.get("permissionDecision") not in ("allow", "deny", "ask"):
            raise _Blocked("The approval service's answer has no allow, deny or ask decision.")
        return answer
    decision = specific.get("decision")
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        raise _Blocked("The approval service's answer has no allow or deny behavior.")
    return answer


def run_forward(
    server: str, token_file: str | None, event_name: str, body: bytes, timeout: float
) -> dict[str, Any] | None:
    """Post the event to the service and return its checked answer."""
    url = service_url(server)
    token = read_token(token_file)
    return check_service_answer(event_name, post_bounded(url, body, token, timeout))


# ── the command ──


def _config(path: str | None) -> GatewayConfig:
    try:
        return load_config(path) if path else default_config()
    except GatewayError as error:
        raise _Blocked(str(error)) from None
    except OSError as error:
        raise _Blocked(f"Cannot read the embedded default config ({error.strerror}).") from None


def run_hook(arguments: argparse.Namespace) -> dict[str, Any] | None:
    """Handle one event read from standard input; the JSON to print, or ``None``."""
    # Claude Code writes the event and closes standard input at once; a hook
    # that waited longer than its own timeout for it would outlive its answer.
    stdin_timeout = STDIN_TIMEOUT
    if arguments.timeout is not None and 0 < arguments.timeout < STDIN_TIMEOUT:
        stdin_timeout = arguments.timeout
    data = read_stdin(stdin_timeout)
    event, raw = parse_event(data)
    if arguments.config is None and arguments.server is not None:
        # Forwarding needs no policy: the embedded config only supplies [hook] defaults.
        try:
            config = default_config()
        except (GatewayError, OSError):
            config = GatewayConfig()
    else:
        config = _config(arguments.config)
    server = arguments.server if arguments.server is not None else config.hook.server
    timeout = arguments.timeout if arguments.timeout is not None else config.hook.timeout
    if not 0 < timeout <= MAX_SECONDS:
        raise _Blocked(
            f"The timeout must be between 0 and {MAX_SECONDS:g} seconds, not {timeout:g}."
        )
    if server:
        token_file = (
            arguments.token_file if arguments.token_file is not None else config.hook.token_file
        )
        if token_file is None and default_token_file().is_file():
            # Where `gateway serve` stored it; a configured file must exist, this one may not.
            token_file = str(default_token_file())
        return run_forward(server, token_file, event.hook_event_name, data, timeout)
    return run_standalone(config, event, raw, timeout)


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("host", choices=["claude-code"], help="the agent host whose hook this is")
    parser.add_argument(
        "--config", metavar="FILE", help="the gateway config (default: the embedded default)"
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="forward to a running `gateway serve` at URL (default: [hook] server; empty reviews in-process)",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        help="the bearer token for the server (default: [hook] token-file)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="seconds to wait for a verdict before blocking (default: [hook] timeout)",
    )


def _run(arguments: argparse.Namespace) -> int:
    try:
        # Nothing but the answer may reach standard output: anything a plugin
        # prints goes to standard error instead.
        with contextlib.redirect_stdout(sys.stderr):
            answer = run_hook(arguments)
    except CommandError:
        raise
    except Exception as error:  # noqa: BLE001 -- a bug in the hook must block the call, never let it through
        raise _Blocked(
            f"The hook failed ({type(error).__name__}), so the call is blocked."
        ) from None
    if answer is not None:
        write_json(answer)
    return 0


register(
    Subcommand(
        name="hook",
        help="Answer one agent-host hook event read as JSON on standard input (Claude Code: exit 2 blocks).",
        configure=_configure,
        run=_run,
    )
)
