"""
The gateway in front of any MCP server: a proxy that reviews every ``tools/call``.

`build_proxy` makes an MCP server (the ``mcp`` SDK's low-level `Server`) that
lists the upstream server's tools as its own and, for each ``tools/call``,
asks the gateway first:

* ``allow`` forwards the call upstream and relays the result;
* ``decline`` answers with a tool error (``isError: true``) whose text is the
  gateway's reason — the client shows it to the model and the user, and the
  upstream server never sees the call;
* ``ask`` goes to the ``ask`` callback when one was given (its answer is
  recorded in the audit log, ``host.decided``), and is otherwise a tool error
  whose text is the rule's reason. (With the ``human`` approver in the
  gateway's chain, a person decides inside the gateway instead, and the
  verdict that arrives here is already ``allow`` or ``decline``.)

Every forwarded call's outcome is recorded (``call.outcome``: succeeded, or
failed when the upstream result is an error or the call raised). Call ids are
``mcp-<connection>-<request id>``, with a random id per proxy, so they never
repeat across connections or restarts. A gateway that crashes or hangs past
``timeout`` is a tool error too: nothing reaches the upstream server
unreviewed. Only tools are proxied (not resources or prompts).

`serve_stdio` (``python -m gateway_mcp -- COMMAND ARGS…``) starts the upstream
server as a subprocess over stdio and serves the proxy on this process's
stdin/stdout, so an MCP client is configured with the proxy's command line
instead of the server's.

The proxy reviews in its own process unless given a running approval service
(``--server URL``): a gateway of its own has no page, so a call the rules
leave to a person could only be refused. `ServiceReviewer` posts each call to
the service's ``POST /v1/review`` instead, where the page asks a person while
the call waits.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from typing import Any, Final

import httpx
import mcp_types as types
import msgspec
from gateway_guard import (
    DEFAULT_TIMEOUT,
    AskPerson,
    Reviewer,
    ask_and_record,
    guarded_outcome,
    guarded_review,
    host_decision,
)
from mcp import Client, StdioServerParameters
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

from gateway import Gateway, GatewayConfig, GatewayError, ToolCall, Verdict

__all__ = ["HOST", "ServiceReviewer", "build_proxy", "serve_stdio", "tool_error"]

HOST: Final = "mcp"
_NOBODY_TO_ASK: Final = " No person could be asked here, so it was not run."


def tool_error(text: str) -> types.CallToolResult:
    """A ``tools/call`` result the client shows as a failed tool call with ``text``."""
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


class ServiceReviewer:
    """
    Reviews each call with a running approval service (``POST URL/v1/review``), where a person can be asked.

    Environment proxies and redirects are not followed (the call and the token
    go only to ``server``). Any answer but a verdict raises, and the proxy
    refuses the call.

    Args:
        server: The service's URL (``http://127.0.0.1:8765``).
        token: Its bearer token (an agent or approver token).
        timeout: Seconds one review may take (a person's wait included).
        transport: An ``httpx`` transport, for tests.
    """

    def __init__(
        self,
        server: str,
        token: str | None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not server.startswith(("http://", "https://")):
            raise ValueError(f"The server {server!r} is not an http:// or https:// URL.")
        self.url = server.rstrip("/") + "/v1/review"
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._timeout = timeout
        self._transport = transport

    async def review(self, call: ToolCall) -> Verdict:
        """The service's verdict for ``call`` (waiting while a person decides)."""
        body: dict[str, Any] = {"tool": call.tool, "input": dict(call.input), "host": call.host}
        if call.call_id is not None:
            body["call_id"] = call.call_id
        async with httpx.AsyncClient(
            trust_env=False,
            follow_redirects=False,
            timeout=self._timeout,
            transport=self._transport,
        ) as client:
            response = await client.post(self.url, json=body, headers=self._headers)
        if response.status_code != 200:
            raise GatewayError(
                f"The approval service answered HTTP {response.status_code}: {response.text[:200]}"
            )
        try:
            return msgspec.json.decode(response.content, type=Verdict)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise GatewayError(
                f"The approval service's answer is not a verdict ({error})."
            ) from None


def build_proxy(
    upstream: Client,
    gateway: Reviewer,
    *,
    name: str = "agent-gateway",
    ask: AskPerson | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Server[Any]:
    """
    An MCP server that offers ``upstream``'s tools and reviews every call before forwarding it.

    Args:
        upstream: A connected client of the server being guarded.
        gateway: The gateway (or any `gateway_guard.Reviewer`).
        name: The proxy's server name.
        ask: Asks a person about calls the approvers leave to a human.
        timeout: Seconds to wait for a verdict (and for the person) before refusing.
    """

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return await upstream.list_tools(cursor=params.cursor if params is not None else None)

    # Request ids start again at every connection (and every restart): the
    # proxy's own random id keeps call ids unique in the audit log.
    proxy_id = uuid.uuid4().hex[:12]

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        request_id = getattr(ctx, "request_id", None)
        call = ToolCall(
            params.name,
            dict(params.arguments or {}),
            call_id=f"mcp-{proxy_id}-{request_id if request_id is not None else uuid.uuid4().hex}",
            host=HOST,
        )
        verdict = await guarded_review(gateway, call, within=timeout)
        decision = host_decision(verdict)
        if decision == "decline":
            return tool_error(verdict.reason)
        if decision == "ask" and not await ask_and_record(
            ask, gateway, call, verdict, within=timeout
        ):
            return tool_error(verdict.reason + (_NOBODY_TO_ASK if ask is None else ""))
        try:
            result = await upstream.call_tool(params.name, params.arguments)
        except Exception as error:
            await guarded_outcome(gateway, call.call_id, "failed", type(error).__name__)
            raise
        failed = bool(getattr(result, "is_error", False))
        await guarded_outcome(gateway, call.call_id, "failed" if failed else "succeeded")
        return result

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(
    command: str,
    args: Sequence[str] = (),
    *,
    config: GatewayConfig | None = None,
    ask: AskPerson | None = None,
    within: float = DEFAULT_TIMEOUT,
    service: ServiceReviewer | None = None,
) -> None:
    """
    Start ``command`` as the upstream MCP server and serve the proxy on standard input and output.

    The upstream server inherits this process's environment; ``within`` is
    the seconds each review may take before the call is refused. Calls are
    reviewed by ``service`` when given (a running approval service), else by
    a gateway started here with ``config``. Returns when the client closes
    the connection.
    """
    upstream_params = StdioServerParameters(command=command, args=list(args), env=dict(os.environ))
    async with Client(upstream_params) as upstream:
        if service is not None:
            await _serve(build_proxy(upstream, service, ask=ask, timeout=within))
            return
        async with Gateway(config) as gateway:
            await _serve(build_proxy(upstream, gateway, ask=ask, timeout=within))


async def _serve(proxy: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await proxy.run(read_stream, write_stream, proxy.create_initialization_options())
