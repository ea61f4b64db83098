"""
The options of git's subcommands, as spelling strings in the option-table notation.

Data only: `gateway._programs._git_commands` turns them into rows (with the
effects of the few options that write, read or run something) and
`gateway._programs._git` reads command lines with them.

Where the options come from: each parse-options subcommand's own list
(``git SUBCOMMAND -h``, git 2.39), and for the revision and diff options of
``log``, ``show``, ``diff``, ``rev-list`` and their kin (which ``-h`` does
not list) git's manual pages, cross-checked against the parse-options list
of ``git range-diff -h``, which carries every diff option; an option these
commands take only fused (``--format=``) is declared so, since they do not
read its value from the next word. ``format-patch --interdiff`` and
``--range-diff`` are left out: git reads their value as more options. Spellings follow
`gateway._programs._rows.option_table`: ``=`` after the spellings takes a
value (fused or in the next word), ``[=]`` only a fused one. parse-options
also accepts ``--no-NAME`` for a long option; `negations` adds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["DIFF", "DIFF_MERGES", "LOG", "REVISIONS", "REV_LIST", "SUBCOMMANDS", "negations"]

# fmt: off
DIFF: Final = (
    "-p --patch", "-s --no-patch", "-u", "-U --unified [=]", "-W --function-context", "--raw",
    "--patch-with-raw", "--patch-with-stat", "--numstat", "--shortstat", "-X --dirstat [=]",
    "--cumulative", "--dirstat-by-file [=]", "--check", "--summary", "--name-only",
    "--name-status", "--stat [=]", "--stat-width =", "--stat-name-width =",
    "--stat-graph-width =", "--stat-count =", "--compact-summary", "--binary", "--full-index",
    "--color [=]", "--ws-error-highlight =", "-z", "--abbrev [=]", "--src-prefix =",
    "--dst-prefix =", "--line-prefix =", "--no-prefix", "--default-prefix",
    "--inter-hunk-context =", "--output-indicator-new =", "--output-indicator-old =",
    "--output-indicator-context =", "-B --break-rewrites [=]", "-M --find-renames [=]",
    "-D --irreversible-delete", "-C --find-copies [=]", "--find-copies-harder", "--no-renames",
    "--rename-empty", "--follow", "-l =", "--minimal", "-w --ignore-all-space",
    "-b --ignore-space-change", "--ignore-space-at-eol", "--ignore-cr-at-eol",
    "--ignore-blank-lines", "-I --ignore-matching-lines =", "--indent-heuristic", "--patience",
    "--histogram", "--diff-algorithm =", "--anchored =", "--word-diff [=]", "--word-diff-regex =",
    "--color-words [=]", "--color-moved [=]", "--color-moved-ws =", "--relative [=]",
    "-a --text", "-R", "--exit-code", "--quiet", "--ext-diff", "--textconv",
    "--ignore-submodules [=]", "--submodule [=]", "--ita-invisible-in-index",
    "--ita-visible-in-index", "-S =", "-G =", "--pickaxe-all", "--pickaxe-regex", "-O =",
    "--rotate-to =", "--skip-to =", "--find-object =", "--diff-filter [=]", "--output =",
)
"""The diff options (``git diff``, ``log -p``, ``show``, ``format-patch``, ``range-diff``…)."""

DIFF_MERGES: Final = (
    "--diff-merges =", "--no-diff-merges", "--combined-all-paths", "-c", "--cc", "-m",
    "--remerge-diff", "-t",
)
"""How ``log`` and ``show`` diff merges."""

REVISIONS: Final = (
    "-n --max-count =", "--skip =", "--since --after =", "--since-as-filter =",
    "--until --before =", "--max-age =", "--min-age =", "--author =", "--committer =",
    "--grep-reflog =", "--grep =", "--all-match", "--invert-grep", "-i --regexp-ignore-case",
    "--basic-regexp", "-E --extended-regexp", "-F --fixed-strings", "-P --perl-regexp",
    "--remove-empty", "--merges", "--no-merges", "--min-parents (=)", "--max-parents (=)",
    "--no-min-parents", "--no-max-parents", "--first-parent", "--exclude-first-parent-only",
    "--not", "--all", "--branches [=]", "--tags [=]", "--remotes [=]", "--glob =",
    "--exclude =", "--exclude-hidden =", "--reflog", "--alternate-refs", "--single-worktree",
    "--ignore-missing", "--bisect", "--stdin", "--cherry-mark", "--cherry-pick", "--left-only",
    "--right-only", "--cherry", "-g --walk-reflogs", "--merge", "--boundary",
    "--simplify-by-decoration", "--show-pulls", "--full-history", "--dense", "--sparse",
    "--simplify-merges", "--ancestry-path [=]", "--date-order", "--author-date-order",
    "--topo-order", "--reverse", "--no-walk [=]", "--do-walk", "--pretty [=]", "--format (=)",
    "--abbrev-commit", "--no-abbrev-commit", "--oneline", "--encoding =", "--expand-tabs [=]",
    "--no-expand-tabs", "--notes [=]", "--no-notes", "--show-notes [=]", "--standard-notes",
    "--no-standard-notes", "--show-signature", "--relative-date", "--date =", "--parents",
    "--children", "--left-right", "--graph", "--show-linear-break [=]", "--no-abbrev",
)
"""The revision options (``git rev-list``, ``log``, ``shortlog``…)."""

REV_LIST: Final = (
    "--count", "--timestamp", "--header", "--objects", "--objects-edge",
    "--objects-edge-aggressive", "--in-commit-order", "--no-object-names", "--object-names",
    "--unpacked", "--filter =", "--no-filter", "--filter-provided-objects",
    "--filter-print-omitted", "--missing =", "--exclude-promisor-objects", "--disk-usage [=]",
    "--use-bitmap-index", "--progress =", "--bisect-vars", "--bisect-all", "--indexed-objects",
)
"""Options only ``git rev-list`` has."""

LOG: Final = (
    "--decorate [=]", "--no-decorate", "--decorate-refs =", "--decorate-refs-exclude =",
    "--clear-decorations", "--source", "--mailmap --use-mailmap", "--no-mailmap --no-use-mailmap",
    "--full-diff", "--log-size", "-L =", "-q", "--no-follow",
)
"""Options ``log`` adds (and ``show``, ``whatchanged``, ``reflog show``, ``stash list``)."""

SUBCOMMANDS: Final[dict[str, tuple[str, ...]]] = {
    "notes": ("--ref =",),
    "range-diff": ("--creation-factor =", "--no-dual-color", "--notes [=]", "--left-only", "--right-only"),
    "status": ("-v --verbose", "-s --short", "-b --branch", "--show-stash", "--ahead-behind", "--porcelain [=]", "--long", "-z --null", "-u --untracked-files [=]", "--ignored [=]", "--ignore-submodules [=]", "--column [=]", "--no-renames", "-M --find-renames [=]"),
    "branch": ("-v --verbose", "-q --quiet", "-t --track [=]", "-u --set-upstream-to =", "--unset-upstream", "--color [=]", "-r --remotes", "--contains =", "--no-contains =", "--abbrev [=]", "-a --all", "-d --delete", "-D", "-m --move", "-M", "-c --copy", "-C", "-l --list", "--show-current", "--create-reflog", "--edit-description", "-f --force", "--merged =", "--no-merged =", "--column [=]", "--sort =", "--points-at =", "-i --ignore-case", "--recurse-submodules", "--format ="),
    "tag": ("-l --list", "-n [=]", "-d --delete", "-v --verify", "-a --annotate", "-m --message =", "-F --file =", "-e --edit", "-s --sign", "--cleanup =", "-u --local-user =", "-f --force", "--create-reflog", "--column [=]", "--contains =", "--no-contains =", "--merged =", "--no-merged =", "--sort =", "--points-at =", "--format =", "--color [=]", "-i --ignore-case"),
    "stash show": ("-u --include-untracked", "--only-untracked"),
    "stash push": ("-k --keep-index", "-S --staged", "-p --patch", "-q --quiet", "-u --include-untracked", "-a --all", "-m --message =", "--pathspec-from-file =", "--pathspec-file-nul"),
    "stash apply": ("-q --quiet", "--index"),
    "stash pop": ("-q --quiet", "--index"),
    "stash drop": ("-q --quiet",),
    "stash store": ("-q --quiet", "-m --message ="),
    "worktree list": ("--porcelain", "-v --verbose", "--expire =", "-z"),
    "worktree add": ("-f --force", "-b =", "-B =", "-d --detach", "--checkout", "--lock", "--reason =", "-q --quiet", "--track", "--guess-remote"),
    "worktree prune": ("-n --dry-run", "-v --verbose", "--expire ="),
    "worktree move": ("-f --force",),
    "worktree lock": ("--reason =",),
    "remote add": ("-f --fetch", "--tags", "-t --track =", "-m --master =", "--mirror [=]"),
    "remote rename": ("--progress",),
    "remote set-head": ("-a --auto", "-d --delete"),
    "remote set-branches": ("--add",),
    "remote get-url": ("--push", "--all"),
    "remote set-url": ("--push", "--add", "--delete"),
    "remote show": ("-n",),
    "remote prune": ("-n --dry-run",),
    "remote update": ("-p --prune",),
    "ls-files": ("-z", "-t", "-v", "-f", "-c --cached", "-d --deleted", "-m --modified", "-o --others", "-i --ignored", "-s --stage", "-k --killed", "--directory", "--eol", "--empty-directory", "-u --unmerged", "--resolve-undo", "-x --exclude =", "-X --exclude-from =", "--exclude-per-directory =", "--exclude-standard", "--full-name", "--recurse-submodules", "--error-unmatch", "--with-tree =", "--abbrev [=]", "--debug", "--deduplicate", "--sparse", "--format ="),
    "ls-tree": ("-d", "-r", "-t", "-z", "-l --long", "--name-only", "--name-status", "--object-only", "--full-name", "--full-tree", "--format =", "--abbrev [=]"),
    "blame": ("--incremental", "-b", "--root", "--show-stats", "--progress", "--score-debug", "-f --show-name", "-n --show-number", "-p --porcelain", "--line-porcelain", "-c", "-t", "-l", "-s", "-e --show-email", "-w", "--ignore-rev =", "--ignore-revs-file =", "--color-lines", "--color-by-age", "--minimal", "-S =", "--contents =", "-C [=]", "-M [=]", "-L =", "--abbrev [=]"),
    "grep": ("--cached", "--no-index", "--untracked", "--exclude-standard", "--recurse-submodules", "-v --invert-match", "-i --ignore-case", "-w --word-regexp", "-a --text", "-I", "--textconv", "-r --recursive", "--max-depth =", "-E --extended-regexp", "-G --basic-regexp", "-F --fixed-strings", "-P --perl-regexp", "-n --line-number", "--column", "-h", "-H", "--full-name", "-l --files-with-matches", "--name-only", "-L --files-without-match", "-z --null", "-o --only-matching", "-c --count", "--color [=]", "--break", "--heading", "-C --context =", "-B --before-context =", "-A --after-context =", "--threads =", "NUM", "-p --show-function", "-W --function-context", "-f =", "-e =", "--and", "--or", "--not", "-q --quiet", "--all-match", "-O --open-files-in-pager [=]", "--ext-grep", "-m --max-count ="),
    "describe": ("--contains", "--debug", "--all", "--tags", "--long", "--first-parent", "--abbrev [=]", "--exact-match", "--candidates =", "--match =", "--exclude =", "--always", "--dirty [=]", "--broken [=]"),
    "cat-file": ("-e", "-p", "-t", "-s", "--allow-unknown-type", "--use-mailmap", "--mailmap", "--batch [=]", "--batch-check [=]", "-z", "--batch-command [=]", "--batch-all-objects", "--buffer", "--follow-symlinks", "--unordered", "--textconv", "--filters", "--path ="),
    "shortlog": ("-c --committer", "-n --numbered", "-s --summary", "-e --email", "-w [=]", "--group ="),
    "for-each-ref": ("-s --shell", "-p --perl", "--python", "--tcl", "--count =", "--format =", "--color [=]", "--sort =", "--points-at =", "--merged =", "--no-merged =", "--contains =", "--no-contains =", "--ignore-case"),
    "config": ("--global", "--system", "--local", "--worktree", "-f --file =", "--blob =", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--replace-all", "--add", "--unset", "--unset-all", "--rename-section", "--remove-section", "-l --list", "--fixed-value", "-e --edit", "--get-color", "--get-colorbool", "-t --type =", "--bool", "--int", "--bool-or-int", "--bool-or-str", "--path", "--expiry-date", "-z --null", "--name-only", "--includes", "--show-origin", "--show-scope", "--default ="),
    "merge-base": ("-a --all", "--octopus", "--independent", "--is-ancestor", "--fork-point"),
    "name-rev": ("--name-only", "--tags", "--refs =", "--exclude =", "--all", "--stdin", "--annotate-stdin", "--undefined", "--always"),
    "show-ref": ("--tags", "--heads", "--verify", "--head", "-d --dereference", "-s --hash [=]", "--abbrev [=]", "-q --quiet", "--exclude-existing [=]"),
    "symbolic-ref": ("-q --quiet", "-d --delete", "--short", "--recurse", "-m ="),
    "check-ignore": ("-q --quiet", "-v --verbose", "--stdin", "-z", "-n --non-matching", "--no-index"),
    "check-attr": ("-a --all", "--cached", "--stdin", "-z"),
    "count-objects": ("-v --verbose", "-H --human-readable"),
    "cherry": ("--abbrev [=]", "-v --verbose"),
    "show-branch": ("-a --all", "-r --remotes", "--color [=]", "--more [=]", "--list", "--no-name", "--current", "--sha1-name", "--merge-base", "--independent", "--topo-order", "--topics", "--sparse", "--date-order", "-g --reflog [=]"),
    "archive": ("--format =", "--prefix =", "--add-file =", "--add-virtual-file =", "-o --output =", "--worktree-attributes", "-v --verbose", "NUM", "-l --list", "--remote =", "--exec ="),
    "format-patch": ("-n --numbered", "-N --no-numbered", "-s --signoff", "--stdout", "--cover-letter", "--numbered-files", "--suffix =", "--start-number =", "-v --reroll-count =", "--filename-max-length =", "--rfc", "--cover-from-description =", "--subject-prefix =", "-o --output-directory =", "-k --keep-subject", "--no-binary", "--zero-commit", "--ignore-if-in-upstream", "-p --no-stat", "--add-header =", "--to =", "--cc =", "--from [=]", "--in-reply-to =", "--attach [=]", "--inline [=]", "--thread [=]", "--signature =", "--base =", "--signature-file =", "-q --quiet", "--progress", "--creation-factor =", "--force-in-body-from"),
    "fetch": ("-v --verbose", "-q --quiet", "--all", "--set-upstream", "-a --append", "--atomic", "--upload-pack =", "-f --force", "-m --multiple", "-t --tags", "-n", "-j --jobs =", "--prefetch", "-p --prune", "-P --prune-tags", "--recurse-submodules [=]", "--dry-run", "--write-fetch-head", "-k --keep", "-u --update-head-ok", "--progress", "--depth =", "--shallow-since =", "--shallow-exclude =", "--deepen =", "--unshallow", "--refetch", "--update-shallow", "--refmap =", "-o --server-option =", "-4 --ipv4", "-6 --ipv6", "--negotiation-tip =", "--negotiate-only", "--filter =", "--auto-maintenance", "--auto-gc", "--show-forced-updates", "--write-commit-graph", "--stdin"),
    "pull": ("-v --verbose", "-q --quiet", "--progress", "--recurse-submodules [=]", "-r --rebase [=]", "-n", "--stat", "--log [=]", "--signoff [=]", "--squash", "--commit", "--edit", "--cleanup =", "--ff", "--ff-only", "--verify", "--verify-signatures", "--autostash", "-s --strategy =", "-X --strategy-option =", "-S --gpg-sign [=]", "--allow-unrelated-histories", "--all", "-a --append", "--upload-pack =", "-f --force", "-t --tags", "-p --prune", "-j --jobs [=]", "--dry-run", "-k --keep", "--depth =", "--shallow-since =", "--shallow-exclude =", "--deepen =", "--unshallow", "--update-shallow", "--refmap =", "-o --server-option =", "-4 --ipv4", "-6 --ipv6", "--negotiation-tip =", "--show-forced-updates", "--set-upstream"),
    "push": ("-v --verbose", "-q --quiet", "--repo =", "--all", "--mirror", "-d --delete", "--tags", "-n --dry-run", "--porcelain", "-f --force", "--force-with-lease [=]", "--force-if-includes", "--recurse-submodules =", "--thin", "--receive-pack =", "--exec =", "-u --set-upstream", "--progress", "--prune", "--no-verify", "--follow-tags", "--signed [=]", "--atomic", "-o --push-option =", "-4 --ipv4", "-6 --ipv6"),
    "clone": ("-v --verbose", "-q --quiet", "--progress", "--reject-shallow", "-n --no-checkout", "--bare", "--mirror", "-l --local", "--no-hardlinks", "-s --shared", "--recurse-submodules [=]", "--recursive [=]", "-j --jobs =", "--template =", "--reference =", "--reference-if-able =", "--dissociate", "-o --origin =", "-b --branch =", "-u --upload-pack =", "--depth =", "--shallow-since =", "--shallow-exclude =", "--single-branch", "--no-tags", "--shallow-submodules", "--separate-git-dir =", "-c --config =", "--server-option =", "-4 --ipv4", "-6 --ipv6", "--filter =", "--also-filter-submodules", "--remote-submodules", "--sparse", "--bundle-uri ="),
    "ls-remote": ("-q --quiet", "--upload-pack =", "-t --tags", "-h --heads", "--refs", "--get-url", "--sort =", "--exit-code", "--symref", "-o --server-option ="),
    "commit": ("-q --quiet", "-v --verbose", "-F --file =", "--author =", "--date =", "-m --message =", "-c --reedit-message =", "-C --reuse-message =", "--fixup [=]", "--squash =", "--reset-author", "--trailer =", "-s --signoff", "-t --template =", "-e --edit", "--cleanup =", "--status", "-S --gpg-sign [=]", "-a --all", "-i --include", "--interactive", "-p --patch", "-o --only", "-n --no-verify", "--dry-run", "--short", "--branch", "--ahead-behind", "--porcelain", "--long", "-z --null", "--amend", "--no-post-rewrite", "-u --untracked-files [=]", "--pathspec-from-file =", "--pathspec-file-nul"),
    "add": ("-n --dry-run", "-v --verbose", "-i --interactive", "-p --patch", "-e --edit", "-f --force", "-u --update", "--renormalize", "-N --intent-to-add", "-A --all", "--ignore-removal", "--refresh", "--ignore-errors", "--ignore-missing", "--sparse", "--chmod =", "--pathspec-from-file =", "--pathspec-file-nul"),
    "checkout": ("-b =", "-B =", "-l", "--guess", "--overlay", "-q --quiet", "--recurse-submodules [=]", "--progress", "-m --merge", "--conflict =", "-d --detach", "-t --track [=]", "-f --force", "--orphan =", "--overwrite-ignore", "--ignore-other-worktrees", "-2 --ours", "-3 --theirs", "-p --patch", "--ignore-skip-worktree-bits", "--pathspec-from-file =", "--pathspec-file-nul"),
    "switch": ("-c --create =", "-C --force-create =", "--guess", "--discard-changes", "-q --quiet", "--recurse-submodules [=]", "--progress", "-m --merge", "--conflict =", "-d --detach", "-t --track [=]", "-f --force", "--orphan =", "--overwrite-ignore", "--ignore-other-worktrees"),
    "restore": ("-s --source =", "-S --staged", "-W --worktree", "--ignore-unmerged", "--overlay", "-q --quiet", "--recurse-submodules [=]", "--progress", "-m --merge", "--conflict =", "-2 --ours", "-3 --theirs", "-p --patch", "--ignore-skip-worktree-bits", "--pathspec-from-file =", "--pathspec-file-nul"),
    "reset": ("-q --quiet", "--no-refresh", "--mixed", "--soft", "--hard", "--merge", "--keep", "--recurse-submodules [=]", "-p --patch", "-N --intent-to-add", "--pathspec-from-file =", "--pathspec-file-nul"),
    "rm": ("-n --dry-run", "-q --quiet", "--cached", "-f --force", "-r", "--ignore-unmatch", "--sparse", "--pathspec-from-file =", "--pathspec-file-nul"),
    "mv": ("-v --verbose", "-n --dry-run", "-f --force", "-k", "--sparse"),
    "merge": ("-n", "--stat", "--summary", "--log [=]", "--squash", "--commit", "-e --edit", "--cleanup =", "--ff", "--ff-only", "--rerere-autoupdate", "--verify-signatures", "-s --strategy =", "-X --strategy-option =", "-m --message =", "-F --file =", "--into-name =", "-v --verbose", "-q --quiet", "--abort", "--quit", "--continue", "--allow-unrelated-histories", "--progress", "-S --gpg-sign [=]", "--autostash", "--overwrite-ignore", "--signoff", "--no-verify"),
    "rebase": ("--onto =", "--keep-base", "--no-verify", "-q --quiet", "-v --verbose", "-n --no-stat", "--signoff", "--committer-date-is-author-date", "--reset-author-date", "-C =", "--ignore-whitespace", "--whitespace =", "-f --force-rebase", "--no-ff", "--continue", "--skip", "--abort", "--quit", "--edit-todo", "--show-current-patch", "--apply", "-m --merge", "-i --interactive", "--rerere-autoupdate", "--empty =", "--autosquash", "--update-refs", "-S --gpg-sign [=]", "--autostash", "-x --exec =", "-r --rebase-merges [=]", "--fork-point", "-s --strategy =", "-X --strategy-option =", "--root", "--reschedule-failed-exec", "--reapply-cherry-picks"),
    "cherry-pick": ("--quit", "--continue", "--abort", "--skip", "--cleanup =", "-n --no-commit", "-e --edit", "-s --signoff", "-m --mainline =", "--rerere-autoupdate", "--strategy =", "-X --strategy-option =", "-S --gpg-sign [=]", "-x", "--ff", "--allow-empty", "--allow-empty-message", "--keep-redundant-commits"),
    "revert": ("--quit", "--continue", "--abort", "--skip", "--cleanup =", "-n --no-commit", "-e --edit", "-s --signoff", "-m --mainline =", "--rerere-autoupdate", "--strategy =", "-X --strategy-option =", "-S --gpg-sign [=]", "--reference"),
    "clean": ("-q --quiet", "-n --dry-run", "-f --force", "-i --interactive", "-d", "-e --exclude =", "-x", "-X"),
    "init": ("--template =", "--bare", "--shared [=]", "-q --quiet", "--separate-git-dir =", "-b --initial-branch =", "--object-format ="),
    "gc": ("-q --quiet", "--prune [=]", "--cruft", "--aggressive", "--auto", "--force", "--keep-largest-pack"),
    "notes add": ("-m --message =", "-F --file =", "-c --reedit-message =", "-C --reuse-message =", "--allow-empty", "-f --force"),
    "notes remove": ("--ignore-missing", "--stdin"),
    "apply": ("--exclude =", "--include =", "-p =", "--no-add", "--stat", "--numstat", "--summary", "--check", "--index", "-N --intent-to-add", "--cached", "--unsafe-paths", "--apply", "-3 --3way", "--build-fake-ancestor =", "-z", "-C =", "--whitespace =", "--ignore-space-change", "--ignore-whitespace", "-R --reverse", "--unidiff-zero", "--reject", "--allow-overlap", "-v --verbose", "-q --quiet", "--inaccurate-eof", "--recount", "--directory =", "--allow-empty"),
    "am": ("-i --interactive", "-3 --3way", "-q --quiet", "-s --signoff", "-u --utf8", "-k --keep", "--keep-non-patch", "-m --message-id", "--keep-cr", "--no-keep-cr", "-c --scissors", "--quoted-cr =", "--whitespace =", "--ignore-space-change", "--ignore-whitespace", "--directory =", "--exclude =", "--include =", "-C =", "-p =", "--patch-format =", "--reject", "--resolvemsg =", "--continue", "-r --resolved", "--skip", "--abort", "--quit", "--show-current-patch [=]", "--allow-empty", "--committer-date-is-author-date", "--ignore-date", "--rerere-autoupdate", "-S --gpg-sign [=]", "--empty ="),
    "verify-commit": ("-v --verbose", "--raw"),
    "verify-tag": ("-v --verbose", "--raw", "--format ="),
    "version": ("--build-options",),
    "help": ("-a --all", "--external-commands", "--aliases", "-m --man", "-w --web", "-i --info", "-v --verbose", "-g --guides", "--user-interfaces", "--developer-interfaces", "-c --config"),
    "difftool": ("-g --gui", "-d --dir-diff", "-y --no-prompt", "--symlinks", "-t --tool =", "--tool-help", "--trust-exit-code", "-x --extcmd =", "--no-index"),
    "whatchanged": ("-q --quiet", "--source", "--use-mailmap", "--mailmap", "--clear-decorations", "--decorate-refs =", "--decorate-refs-exclude =", "--decorate [=]", "-L ="),
    "hash-object": ("-t =", "-w", "--stdin", "--stdin-paths", "--no-filters", "--literally", "--path ="),
    "update-ref": ("-m =", "-d", "--no-deref", "-z", "--stdin", "--create-reflog"),
    "update-index": ("-q", "--ignore-submodules", "--add", "--replace", "--remove", "--unmerged", "--refresh", "--really-refresh", "--cacheinfo =", "--chmod =", "--assume-unchanged", "--no-assume-unchanged", "--skip-worktree", "--no-skip-worktree", "--ignore-skip-worktree-entries", "--info-only", "--force-remove", "-z", "--stdin", "--index-info", "--unresolve", "-g --again", "--ignore-missing", "--verbose", "--clear-resolve-undo", "--index-version =", "--split-index", "--untracked-cache", "--test-untracked-cache", "--force-untracked-cache", "--force-write-index", "--fsmonitor", "--fsmonitor-valid", "--no-fsmonitor-valid"),
    "read-tree": ("--index-output =", "--empty", "-v --verbose", "-m", "--trivial", "--aggressive", "--reset", "--prefix =", "-u", "--exclude-per-directory =", "-i", "-n --dry-run", "--no-sparse-checkout", "--debug-unpack", "--recurse-submodules [=]", "-q --quiet"),
    "write-tree": ("--missing-ok", "--prefix ="),
    "commit-tree": ("-p =", "-m =", "-F =", "-S --gpg-sign [=]"),
    "mktree": ("-z", "--missing", "--batch"),
    "checkout-index": ("-a --all", "--ignore-skip-worktree-bits", "-f --force", "-q --quiet", "-n --no-create", "-u --index", "-z", "--stdin", "--temp", "--prefix =", "--stage ="),
    "merge-file": ("-p --stdout", "--diff3", "--zdiff3", "--ours", "--theirs", "--union", "--marker-size =", "-q --quiet", "-L ="),
    "merge-tree": ("--write-tree", "--trivial-merge", "--messages", "-z", "--name-only", "--allow-unrelated-histories", "--stdin"),
    "pack-refs": ("--all", "--prune"),
    "replace": ("-l --list", "-d --delete", "-e --edit", "-g --graft", "--convert-graft-file", "-f --force", "--raw", "--format ="),
    "interpret-trailers": ("--in-place", "--trim-empty", "--where =", "--if-exists =", "--if-missing =", "--only-trailers", "--only-input", "--unfold", "--parse", "--no-divider", "--trailer ="),
    "fast-export": ("--progress =", "--signed-tags =", "--tag-of-filtered-object =", "--reencode =", "--export-marks =", "--import-marks =", "--import-marks-if-exists =", "--fake-missing-tagger", "--full-tree", "--use-done-feature", "--no-data", "--refspec =", "--anonymize", "--anonymize-map =", "--reference-excluded-parents", "--show-original-ids", "--mark-tags"),
    "show-index": ("--object-format =",),
    "verify-pack": ("-v --verbose", "-s --stat-only", "--object-format ="),
    "column": ("--command =", "--mode [=]", "--raw-mode =", "--width =", "--indent =", "--nl =", "--padding ="),
    "stripspace": ("-s --strip-comments", "-c --comment-lines"),
    "check-mailmap": ("--stdin",),
    "prune": ("-n --dry-run", "-v --verbose", "--progress", "--expire =", "--exclude-promisor-objects"),
    "repack": ("-a", "-A", "--cruft", "--cruft-expiration =", "-d", "-f", "-F", "-n", "-q --quiet", "-l --local", "-b --write-bitmap-index", "-i --delta-islands", "--unpack-unreachable =", "-k --keep-unreachable", "--window =", "--window-memory =", "--depth =", "--threads =", "--max-pack-size =", "--pack-kept-objects", "--keep-pack =", "-g --geometric =", "-m --write-midx", "--expire-to ="),
    "fsck": ("-v --verbose", "--unreachable", "--dangling", "--tags", "--root", "--cache", "--reflogs", "--full", "--connectivity-only", "--strict", "--lost-found", "--progress", "--name-objects"),
    "maintenance run": ("--auto", "--schedule =", "--quiet", "--task ="),
    "sparse-checkout set": ("--cone", "--sparse-index", "--skip-checks", "--stdin"),
    "bundle create": ("-q --quiet", "--progress", "--all-progress", "--all-progress-implied", "--version ="),
}
"""Each parse-options subcommand's own options, as ``git SUBCOMMAND -h`` lists them."""
# fmt: on


def negations(specs: Iterable[str]) -> tuple[str, ...]:
    """
    The ``--no-NAME`` forms parse-options accepts for the long options in ``specs`` (switches).

    >>> negations(["-v --verbose", "--no-renames", "--output ="])
    ('--no-verbose', '--no-output')
    """
    spelled = {word for spec in specs for word in spec.split()}
    found: list[str] = []
    for spec in specs:
        for word in spec.split():
            if word.startswith("--") and not word.startswith("--no-"):
                negation = "--no-" + word[2:]
                if negation not in spelled and negation not in found:
                    found.append(negation)
                break
    return tuple(found)
