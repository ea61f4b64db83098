"""
git's subcommands as data: their option rows, what they read and write, and the code they may run.

Each `GitCommand` says, for one subcommand (``status``, ``remote add``…):
its option row (`gateway._programs._rows`, from `gateway._programs._git_options`,
with the effects of the options that write, read or run something), what it
reads (the work tree, the history, names only), what it writes in the
repository (``.git/index``, ``.git/refs``…, spelled as if the git
directory were ``.git``) and in the work tree, whether it talks to a remote,
and which **configured code** it may run: `GIT_CODE_KEYS` patterns of
`gateway._programs._gitconfig` (a pager, ``core.fsmonitor``, textconv and
external diff drivers, filters…) and hooks. That last column is the trust
model's: a repository whose configuration sets none of them for a
subcommand cannot make that subcommand run code (docs/git-trust.md).

The code columns were measured, not guessed: tests/programs/test_git_trust.py
runs each read-only subcommand in a repository that configures every code
key and hook as a marker, and holds each row to the markers that ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Literal, NamedTuple

from gateway._programs._git_options import (
    DIFF,
    DIFF_MERGES,
    LOG,
    REV_LIST,
    REVISIONS,
    SUBCOMMANDS,
    negations,
)
from gateway._programs._rows import (
    NETWORK,
    READ,
    RUN_PROGRAM,
    RUN_SHELL,
    WRITE,
    Effect,
    Option,
    ProgramRow,
    option_table,
)

__all__ = ["COMMANDS", "LOG_ROW", "Forms", "GitCommand", "Reads"]

# ───────────────────────── configured code, by what runs it ─────────────────────────

PAGER: Final = ("core.pager", "pager.*")
FSMONITOR: Final = ("core.fsmonitor",)
FILTERS: Final = ("filter.*.clean", "filter.*.smudge", "filter.*.process")
TEXTCONV: Final = ("diff.*.textconv",)
EXTERNAL_DIFF: Final = ("diff.external", "diff.*.command")
SIGNING: Final = ("gpg.program", "gpg.*.program")
SIGNING_KEYS: Final = (*SIGNING, "gpg.ssh.defaultkeycommand")
EDITOR: Final = ("core.editor", "sequence.editor")
MERGE_DRIVERS: Final = ("merge.*.driver",)
TRANSPORT: Final = (
    "core.sshcommand",
    "core.gitproxy",
    "core.askpass",
    "credential.helper",
    "credential.*.helper",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "protocol.allow",
    "protocol.*.allow",
    "url.*.insteadof",
    "url.*.pushinsteadof",
    "core.alternaterefscommand",
)
HOOKS_FROM: Final = ("core.hookspath", "hook.*.command")
"""Where hooks come from; stated with any hook a subcommand may run."""
ARCHIVE_FILTERS: Final = ("tar.*.command",)
HELP: Final = (
    "man.viewer",
    "man.*.cmd",
    "man.*.path",
    "help.browser",
    "web.browser",
    "browser.*.cmd",
    "browser.*.path",
)
INTERACTIVE: Final = ("interactive.difffilter",)
TRAILERS: Final = ("trailer.*.cmd", "trailer.*.command")
TOOLS: Final = (
    "diff.tool",
    "diff.guitool",
    "merge.tool",
    "merge.guitool",
    "difftool.*.cmd",
    "difftool.*.path",
    "mergetool.*.cmd",
    "mergetool.*.path",
)

COMMIT_HOOKS: Final = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-rewrite",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
)
INDEX_HOOKS: Final = ("post-index-change",)
REF_HOOKS: Final = ("reference-transaction",)
CHECKOUT_HOOKS: Final = ("post-checkout", "reference-transaction", "post-index-change")
MERGE_HOOKS: Final = (
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-merge",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
)

# ───────────────────────── what git directory files a subcommand writes ─────────────────────────

INDEX: Final = ".git/index"
REFS: Final = ".git/refs"
OBJECTS: Final = ".git/objects"
CONFIG: Final = ".git/config"

Reads = Literal["work_tree", "history", "names", "none"]
"""
What a subcommand's operands and defaults read.

