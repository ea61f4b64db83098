"""
How tools that are not shells touch the world: which fields of their input name what.

Pure data, the one place it lives: a `ToolEffects` row per tool (or glob of
tool names, such as ``mcp__filesystem__*``) says which input fields name
paths it reads or writes, URLs it fetches, queries it sends, the environment,
user and working directory it runs with. The rows for the tools of Claude
Code, Gemini CLI and Codex are built in (`DEFAULT_TOOL_EFFECTS`); the
``[[tool-effects]]`` tables of the configuration come first and may map any
other tool, MCP tools included. A tool no row maps has an ``opaque`` effect:
what it does is not known. `gateway._analysis.tool_effects` reads a call with
these rows.
"""

from __future__ import annotations

from typing import Final

import msgspec

from gateway._effects import WriteAction

__all__ = ["DEFAULT_TOOL_EFFECTS", "ToolEffects"]


class ToolEffects(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    What one tool does, read from the fields of its input (dotted paths: ``action.env``).

    Attributes:
        tool: The tool's name, or a glob of names (``mcp__filesystem__read_*``).
        reads: Fields naming paths it reads (a string, or a list of strings).
        writes: Fields naming paths it writes.
        write_action: What it does to the paths it writes.
        recursive: Its reads reach everything below the paths (a search, a listing).
        default_path: The path it reads when none of ``reads`` is given
            (``.``: the working directory).
        fixed_writes: Paths it always writes (``~/.gemini/GEMINI.md``).
        patches: Fields holding a patch in the ``apply_patch`` format: it adds,
            changes, deletes and moves the files the patch names.
        urls: Fields holding a URL it fetches.
        url_texts: Fields holding text whose URLs it fetches (a prompt).
        searches: Fields holding a query it sends to a public search service.
        environment: Fields holding the environment it runs with (``{"NAME": "value"}``).
        user: Fields naming the user it runs as.
        cwd: Fields naming its working directory (the paths above resolve there).
        none: The tool does nothing outside the agent (a to-do list, a plan).
    """

    tool: str
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    write_action: WriteAction = "write"
    recursive: bool = False
    default_path: str | None = None
    fixed_writes: tuple[str, ...] = ()
    patches: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    url_texts: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    environment: tuple[str, ...] = ()
    user: tuple[str, ...] = ()
    cwd: tuple[str, ...] = ()
    none: bool = False


DEFAULT_TOOL_EFFECTS: Final = (
    # Claude Code
    ToolEffects(tool="Read", reads=("file_path",)),
    ToolEffects(tool="Write", writes=("file_path",)),
    ToolEffects(tool="Edit", reads=("file_path",), writes=("file_path",)),
    ToolEffects(tool="MultiEdit", reads=("file_path",), writes=("file_path",)),
    ToolEffects(tool="NotebookEdit", reads=("notebook_path",), writes=("notebook_path",)),
    ToolEffects(tool="NotebookRead", reads=("notebook_path",)),
    ToolEffects(tool="Grep", reads=("path", "glob"), recursive=True, default_path="."),
    ToolEffects(tool="Glob", reads=("path",), recursive=True, default_path="."),
    ToolEffects(tool="LS", reads=("path",)),
    ToolEffects(tool="WebFetch", urls=("url",)),
    ToolEffects(tool="WebSearch", searches=("query",)),
    ToolEffects(tool="TodoWrite", none=True),
    ToolEffects(tool="ExitPlanMode", none=True),
    ToolEffects(tool="Task", none=True),
    # Gemini CLI
    ToolEffects(tool="read_file", reads=("absolute_path", "file_path")),
    ToolEffects(tool="read_many_files", reads=("paths", "include"), recursive=True),
    ToolEffects(tool="write_file", writes=("file_path",)),
    ToolEffects(tool="replace", reads=("file_path",), writes=("file_path",)),
    ToolEffects(tool="list_directory", reads=("path", "dir_path")),
    ToolEffects(tool="glob", reads=("path", "dir_path"), recursive=True, default_path="."),
    ToolEffects(
        tool="search_file_content",
        reads=("path", "dir_path", "include"),
        recursive=True,
        default_path=".",
    ),
    ToolEffects(tool="web_fetch", url_texts=("prompt",)),
    ToolEffects(tool="google_web_search", searches=("query",)),
    ToolEffects(tool="save_memory", fixed_writes=("~/.gemini/GEMINI.md",)),
    # Codex
    # Codex's hooks see the patch as `command`; its function tool and the
    # OpenAI Agents SDK adapter as `input`.
    ToolEffects(tool="apply_patch", patches=("command", "input", "patch")),
    ToolEffects(tool="view_image", reads=("path",)),
    ToolEffects(tool="update_plan", none=True),
    ToolEffects(
        tool="local_shell",
        environment=("action.env",),
        user=("action.user",),
        cwd=("action.working_directory",),
    ),
)
"""The built-in rows, consulted after the ``[[tool-effects]]`` of the configuration."""
