"""
The option-table row format: how one program reads its own arguments, as data.

A `ProgramRow` declares a program's options (each with its spellings, its
*arity* and its *effect*), how its operands are read (`Operands`: which
operand is read, written, run or connected to), the modes that change those
roles (``tar -x``, ``gzip -d``, ``cp -t DIR``), its subcommands (``pip
install``) and what it does whatever its arguments (``make`` runs recipes).
`gateway._programs._table_reader` reads argv with a row; nothing else interprets one.

What a row may never get wrong: declaring an arity-1 option as arity 0 would
read its value as an operand. A row declares only options whose spelling and
arity every supported implementation (GNU, BSD/macOS, busybox) agrees on, and
an effect is the union over implementations (if any implementation writes
with ``-o``, ``-o`` writes). An option a row does not declare is reported as
undeclared, which refuses an allow: the safe side.

Rows are written with `option_table` from compact spelling strings
(``"-k --key ="``, ``"--color [=]"``) so that a table reads like a manual's
synopsis; this module also holds the effect constants the tables share.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Literal

import msgspec

from gateway._programs import FactKind

__all__ = [
    "APPEND",
    "ARGUMENTS",
    "CHDIR",
    "CREATE",
    "DATA",
    "DELETE",
    "DIRECTORY",
    "ENVIRONMENT",
    "FOLLOW",
    "LISTEN",
    "METADATA",
    "MODE",
    "MOVE",
    "NETWORK",
    "OWNER",
    "READ",
    "REFUSALS",
    "RESOLVE",
    "RUN_CODE",
    "RUN_PROGRAM",
    "RUN_SHELL",
    "WRITE",
    "Arity",
    "Derive",
    "Effect",
    "ExampleDecision",
    "Implicit",
    "Mode",
    "Operands",
    "Option",
    "OptionStyle",
    "ProgramRow",
    "Role",
    "RowExample",
    "ValueForm",
    "allows",
    "merge_tables",
    "option_table",
    "refuses",
    "role",
]

Arity = Literal[0, 1, "optional", "fused", "optional_next", "digits"]
"""
How many values an option takes.

``0``: a switch. ``1``: a value, fused (``-k5``, ``--key=5``) or the next
word (``-k 5``, ``--key 5``), whatever that word spells. ``optional``: a value
only when fused (``-i.bak``, ``--color=never``); bare, it is a switch and the
next word is not its value. ``fused``: a value only when fused, and bare the
option is undeclared: the implementations disagree on whether it takes the next
word (GNU ``grep -C 3`` does, BSD ``grep -C`` does not), so only the fused
spelling reads the same everywhere. ``optional_next``: the next word is its
value unless there is none or it begins with ``-`` or ``+`` (``set -o
pipefail`` / ``set -o``, ``lsof -i :8000`` / ``lsof -i``). ``digits``: the
digits that follow it in its cluster are its value, and the cluster goes on
(``perl -0777ne``, ``perl -lne``).
"""

ValueForm = Literal[
    "value",
    "archive",
    "at_file",
    "form_file",
    "cookie_file",
    "header_file",
    "pass_source",
    "pager_command",
    "urlencode_file",
    "write_out",
    "remote_path",
    "socat_address",
    "bind_mount",
    "mount_spec",
    "ssh_option",
    "key_value",
]
"""
How an option's value names what its effect touches.

``value``: the value itself. ``archive``: the value itself, and a
``HOST:FILE`` value (a colon before any slash) is also a connection to HOST,
as GNU tar's remote archives are. ``at_file``: only a value that starts with ``@``
names a file, after the ``@`` (``curl -d @body.json``). ``form_file``: a
``NAME=@FILE`` or ``NAME=<FILE`` form field (``curl -F``). ``cookie_file``:
a value without ``=`` is a file (``curl -b jar.txt``). ``header_file``: like
``at_file`` (``curl -H @headers.txt``). ``ssh_option``: an ssh ``-o
Key=Value``, whose effect depends on the key (`gateway._programs._ssh`).
``key_value``: a ``NAME=VALUE`` whose value is the effect's target.
``urlencode_file``: ``curl --data-urlencode``: ``NAME@FILE`` or ``@FILE``
reads FILE, ``NAME=TEXT`` and ``TEXT`` name nothing. ``write_out``: ``curl
-w``: ``%output{FILE}`` in the format writes FILE, and ``@FILE`` reads the
format from FILE (so what it writes is unknown). ``remote_path`` (operands of
scp and rsync): a ``HOST:PATH`` operand is a connection to HOST; any other is
the local path the effect names. ``socat_address``: a socat address, whose
type says what it opens (`gateway._programs._socat`).
``bind_mount``: ``docker run -v SRC:DST``: a SRC that is a path (``/``,
``.``, ``~``) is the host path; a volume name names nothing. ``mount_spec``:
``--mount type=bind,source=SRC,…`` names SRC.
``pager_command``: a pager's initial command (``less +CMD``): a line number
or a search (``+42``, ``+/pattern``, ``+G``) names nothing, ``F`` follows
forever, any other command may run shell text (``+!id``). ``pass_source``: an openssl pass phrase source: ``file:PATH`` reads PATH,
``env:VAR`` reads the variable VAR, ``pass:``, ``fd:`` and ``stdin`` name nothing.
"""

OptionStyle = Literal["getopt", "words"]
"""
How a program's words spell options.