``work_tree``: file contents of the work tree (``status``, ``diff``,
``grep``): each pathspec operand, or the whole work tree without one.
``history``: contents from the repository's history (``log -p``, ``show
REV:PATH``): each operand that can name a path. ``names``: names and modes
only (``ls-files``, ``ls-tree``). ``none``: nothing beyond the repository.
"""

Forms = Literal[
    "branch", "tag", "config", "remote", "stash", "worktree", "reflog", "notes", "symbolic-ref",
    "apply", "clean", "format-patch", "grep", "help", "clone", "init", "bisect", "submodule",
    "maintenance", "fsck", "interpret-trailers", "var", "cat-file", "none",
]  # fmt: skip
"""Subcommands whose writes depend on their options and operands; `gateway._programs._git` reads each."""


class GitCommand(NamedTuple):
    """
    One git subcommand: how it reads its words, and what it does.

    Attributes:
        row: Its options and operands (`gateway._programs._rows.ProgramRow`).
        code: `GIT_CODE_KEYS` patterns of configured code it may run (the pager
            is added for every subcommand, unless ``--no-pager``).
        hooks: The hooks it may run, by name (``pre-commit``).
        writes: Files of the git directory it writes, spelled under ``.git/``.
        work_tree: It writes files of the work tree.
        network: It talks to a remote (fetch, push, clone…).
        reads: What its operands read (`Reads`).
        option_code: Canonical option → further configured code it makes run
            (``--ext-diff``: ``diff.external``).
        quiet_hooks: Options that keep it from running some hooks (``--no-verify``).
        form: The reading its writes need (`Forms`), or ``none``.
        pager: It may page its output (every subcommand but a few).
    """

    row: ProgramRow
    code: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    work_tree: bool = False
    network: bool = False
    reads: Reads = "none"
    option_code: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    quiet_hooks: Mapping[str, tuple[str, ...]] = MappingProxyType({})
    form: Forms = "none"
    pager: bool = True


OUTPUT: Final = Effect(kind="write", action="write")
"""``--output=FILE``: the diff goes to FILE instead of standard output."""
DIFF_EFFECTS: Final = MappingProxyType({"--output": OUTPUT, "-O": READ})
"""The diff options' own effects: every row that spells them has them (`_row`), wherever it
takes the diff options (``stash show``, ``range-diff``, ``format-patch``…)."""


def _canonical(spec: str) -> str:
    words = [word for word in spec.split() if word.startswith("-")]
    return next((word for word in words if word.startswith("--")), words[0])


def _row(
    *groups: Iterable[str],
    effects: Mapping[str, Effect] = MappingProxyType({}),
    numeric: str | None = None,
    unknown_is_operand: bool = False,
    abbreviations: bool = True,
) -> ProgramRow:
    """
    A row from spelling groups: each spelling once (the first group that spells it wins), plus negations.

    ``effects`` gives an option (by canonical spelling) its effect, over the
    diff options' own (`DIFF_EFFECTS`); ``numeric``
    names the option a ``-NUM`` word spells. The revision and diff options
    of ``log``, ``diff`` and their kin accept no abbreviations (git reads
    them by hand, not with parse-options): their rows say so.
    """
    specs: list[str] = []
    seen: set[str] = set()
    for group in groups:
        for spec in group:
            if spec == "NUM":
                continue
            spellings = [word for word in spec.split() if word.startswith("-")]
            fresh = [word for word in spellings if word not in seen]
            if not fresh:
                continue
            if len(fresh) != len(spellings):
                marks = " ".join(word for word in spec.split() if not word.startswith("-"))
                spec = " ".join([*fresh, marks]).strip()
            seen.update(fresh)
            specs.append(spec)
    specs.extend(negation for negation in negations(specs) if negation not in seen)
    effects = {**DIFF_EFFECTS, **effects}
    table = option_table(*[(spec, effects.get(_canonical(spec))) for spec in specs])
    numeric_option: Option | None = None
    if numeric is not None:
        numeric_option = next(option for option in table.values() if option.name == numeric)
    return ProgramRow(
        options=table,
        numeric=numeric_option,
        unknown_is_operand=unknown_is_operand,
        abbreviations=abbreviations,
    )


def _own(name: str) -> tuple[str, ...]:
    return SUBCOMMANDS[name]


DIFF_CODE: Final = MappingProxyType(
    {"--ext-diff": EXTERNAL_DIFF, "--textconv": TEXTCONV, "--show-signature": SIGNING}
)
LOG_CODE: Final = MappingProxyType(
    {**DIFF_CODE, "--alternate-refs": ("core.alternaterefscommand",)}
)
PUSH_PROGRAMS: Final = MappingProxyType(
    {"--receive-pack": RUN_SHELL, "--exec": RUN_SHELL, "--upload-pack": RUN_SHELL}
)

LOG_ROW: Final = _row(
    LOG,
    _own("whatchanged"),
    REVISIONS,
    DIFF_MERGES,
    DIFF,
    numeric="--max-count",
)
_DIFF_ROW: Final = _row(
    (
        "--cached --staged",
        "--merge-base",
        "--no-index",
        "-0",
        "-1 --base",
        "-2 --ours",
        "-3 --theirs",
    ),
    DIFF,
    abbreviations=False,
)
_PLUMBING_DIFF: Final = _row(
    (
        "--stdin",
        "-r",
        "--root",
        "-v",
        "--no-commit-id",
        "--always",
        "--cached",
        "-q",
        "--merge-base",
    ),
    ("--pretty [=]", "--format (=)", "--encoding =", "--notes [=]", "--no-notes"),
    DIFF_MERGES,
    DIFF,
    ("-0", "-1 --base", "-2 --ours", "-3 --theirs"),
    abbreviations=False,
)

_LOG: Final = GitCommand(
    row=LOG_ROW,
    # An external diff gets its files smudged first (`git show` uses one unasked).
    code=(*TEXTCONV, *EXTERNAL_DIFF, *FILTERS, *SIGNING),
    reads="history",
    option_code=LOG_CODE,
)
_DIFF: Final = GitCommand(
    row=_DIFF_ROW,
    code=(*FSMONITOR, *FILTERS, *TEXTCONV, *EXTERNAL_DIFF),
    hooks=INDEX_HOOKS,
    reads="work_tree",
    option_code=DIFF_CODE,
)


def _writer(
    name: str,
    *,
    effects: Mapping[str, Effect] = MappingProxyType({}),
    extra: Iterable[str] = (),
    numeric: str | None = None,
    **fields: object,
) -> GitCommand:
    """A subcommand from its own ``-h`` list (and ``extra`` groups it also reads)."""
    row = _row(_own(name), extra, effects=effects, numeric=numeric)
    return GitCommand(row=row, **fields)  # type: ignore[arg-type]  # the GitCommand fields, by name


COMMANDS: Final[Mapping[str, GitCommand]] = MappingProxyType(
    {
        # ── reading the work tree, the index and the history ──
        "status": _writer(
            "status", code=(*FSMONITOR, *FILTERS), hooks=INDEX_HOOKS, reads="work_tree"
        ),
        "diff": _DIFF,
        "diff-files": GitCommand(
            row=_PLUMBING_DIFF,
            code=(*FSMONITOR, *FILTERS, *TEXTCONV, *EXTERNAL_DIFF),
            reads="work_tree",
            option_code=DIFF_CODE,
        ),
        "diff-index": GitCommand(
            row=_PLUMBING_DIFF,
            code=(*FSMONITOR, *FILTERS, *TEXTCONV, *EXTERNAL_DIFF),
            reads="work_tree",
            option_code=DIFF_CODE,
        ),
        "diff-tree": GitCommand(
            row=_PLUMBING_DIFF,
            code=(*FSMONITOR, *FILTERS, *TEXTCONV, *EXTERNAL_DIFF),
            reads="history",
            option_code=DIFF_CODE,
        ),
        "log": _LOG,
        "whatchanged": _LOG,
        "show": _LOG,
        "rev-list": GitCommand(
            row=_row(REVISIONS, REV_LIST, numeric="--max-count"), option_code=LOG_CODE
        ),
        "shortlog": GitCommand(
            row=_row(_own("shortlog"), REVISIONS, numeric="--max-count"), option_code=LOG_CODE
        ),
        "range-diff": GitCommand(
            row=_row(_own("range-diff"), DIFF, REVISIONS),
            code=TEXTCONV,
            reads="history",
            option_code=DIFF_CODE,
        ),
        "format-patch": _writer(
            "format-patch",
            extra=(*REVISIONS, *DIFF),
            numeric="--max-count",
            effects={
                "--output-directory": Effect(kind="write", action="create", prefix=True),
                "--signature-file": READ,
            },
            reads="history",
            option_code=DIFF_CODE,
            form="format-patch",
        ),
        "blame": _writer(
            "blame",
            effects={"--contents": READ, "-S": READ, "--ignore-revs-file": READ},
            code=(*FSMONITOR, *FILTERS, *TEXTCONV),
            reads="work_tree",
        ),
        "annotate": _writer(
            "blame",
            effects={"--contents": READ, "-S": READ, "--ignore-revs-file": READ},
            code=(*FSMONITOR, *FILTERS, *TEXTCONV),
            reads="work_tree",
        ),
        "grep": _writer(
            "grep",
            effects={"-f": READ, "--open-files-in-pager": RUN_SHELL},
            code=(*FSMONITOR, *FILTERS, *TEXTCONV),
            hooks=INDEX_HOOKS,
            reads="work_tree",
            option_code={"--open-files-in-pager": PAGER},
            form="grep",
        ),
        "ls-files": _writer(
            "ls-files",
            effects={"--exclude-from": READ},
            code=(*FSMONITOR, *FILTERS),
            hooks=INDEX_HOOKS,
            reads="names",
        ),
        "ls-tree": _writer("ls-tree", reads="names"),
        "cat-file": _writer(
            "cat-file",
            reads="history",
            option_code={"--textconv": TEXTCONV, "--filters": FILTERS},
            form="cat-file",
        ),
        "describe": _writer("describe", code=(*FSMONITOR, *FILTERS), hooks=INDEX_HOOKS),
        "rev-parse": GitCommand(row=_row((), unknown_is_operand=True)),
        "merge-base": _writer("merge-base"),
        "name-rev": _writer("name-rev"),
        "show-ref": _writer("show-ref"),
        "for-each-ref": _writer("for-each-ref"),
        "show-branch": _writer("show-branch"),
        "cherry": _writer("cherry"),
        "check-ignore": _writer("check-ignore", code=FSMONITOR, reads="names"),
        "check-attr": _writer("check-attr", code=FSMONITOR, reads="names"),
        "check-mailmap": _writer("check-mailmap"),
        "check-ref-format": GitCommand(
            row=_row(
                (
                    "--normalize",
                    "--allow-onelevel",
                    "--no-allow-onelevel",
                    "--refspec-pattern",
                    "--branch",
                )
            ),
            pager=False,
        ),
        "count-objects": _writer("count-objects"),
        "verify-commit": _writer("verify-commit", code=SIGNING),
        "verify-tag": _writer("verify-tag", code=SIGNING),
        "verify-pack": _writer("verify-pack"),
        "show-index": _writer("show-index"),
        "var": GitCommand(row=_row(("-l",)), form="var"),
        "version": _writer("version", pager=False),
        "help": _writer("help", code=HELP, form="help", pager=False),
        "column": _writer("column", pager=False),
        "stripspace": _writer("stripspace", pager=False),
        "fast-export": _writer(
            "fast-export",
            extra=REVISIONS,
            effects={
                "--export-marks": WRITE,
                "--import-marks": READ,
                "--import-marks-if-exists": READ,
            },
            reads="history",
        ),
        "merge-tree": _writer("merge-tree", code=MERGE_DRIVERS, reads="history"),
        # ── forms that read in one spelling and write in another ──
        "branch": _writer(
            "branch", hooks=REF_HOOKS, form="branch", option_code={"--edit-description": EDITOR}
        ),
        "tag": _writer(
            "tag",
            effects={"--file": READ},
            hooks=REF_HOOKS,
            form="tag",
            option_code={
                "--sign": SIGNING_KEYS,
                "--local-user": SIGNING_KEYS,
                "--verify": SIGNING,
                "--annotate": EDITOR,
                "--edit": EDITOR,
            },
        ),
        "config": _writer(
            "config", effects={"--file": READ}, form="config", option_code={"--edit": EDITOR}
        ),
        "remote": GitCommand(row=_row(("-v --verbose",)), form="remote"),
        "stash": GitCommand(row=_row(_own("stash push")), form="stash"),
        "worktree": GitCommand(row=_row(_own("worktree list")), form="worktree"),
        "reflog": GitCommand(
            row=LOG_ROW, form="reflog", code=(*TEXTCONV, *SIGNING), option_code=LOG_CODE
        ),
        "notes": GitCommand(row=_row(_own("notes")), form="notes"),
        "symbolic-ref": _writer("symbolic-ref", form="symbolic-ref", hooks=REF_HOOKS),
        # ── writing the repository ──
        "add": _writer(
            "add",
            effects={"--pathspec-from-file": READ},
            code=(*FSMONITOR, *FILTERS),
            hooks=INDEX_HOOKS,
            writes=(INDEX, OBJECTS),
            reads="work_tree",
            option_code={"--patch": INTERACTIVE, "--interactive": INTERACTIVE, "--edit": EDITOR},
        ),
        "commit": _writer(
            "commit",
            effects={"--file": READ, "--template": READ, "--pathspec-from-file": READ},
            code=(*FSMONITOR, *FILTERS, *EDITOR, *TRAILERS, *SIGNING_KEYS),
            hooks=COMMIT_HOOKS,
            writes=(INDEX, OBJECTS, REFS),
            reads="work_tree",
            option_code={"--patch": INTERACTIVE, "--interactive": INTERACTIVE},
            quiet_hooks={"--no-verify": ("pre-commit", "commit-msg")},
        ),
        "checkout": _writer(
            "checkout",
            effects={"--pathspec-from-file": READ},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS),
            hooks=CHECKOUT_HOOKS,
            writes=(INDEX, REFS),
            work_tree=True,
            option_code={"--patch": INTERACTIVE},
        ),
        "switch": _writer(
            "switch",
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS),
            hooks=CHECKOUT_HOOKS,
            writes=(INDEX, REFS),
            work_tree=True,
        ),
        "restore": _writer(
            "restore",
            effects={"--pathspec-from-file": READ},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS),
            hooks=INDEX_HOOKS,
            writes=(INDEX,),
            work_tree=True,
            option_code={"--patch": INTERACTIVE},
        ),
        "reset": _writer(
            "reset",
            effects={"--pathspec-from-file": READ},
            code=(*FSMONITOR, *FILTERS),
            hooks=(*INDEX_HOOKS, *REF_HOOKS),
            writes=(INDEX, REFS),
            work_tree=True,
            option_code={"--patch": INTERACTIVE},
        ),
        "rm": _writer(
            "rm",
            effects={"--pathspec-from-file": READ},
            code=FSMONITOR,
            hooks=INDEX_HOOKS,
            writes=(INDEX,),
            work_tree=True,
        ),
        "mv": _writer("mv", code=FSMONITOR, hooks=INDEX_HOOKS, writes=(INDEX,), work_tree=True),
        "merge": _writer(
            "merge",
            effects={"--file": READ, "--strategy": RUN_PROGRAM},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=MERGE_HOOKS,
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
            quiet_hooks={"--no-verify": ("pre-merge-commit", "commit-msg")},
        ),
        "rebase": _writer(
            "rebase",
            effects={"--exec": RUN_SHELL, "--strategy": RUN_PROGRAM},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=("pre-rebase", "post-rewrite", *CHECKOUT_HOOKS, *COMMIT_HOOKS),
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
        ),
        "cherry-pick": _writer(
            "cherry-pick",
            effects={"--strategy": RUN_PROGRAM},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=COMMIT_HOOKS,
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
        ),
        "revert": _writer(
            "revert",
            effects={"--strategy": RUN_PROGRAM},
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=COMMIT_HOOKS,
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
        ),
        "am": _writer(
            "am",
            code=(*FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=("applypatch-msg", "pre-applypatch", "post-applypatch", *COMMIT_HOOKS),
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
            reads="work_tree",
        ),
        "apply": _writer(
            "apply",
            effects={"--build-fake-ancestor": WRITE},
            code=(*FSMONITOR, *FILTERS),
            hooks=INDEX_HOOKS,
            form="apply",
        ),
        "clean": _writer("clean", code=FSMONITOR, form="clean"),
        "gc": _writer("gc", hooks=("pre-auto-gc",), writes=(OBJECTS, REFS)),
        "prune": _writer("prune", writes=(OBJECTS,)),
        "repack": _writer("repack", writes=(OBJECTS,)),
        "pack-refs": _writer("pack-refs", writes=(REFS,)),
        "fsck": _writer("fsck", form="fsck"),
        "maintenance": GitCommand(
            row=_row(_own("maintenance run"), ("--schedule =", "--scheduler =")),
            writes=(OBJECTS, REFS),
            form="maintenance",
        ),
        "hash-object": _writer("hash-object", code=FILTERS, writes=(OBJECTS,), reads="work_tree"),
        "update-ref": _writer("update-ref", hooks=REF_HOOKS, writes=(REFS,)),
        "update-index": _writer(
            "update-index",
            code=(*FSMONITOR, *FILTERS),
            hooks=INDEX_HOOKS,
            writes=(INDEX, OBJECTS),
            reads="work_tree",
        ),
        "read-tree": _writer(
            "read-tree", code=FILTERS, hooks=INDEX_HOOKS, writes=(INDEX,), work_tree=True
        ),
        "write-tree": _writer("write-tree", writes=(OBJECTS,)),
        "commit-tree": _writer(
            "commit-tree", effects={"-F": READ}, code=SIGNING_KEYS, writes=(OBJECTS,)
        ),
        "mktree": _writer("mktree", writes=(OBJECTS,)),
        "checkout-index": _writer("checkout-index", code=FILTERS, work_tree=True),
        "merge-file": _writer("merge-file", work_tree=True, reads="work_tree"),
        "replace": _writer("replace", code=EDITOR, hooks=REF_HOOKS, writes=(REFS, OBJECTS)),
        "interpret-trailers": _writer(
            "interpret-trailers", code=TRAILERS, reads="work_tree", form="interpret-trailers"
        ),
        "difftool": _writer(
            "difftool",
            effects={"--extcmd": RUN_SHELL},
            code=(*TOOLS, *FSMONITOR, *FILTERS),
            reads="work_tree",
        ),
        "sparse-checkout": GitCommand(
            row=_row(_own("sparse-checkout set"), ("--no-cone",)),
            code=FILTERS,
            writes=(INDEX, CONFIG),
            work_tree=True,
        ),
        "bundle": GitCommand(
            row=_row(_own("bundle create")), form="none", writes=(), reads="history"
        ),
        "init": _writer(
            "init",
            effects={
                "--template": READ,
                "--separate-git-dir": Effect(kind="write", action="directory"),
            },
            form="init",
            pager=False,
        ),
        "bisect": GitCommand(
            row=_row((), unknown_is_operand=True),
            form="bisect",
            code=(*FSMONITOR, *FILTERS),
            hooks=CHECKOUT_HOOKS,
            writes=(REFS,),
            work_tree=True,
        ),
        "submodule": GitCommand(row=_row((), unknown_is_operand=True), form="submodule"),
        # ── talking to remotes ──
        "fetch": _writer(
            "fetch",
            effects={"--upload-pack": RUN_SHELL},
            code=TRANSPORT,
            hooks=("reference-transaction", "pre-auto-gc"),
            writes=(OBJECTS, REFS),
            network=True,
        ),
        "pull": _writer(
            "pull",
            effects={"--upload-pack": RUN_SHELL, "--strategy": RUN_PROGRAM},
            code=(*TRANSPORT, *FSMONITOR, *FILTERS, *MERGE_DRIVERS, *EDITOR, *SIGNING_KEYS),
            hooks=(*MERGE_HOOKS, *CHECKOUT_HOOKS, "pre-rebase", "post-rewrite"),
            writes=(INDEX, OBJECTS, REFS),
            work_tree=True,
            network=True,
        ),
        "push": _writer(
            "push",
            effects=PUSH_PROGRAMS,
            code=TRANSPORT,
            hooks=("pre-push", "reference-transaction"),
            writes=(REFS,),
            network=True,
            quiet_hooks={"--no-verify": ("pre-push",)},
        ),
        "ls-remote": _writer(
            "ls-remote", effects={"--upload-pack": RUN_SHELL}, code=TRANSPORT, network=True
        ),
        "clone": _writer(
            "clone",
            effects={
                "--upload-pack": RUN_SHELL,
                "--config": Effect(kind="bind"),
                "--template": READ,
                "--reference": READ,
                "--reference-if-able": READ,
                "--separate-git-dir": Effect(kind="write", action="directory"),
            },
            code=(*TRANSPORT, *FILTERS, "init.templatedir"),
            hooks=("post-checkout", "reference-transaction"),
            network=True,
            form="clone",
        ),
        "archive": _writer(
            "archive",
            effects={
                "--output": WRITE,
                "--add-file": READ,
                "--exec": RUN_SHELL,
                "--remote": NETWORK,
            },
            code=(*ARCHIVE_FILTERS, *FILTERS),
            reads="history",
            option_code={"--remote": TRANSPORT},
        ),
        "request-pull": GitCommand(
            row=_row(("-p",)), code=TRANSPORT, network=True, reads="history"
        ),
    }
)
"""Subcommand name → what it is, for every subcommand the reader knows."""
