"""
A small MCP server with one ``shell`` tool that records what it was asked to run.

Used in-process by the proxy tests (`upstream_server`) and, run as a script,
as the upstream a real ``python -m gateway_mcp`` subprocess starts over stdio
(it then appends each command it "runs" to the file named by its argument).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

SHELL = types.Tool(
    name="shell",
    description="Run a shell command.",
    input_schema={
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    },
)


def upstream_server(ran: list[str], log: Path | None = None) -> Server[Any]:
    """The upstream server; every command it would run is appended to ``ran`` (and ``log``)."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[SHELL])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        command = str((params.arguments or {}).get("command"))
        ran.append(command)
        if log is not None:
            with log.open("a") as file:
                file.write(command + "\n")
        return types.CallToolResult(content=[types.TextContent(text=f"ran {command}")])

    return Server("upstream", on_list_tools=list_tools, on_call_tool=call_tool)


async def _main(log: Path) -> None:
    server = upstream_server([], log)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_main, Path(sys.argv[1]))
