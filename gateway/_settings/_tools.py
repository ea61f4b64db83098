"""
How tools that are not shells touch the world: which fields of their input name what.

Pure data, the one place it lives: a `ToolEffects` row per tool (or glob of
tool names, such as ``mcp__filesystem__*``) says which input fields name
paths it reads or writes, URLs it fetches, queries it sends, the environment,
user and working directory it runs with. The rows for the tools of Claude
Code, Gemini CLI and Codex are built in (`DEFAULT_TOOL_EFFECTS`); the
``[[tool-effects]]`` tables of the configuration come first and may map any
other tool, MCP tools included. A tool no row maps has an ``opaque`` effect:
what it does is not known. A row declares every field of its tool's input:
the fields above, and those that name nothing outside the agent
(``other_fields``: a file's new content, an offset, a regular expression); a
field the row does not declare (``read_file {"path": …}`` where the row
knows ``absolute_path``) may name a path, so it is ``opaque`` too.
`gateway._review._analysis.tool_effects` reads a call with these rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from gateway._calls._effects import WriteAction

__all__ = ["DEFAULT_TOOL_EFFECTS", "ToolEffects", "field_value", "unknown_fields"]


def field_value(data: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path of a tool's input (``action.env``), or ``None`` when it has none."""
    value: Any = data
    for key in path.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def unknown_fields(data: Mapping[str, Any], known: frozenset[str], prefix: str = "") -> list[str]:
    """
    The fields of a tool's input that ``known`` (dotted paths) does not declare, in order.

    A field is declared by its own path, or holds declared fields below it
    (``action`` for ``action.env``): then its own fields are looked at.
    """
    found: list[str] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path in known:
            continue
        if isinstance(value, Mapping) and any(k.startswith(path + ".") for k in known):
            found.extend(unknown_fields(value, known, path + "."))
            continue
        found.append(path)
    return found


class ToolEffects(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    What one tool does, read from the fields of its input (dotted paths: ``action.env``).

    Attributes:
        tool: The tool's name, or a glob of names (``mcp__filesystem__read_*``).
        reads: Fields naming paths it reads (a string, or a list of strings;
            any other value, or item of the list, makes the call ``opaque``:
            a tool may read an object's path too).
        pattern_reads: Fields naming paths it reads, each of which may be a
            glob pattern (``src/**/*.ts``): a pattern reads everything below
            the directory its text fixes (``src``; ``.`` for ``*``). A path
            with any character a glob library reads specially
            (``*?[]{}()!\\``) is a pattern.
        globs: Fields holding a glob whose matches it lists, under the first
            path ``reads`` names (or ``default_path``): ``Glob {"pattern":
            "../../.ssh/*"}`` lists names in ``~/.ssh``.
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
        other_fields: Fields that name nothing outside the agent (content,
            offsets, a regular expression, options of the output). A field
            of the input no list of the row names is not known.
    """

    tool: str
    reads: tuple[str, ...] = ()
    pattern_reads: tuple[str, ...] = ()
    globs: tuple[str, ...] = ()
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
    other_fields: tuple[str, ...] = ()

    def known_fields(self) -> frozenset[str]:
        """Every field the row declares (dotted paths)."""
        return frozenset(
            (
                *self.reads,
                *self.pattern_reads,
                *self.globs,
                *self.writes,
                *self.patches,
                *self.urls,
                *self.url_texts,
                *self.searches,
                *self.environment,
                *self.user,
                *self.cwd,
                *self.other_fields,
            )
        )


DEFAULT_TOOL_EFFECTS: Final = (
    # Claude Code
    ToolEffects(tool="Read", reads=("file_path",), other_fields=("offset", "limit")),
    ToolEffects(tool="Write", writes=("file_path",), other_fields=("content",)),
    ToolEffects(
        tool="Edit",
        reads=("file_path",),
        writes=("file_path",),
        other_fields=("old_string", "new_string", "replace_all"),
    ),
    ToolEffects(
        tool="MultiEdit", reads=("file_path",), writes=("file_path",), other_fields=("edits",)
    ),
    ToolEffects(
        tool="NotebookEdit",
        reads=("notebook_path",),
        writes=("notebook_path",),
        other_fields=("cell_id", "new_source", "cell_type", "edit_mode"),
    ),
    ToolEffects(tool="NotebookRead", reads=("notebook_path",), other_fields=("cell_id",)),
    # A search's glob (ripgrep's `--glob`, Gemini's `include`) only narrows
    # which files under its path are searched, and may whitelist hidden ones
    # (`*` matches `.env` there): it reads what its path holds, all of it.
    ToolEffects(
        tool="Grep",
        reads=("path",),
        recursive=True,
        default_path=".",
        other_fields=(
            "glob",
            "pattern",
            "output_mode",
            "type",
            "head_limit",
            "offset",
            "multiline",
            "-A",
            "-B",
            "-C",
            "-i",
            "-n",
        ),
    ),
    ToolEffects(tool="Glob", reads=("path",), globs=("pattern",), recursive=True, default_path="."),
    ToolEffects(tool="LS", reads=("path",), other_fields=("ignore",)),
    ToolEffects(tool="WebFetch", urls=("url",), other_fields=("prompt",)),
    ToolEffects(
        tool="WebSearch", searches=("query",), other_fields=("allowed_domains", "blocked_domains")
    ),
    ToolEffects(tool="TodoWrite", none=True),
    ToolEffects(tool="ExitPlanMode", none=True),
    ToolEffects(tool="Task", none=True),
    # Gemini CLI
    ToolEffects(
        tool="read_file", reads=("absolute_path", "file_path"), other_fields=("offset", "limit")
    ),
    ToolEffects(
        tool="read_many_files",
        pattern_reads=("paths", "include"),
        recursive=True,
        other_fields=("exclude", "recursive", "useDefaultExcludes", "file_filtering_options"),
    ),
    ToolEffects(tool="write_file", writes=("file_path",), other_fields=("content",)),
    ToolEffects(
        tool="replace",
        reads=("file_path",),
        writes=("file_path",),
        other_fields=("old_string", "new_string", "expected_replacements", "instruction"),
    ),
    ToolEffects(
        tool="list_directory",
        reads=("path", "dir_path"),
        other_fields=("ignore", "file_filtering_options"),
    ),
    ToolEffects(
        tool="glob",
        reads=("path", "dir_path"),
        globs=("pattern",),
        recursive=True,
        default_path=".",
        other_fields=("case_sensitive", "respect_git_ignore", "respect_gemini_ignore"),
    ),
    ToolEffects(
        tool="search_file_content",
        reads=("path", "dir_path"),
        recursive=True,
        default_path=".",
        other_fields=("include", "pattern"),
    ),
    ToolEffects(tool="web_fetch", url_texts=("prompt",)),
    ToolEffects(tool="google_web_search", searches=("query",)),
    ToolEffects(tool="save_memory", fixed_writes=("~/.gemini/GEMINI.md",), other_fields=("fact",)),
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
        other_fields=("action.type", "action.command", "action.timeout_ms"),
    ),
)
"""The built-in rows, consulted after the ``[[tool-effects]]`` of the configuration."""