``getopt``: POSIX and GNU ``getopt_long``: short options in clusters
(``-xzf``), fused short values (``-k5``), ``--long``, ``--long=value``,
``--long value``, and unique prefixes of long options when the row allows
them. ``words``: each option is one whole word (``openssl x509 -in F``,
``java -jar``, ``find -name``), with its value in the next word, or fused
after ``=`` when the row allows it.
"""

Derive = Literal["basename", "add_suffix", "strip_suffix", "template", "after_at"]
"""
How a role's path is derived from the operand's value.

``basename``: the operand's last component, in the working directory
(``ln -s /x/.bashrc`` creates ``./.bashrc``). ``add_suffix`` / ``strip_suffix``:
the operand with the row's compression suffix added or removed (``gzip f``
creates ``f.gz``; ``gunzip f.gz`` creates ``f``). ``template``: what precedes
the trailing ``X``s that become random characters (``mktemp /tmp/fooXXXXXX``
creates a name beginning ``/tmp/foo``). ``after_at``: what follows a leading
``@`` (``dig @1.1.1.1`` asks the server ``1.1.1.1``).
"""


class Effect(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What an option or operand makes the program do, before a value is known.

    It becomes an `ArgumentFact` when the reader meets the option or operand.

    Attributes:
        kind: The fact's kind (``read``, ``write``, ``execute``, ``network``,
            ``cwd``, ``read_environment``, ``lifetime``).
        action: The fact's action (``write``/``append``/``create``/``delete``/
            ``move``/``copy``/``link``/``mode``/``owner``/``directory`` for a
            write; ``code``/``program``/``shell_text`` for an execute;
            ``connect``/``listen``/``resolve`` for the network; ``unbounded``/
            ``detached`` for a lifetime; ``metadata`` for a read of names,
            sizes or modes only).
        recursive: The write reaches everything below the path.
        form: How the option's value names the target (`ValueForm`).
        value: The fact's value when no word supplies one (a switch such as
            ``tail -f``, or a default file). In an operand's role it replaces
            the operand's value (``grep -r PATTERN`` reads ``.``).
        fixed: `value` is the fact's value even when a word is given; a
            read or write fixed without a value, in an operand's role, names
            what no word shows (the files ``man ./page.1`` includes).
        derive: The fact's path is derived from the operand (`Derive`).
        prefix: The value is the beginning of the paths written (`ArgumentFact.prefix`).
    """

    kind: FactKind
    action: str | None = None
    recursive: bool = False
    form: ValueForm = "value"
    value: str | None = None
    fixed: bool = False
    prefix: bool = False
    derive: Derive | None = None


class Option(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    One option of a program: its canonical spelling, its arity and its effect.

    Attributes:
        name: The canonical spelling (the first long spelling, else the first),
            the one `ArgumentReading.options` lists.
        arity: See `Arity`.
        effect: What the option makes the program do, with its value when it
            takes one; ``None`` when it changes nothing the policy judges.
        also: Further facts the option gives, each with its `Effect.value`
            (``--files0-from=F`` reads ``F`` and files no word names).
        ends_options: The rest of the words are the arguments of what the
            option runs, never the program's options or operands
            (``python -c CODE ARGS``, ``python -m MODULE ARGS``).
    """

    name: str
    arity: Arity = 0
    effect: Effect | None = None
    also: tuple[Effect, ...] = ()
    ends_options: bool = False


class Role(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    What the program does with one operand.

    Attributes:
        effects: The facts the operand gives (none for a pattern, a mode, a
            name; ``read`` for a file it reads; ``gzip``'s operand is moved
            and a name derived from it created…).
        arguments: This operand and every word after it are arguments of what
            it runs (a script's own arguments): they are neither options nor
            operands of the program.
    """

    effects: tuple[Effect, ...] = ()
    arguments: bool = False


class Operands(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Which role each operand has, by position.

    The first operands take `head` in order, the last ones `tail` (counted
    from the end, the last first), the others `rest`; with exactly one operand
    `single` applies when it is set. When an expanding word may be several
    words (or none), the reader gives each operand every role it could have.

    Attributes:
        head: Roles of the first operands (``grep PATTERN``, ``uniq IN OUT``).
        tail: Roles of the last operands, the last first (``cp … DEST``).
        rest: The role of every other operand.
        single: The role when there is exactly one operand (``ln -s TARGET``).
        into: The last operand may be a directory: each source operand is
            also written as ``LAST/basename(SOURCE)`` (``cp a b dir/``).
        into_option: The canonical option whose value is the directory every
            operand is written into (``cp -t DIR a b`` writes ``DIR/a``, ``DIR/b``).
        keys: ``NAME=VALUE`` operands (``dd if=F of=G``): each name's role
            applies to the value; an operand with another name is undeclared.
        prefixed: ``(prefix, role)``: an operand that begins with the prefix
            has that role wherever it stands (``date +%F`` is a format, any
            other ``date`` operand sets the clock).
        slashed: The role of an operand with a ``/`` in it, wherever it
            stands (``man ./ls.1`` formats that file; ``man ls`` finds a page).
        empty: Facts stated when there is no operand (``ls`` lists ``.``,
            ``bash`` runs standard input).
    """

    head: tuple[Role, ...] = ()
    tail: tuple[Role, ...] = ()
    rest: Role = Role()
    single: Role | None = None
    into: bool = False
    into_option: str | None = None
    keys: Mapping[str, Role] | None = None
    prefixed: tuple[tuple[str, Role], ...] = ()
    slashed: Role | None = None
    empty: tuple[Effect, ...] = ()

    @property
    def uniform(self) -> bool:
        """Every operand has the same role, whatever its position."""
        return (
            not self.head
            and not self.tail
            and self.single is None
            and self.keys is None
            and not self.prefixed
            and self.slashed is None
        )


class Implicit(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    A fact the program gives whatever its words: ``make`` runs its recipes.

    Attributes:
        effect: The fact's kind, action and default value (``Effect.value``).
        via: What the fact is attributed to, for display (``recipes``).
        unless: Canonical options whose presence cancels it (``make -n``).
        only_bare: It holds only when the program is given no word at all
            (``set`` alone prints every variable; ``set -e`` prints nothing).
        unless_alone: Canonical options that cancel it only when one is the
            program's one word (``pytest --version`` prints its version before
            it reads anything; ``pytest --version tests`` loads conftest.py).
    """

    effect: Effect
    via: str
    unless: frozenset[str] = frozenset()
    only_bare: bool = False
    unless_alone: frozenset[str] = frozenset()


class Mode(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    Operand roles that apply when some options are present (``tar -x``, ``cp -t``).

    Attributes:
        when: Canonical option names; the mode applies when all are present
            (the row's implied options count). The first mode that applies wins.
        operands: The roles in this mode.
        facts: Facts the mode adds, whatever the operands (``tar -x`` writes
            under the working directory).
        option_effects: Canonical option → the effect it has in this mode
            instead of its own (``tar -c -f ARCHIVE`` writes the archive that
            ``tar -x -f ARCHIVE`` reads); ``None``: no effect in this mode
            (``free -s N`` repeats forever, ``free -s N -c M`` does not).
    """

    when: frozenset[str]
    operands: Operands
    facts: tuple[Implicit, ...] = ()
    option_effects: Mapping[str, Effect | None] = MappingProxyType({})


ExampleDecision = Literal["allow", "ask", "decline", "refuse"]
"""What the policy must decide on a row's example: ``refuse`` is ``ask`` or ``decline``."""

REFUSALS: Final = frozenset({"ask", "decline"})
"""The decisions a ``refuse`` example accepts."""


class RowExample(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="kebab"
):
    """
    A command a row answers for: what the default policy decides on it, under one profile.

    A row's examples are its tests. Each allowed example has refused twins: the
    same command with the option, redirect or path that makes it write, run or
    send what the profile does not permit. The suite judges every built-in
    row's examples (``tests/programs/test_examples.py``); the ``rules`` approver
    judges a configuration's tables' examples when it loads, and refuses to
    start when one fails.

    Attributes:
        command: The shell text; one of its commands runs the row's program.
        decision: ``allow``, ``ask``, ``decline``, or ``refuse`` (ask or decline).
        profile: The profile it is judged under (``read-only``, ``workspace-write``…).
    """

    command: str
    decision: ExampleDecision
    profile: str = "read-only"

    def __post_init__(self) -> None:
        if not self.command.strip():
            raise ValueError("an example's command is empty")

    def holds(self, decision: str) -> bool:
        """Whether the policy deciding ``decision`` is what the example says."""
        if self.decision == "refuse":
            return decision in REFUSALS
        return decision == self.decision


def allows(*commands: str, profile: str = "read-only") -> tuple[RowExample, ...]:
    """Examples the policy must allow under ``profile``."""
    return tuple(RowExample(command=c, decision="allow", profile=profile) for c in commands)


def refuses(*commands: str, profile: str = "read-only") -> tuple[RowExample, ...]:
    """Examples the policy must refuse (ask or decline) under ``profile``."""
    return tuple(RowExample(command=c, decision="refuse", profile=profile) for c in commands)


class ProgramRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """
    How one program (or one subcommand) reads its arguments.

    Attributes:
        options: Every declared spelling → its option. Spellings of one option
            share one `Option` (its ``name`` is the canonical spelling).
        style: How words spell options (`OptionStyle`).
        abbreviations: Unique prefixes of long options are accepted (GNU and
            BSD ``getopt_long``, Python's argparse): the exact spelling wins,
            then a prefix that names one option; an ambiguous prefix is undeclared.
        fused_equals: In the ``words`` style, ``-name=value`` is accepted.
        fused_prefix: In the ``words`` style, a word that no spelling matches
            is read as the longest spelling it begins with, whose arity is
            ``fused`` or ``optional``, with the rest of the word as its value
            (``7z x -oout``, ``7z a -mx=9``).
        multichar_short: Short options may be longer than one letter (zip's
            ``-TT CMD``, ``-sf``): in a cluster, the longest spelling that
            matches is read first.
        clusters: Short options are read in clusters with fused values
            (``-xzf``, ``-k5``). Without, each short option is one whole word
            and takes its value in the next word, fused only where its arity
            says so (``fused``, ``optional``, and ``digits`` in decimal):
            git's own options (``-C DIR``; ``-Cdir`` and ``-pP`` are unknown)
            and find's leading options (``-O3``; ``-HL`` is no option).
        dash_option: A lone ``-`` is an option word (undeclared unless the row
            lists it), not an operand: git's own options refuse it.
        options_end_after: Options stop after this many operands (``1``: at
            the first operand, as POSIX getopt and every launcher or
            interpreter does; ``2``: ``ssh HOST -v CMD``); ``None``: options
            may follow operands (GNU getopt permutes) until ``--``.
        double_dash: ``--`` ends the options.
        double_dash_arguments: ``--`` before the first operand also ends the
            operands: every word after it is an argument of the code the
            program reads from standard input (``php -- x.php`` runs standard
            input with ``x.php`` as ``$argv[1]``), so the row's ``empty``
            roles apply.
        dash_ends_options: A lone ``-`` ends the options as ``--`` does and is
            no operand (``bash - x.sh`` runs ``x.sh``, as bash and POSIX ``sh`` say).
        unknown_is_operand: A word the table does not know is an operand, not
            an undeclared option (``echo -x`` prints ``-x``).
        dashless: Words without a leading dash that are clusters of options:
            ``first`` (``tar xzf``: the first word, with the values of its
            letters in the following words) or ``every`` (``ps aux``).
        dashless_options: The letters of dashless clusters when they differ
            from the dashed ones (``ps e`` is not ``ps -e``).
        numeric: The option that a ``-NUM`` word spells (``head -20``).
        plus: The option that a ``+WORD`` word spells (``less +F``); without
            it a ``+WORD`` word is an operand (``date +%F``), unless the row
            declares ``+x`` spellings (``lsof +d DIR``), which are read as
            short options.
        plus_clusters: A ``+abc`` word is a cluster of the short options,
            switched off rather than on (``set +e``, ``declare +x``); they are
            listed with a ``+`` (``+e``).
        plus_undeclared: A ``+WORD`` the row does not declare is undeclared,
            not an operand.
        operand_words: A regular expression of dash words that are operands
            (``chmod -x FILE``, ``seq -5 5``).
        response_files: A ``@FILE`` word reads more options from ``FILE``
            (binutils), so it is undeclared: what the file says is unknown.
        operands: The operands' roles when no mode applies.
        modes: Roles that apply with some options (`Mode`).
        implied: Options the program behaves as if given (``gunzip``: ``--decompress``).
        recursive: Options that make every read and write of the operands
            recursive (``rm -r``, ``chmod -R``, ``grep -r``).
        suffixes: The compression suffixes of ``add_suffix`` / ``strip_suffix``
            roles, the added one first.
        suffix_options: Options whose value is the suffix, added or removed
            before the row's own (``gzip -S .x``).
        backups: Options that make the program keep each file it replaces,
            renamed to its name and a suffix (``cp -b``: ``DEST~``,
            ``DEST.~1~``, or the suffix ``-S`` or ``$SIMPLE_BACKUP_SUFFIX``
            gives): every path it writes in place is also a write of the
            paths that begin with it.
        cwd_first: The program changes directory before it reads any path, so
            ``cwd`` facts come first (``make -C DIR -f FILE``).
        facts: What it does whatever its words.
        subcommands: Subcommand word → its row (aliases map to the same row).
        subcommand_names: Subcommand word → its canonical name, for aliases.
        inherit: A subcommand also accepts its parent's options.
        environment: Variables whose value the program reads as code, a
            program or options (``PAGER``, ``LESSOPEN``): binding one in the
            same call makes it run that.
        dash_stdin: An operand ``-`` is standard input, not a file (the GNU
            convention for files read, an interpreter's script operand): where
            it would be read it names no path, where it would run as a script
            it is code from standard input. Other roles of ``-`` (a file
            written) stay a file ``./-``.
        examples: Commands the default policy must decide as each says
            (`RowExample`); the suite judges them all. They change nothing
            the row reads.
    """

    options: Mapping[str, Option] = MappingProxyType({})
    style: OptionStyle = "getopt"
    abbreviations: bool = True
    fused_equals: bool = False
    fused_prefix: bool = False
    multichar_short: bool = False
    clusters: bool = True
    dash_option: bool = False
    options_end_after: int | None = None
    double_dash: bool = True
    double_dash_arguments: bool = False
    dash_ends_options: bool = False
    unknown_is_operand: bool = False
    dashless: Literal["first", "every"] | None = None
    dashless_options: Mapping[str, Option] | None = None
    numeric: Option | None = None
    plus: Option | None = None
    plus_clusters: bool = False
    plus_undeclared: bool = False
    operand_words: str | None = None
    response_files: bool = False
    operands: Operands = Operands()
    modes: tuple[Mode, ...] = ()
    implied: frozenset[str] = frozenset()
    recursive: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    suffix_options: frozenset[str] = frozenset()
    backups: frozenset[str] = frozenset()
    cwd_first: bool = False
    facts: tuple[Implicit, ...] = ()
    subcommands: Mapping[str, ProgramRow] | None = None
    subcommand_names: Mapping[str, str] = MappingProxyType({})
    inherit: bool = False
    environment: frozenset[str] = frozenset()
    dash_stdin: bool = False
    examples: tuple[RowExample, ...] = ()


# ───────────────────────── effects the tables share ─────────────────────────

READ: Final = Effect(kind="read")
METADATA: Final = Effect(kind="read", action="metadata")
WRITE: Final = Effect(kind="write", action="write")
APPEND: Final = Effect(kind="write", action="append")
CREATE: Final = Effect(kind="write", action="create")
DELETE: Final = Effect(kind="write", action="delete")
MOVE: Final = Effect(kind="write", action="move")
DIRECTORY: Final = Effect(kind="write", action="directory")
MODE: Final = Effect(kind="write", action="mode")
OWNER: Final = Effect(kind="write", action="owner")
RUN_CODE: Final = Effect(kind="execute", action="code")
RUN_PROGRAM: Final = Effect(kind="execute", action="program")
RUN_SHELL: Final = Effect(kind="execute", action="shell_text")
NETWORK: Final = Effect(kind="network", action="connect")
LISTEN: Final = Effect(kind="network", action="listen")
RESOLVE: Final = Effect(kind="network", action="resolve")
CHDIR: Final = Effect(kind="cwd")
ENVIRONMENT: Final = Effect(kind="read_environment")
FOLLOW: Final = Effect(kind="lifetime", action="unbounded")

DATA: Final = Role()
"""An operand that is data (a pattern, a mode, a name): no fact."""
ARGUMENTS: Final = Role(arguments=True)
"""This operand and every word after it are arguments of what the program runs."""


def role(*effects: Effect) -> Role:
    """A role with these effects: ``role(READ)``, ``role(MOVE, ADDS_SUFFIX)``."""
    return Role(effects=effects)


# ───────────────────────── the spelling notation ─────────────────────────


def _arity_of(word: str, default: Arity) -> tuple[str, Arity]:
    if word.endswith("[_]"):
        return word[:-3], "optional_next"
    if word.endswith("[0]"):
        return word[:-3], "digits"
    if word.endswith("(=)"):
        return word[:-3], "fused"
    if word.endswith("[=]"):
        return word[:-3], "optional"
    if word.endswith("=") and len(word) > 2:
        return word[:-1], 1
    return word, default


def _option(
    spec: str, effect: Effect | None, also: tuple[Effect, ...], *, ends: frozenset[str]
) -> list[tuple[str, Option]]:
    words = spec.split()
    default: Arity = 0
    marks: dict[str, Arity] = {
        "=": 1,
        "[=]": "optional",
        "(=)": "fused",
        "[_]": "optional_next",
        "[0]": "digits",
    }
    if words and words[-1] in marks:
        default = marks[words.pop()]
    spellings = [_arity_of(word, default) for word in words]
    if not spellings or any(
        not word.startswith(("-", "+")) or word in ("-", "--", "+") for word, _ in spellings
    ):
        raise ValueError(f"Option spelling {spec!r} must list -x, --long or -word spellings.")
    name = next((word for word, _ in spellings if word.startswith("--")), spellings[0][0])
    return [
        (
            word,
            Option(name=name, arity=arity, effect=effect, also=also, ends_options=word in ends),
        )
        for word, arity in spellings
    ]


OptionSpec = str | tuple[str, Effect | None] | tuple[str, Effect | None, tuple[Effect, ...]]
"""``"SPELLINGS"``, ``(SPELLINGS, effect)`` or ``(SPELLINGS, effect, also)``."""


def option_table(*specs: OptionSpec, ends: Iterable[str] = ()) -> Mapping[str, Option]:
    """
    Build an option mapping from spelling strings.

    Each spec is ``"SPELLING… [=|[=]]"``, ``(that, effect)`` or ``(that,
    effect, also)``: the spellings of one option separated by spaces, then
    ``=`` when it takes a value, ``[=]`` when it takes one only fused, or
    ``(=)`` when only its fused spelling is declared (arity ``fused``), or
    ``[_]`` when the next word is its value unless it looks like an option
    (arity ``optional_next``), or ``[0]`` when the digits after it are its
    value (arity ``digits``). A
    spelling may carry its own mark when the spellings differ (``"-f
    --follow[=]"``: ``-f`` is a switch, ``--follow`` takes an optional value).
    ``"-k --key ="`` is arity 1; ``"--color [=]"`` optional; ``"-r -R
    --recursive"`` a switch. The canonical name is the first long spelling.

    Args:
        specs: The options.
        ends: Spellings of options after which the words are arguments of what
            the option runs (`Option.ends_options`).

    Returns:
        A read-only mapping of every spelling to its option.

    Raises:
        ValueError: A spelling is malformed or declared twice.
    """
    ending = frozenset(ends)
    table: dict[str, Option] = {}
    for spec in specs:
        also: tuple[Effect, ...] = ()
        if isinstance(spec, str):
            text, effect = spec, None
        elif len(spec) == 2:
            text, effect = spec
        else:
            text, effect, also = spec
        for spelling, option in _option(text, effect, also, ends=ending):
            if spelling in table:
                raise ValueError(f"Option {spelling!r} is declared twice.")
            table[spelling] = option
    return MappingProxyType(table)


def merge_tables(*tables: Mapping[str, Option]) -> Mapping[str, Option]:
    """One option mapping from several; a spelling declared twice is an error."""
    merged: dict[str, Option] = {}
    for table in tables:
        for spelling, option in table.items():
            if spelling in merged and merged[spelling] != option:
                raise ValueError(f"Option {spelling!r} is declared twice.")
            merged[spelling] = option
    return MappingProxyType(merged)
