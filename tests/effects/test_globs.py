"""
Globs are judged by every path bash could match with them, in every segment.

A glob in a directory segment (``~/.a[w]s/cred*``, ``.git/hoo?s/``) names
what it could match, with the leading-dot rule and the glob options
(``dotglob``, ``nocaseglob``, ``globstar``, ``extglob``, a set
``GLOBIGNORE``) as the text leaves them. Each bypass has a harmless twin;
what bash really matches is shown by running it confined, and every file it
matched that a protected pattern names must be one `could_match` foresaw.
"""

from __future__ import annotations

import pytest
from oracle import bash

from effects.support import CWD, PATHS, effects_of, only
from gateway._calls._places import (
    DEFAULT_PERSISTENCE_PATTERNS,
    DEFAULT_SECRET_PATTERNS,
    pattern_regex,
)
from gateway._plan._globs import could_match, name_matches
from gateway.effects import Read, Write


def _classes(source: str) -> list[tuple[str, ...]]:
    paths = [e.path for e in only(effects_of(source), Read)]
    paths += [e.path for e in only(effects_of(source), Write)]
    return [path.classes for path in paths if path.pattern]


@pytest.mark.parametrize(
    ("bypass", "twin", "kind"),
    [
        ("cat -- ~/.a[w]s/cred*", "cat -- ~/notes/a*", "secret"),
        ("head -n 5 -- ~/.[a]ws/*", "head -n 5 -- ~/[a]ws/*.txt", "secret"),
        ("cat -- ~/.ssh/id_*", "cat -- ~/.ssh2/x*", "secret"),
        ("cat -- ~/.bash_hist?ry", "cat -- ~/.bash_hist?ry.txt", "secret"),
        ("cat -- ~/.cargo/c?edentials.toml", "cat -- ~/.cargo/c?nfig.toml", "secret"),
        ("cp pre-commit .git/hoo?s/", "cp pre-commit .git/info/", "persistence"),
        ("cp x .gi?/hooks/pre-commit", "cp x .gi?/info/exclude", "persistence"),
        ("rm -rf .gi?", "rm -f bui?d/cache", "persistence"),
        ("cat -- /e?c/shadow", "cat -- /e?c/hostname", "secret"),
        ("cat -- /proc/[0-9]*/environ", "cat -- /proc/[0-9]*/status", "secret"),
        # `.ENV` is `.env` on a case-insensitive file system: the patterns fold case
        ("cat -- .EN[V]", "cat -- .EN[X]", "secret"),
        ("shopt -s nocaseglob; cat -- .eN[v]", "cat -- .eN[x]", "secret"),
        ("shopt -s dotglob; cat -- [.]env", "cat -- [.]env", "secret"),
        ("GLOBIGNORE=x; cat -- ?env", "cat -- ?env", "secret"),
        ("bash -O dotglob -c 'cat -- ?env'", "bash -c 'cat -- ?env'", "secret"),
        ("shopt -s globstar; cat -- ~/**/id_rsa", "cat -- ~/notes/*/a.txt", "secret"),
        ("cat -- *.json", "cat -- *.py", "secret"),
    ],
)
def test_a_glob_is_every_protected_place_it_could_match(bypass: str, twin: str, kind: str) -> None:
    found = _classes(bypass)
    assert any(kind in classes for classes in found), (bypass, found)
    assert not any(kind in classes for classes in _classes(twin)), twin


def test_quoted_pattern_characters_are_written_characters() -> None:
    (read,) = only(effects_of("cat -- '*'.a[w]s"), Read)
    assert read.path.value == f"{CWD}/\\*.a[w]s"
    assert could_match(f"{CWD}/\\*.a[w]s", f"{CWD}/*.aws")
    assert not could_match(f"{CWD}/\\*.a[w]s", f"{CWD}/x.aws")


def test_a_glob_may_reach_a_place_its_text_does_not_lie_in() -> None:
    (read,) = only(effects_of("cat -- /t?p/x"), Read)
    assert set(read.path.classes) >= {"temp", "other"}
    (home,) = only(effects_of("cat -- ~/*/x"), Read)
    assert "home" in home.path.classes
    assert "workspace" not in only(effects_of("cat -- /u?r/x"), Read)[0].path.classes


def test_two_stars_meet_only_where_neither_must_take_the_others_letters() -> None:
    """``*.py`` and ``id_rsa*`` meet only in ``id_rsa….py``: not a key anyone keeps."""
    assert not could_match("/w/*.py", "**/id_rsa*")
    assert could_match("/w/*", "**/id_rsa*")
    assert could_match("/w/*.json", "**/credentials.json")
    assert could_match("/h/.bash_hist?ry", "/h/.*_history")


@pytest.mark.parametrize(
    ("segment", "name", "options", "expected"),
    [
        (".[a]ws", ".aws", frozenset(), True),
        ("[.]aws", ".aws", frozenset(), False),
        ("?aws", ".aws", frozenset(), False),
        ("[.]aws", ".aws", frozenset({"dotglob"}), True),
        (".AW[S]", ".aws", frozenset(), False),
        (".AW[S]", ".aws", frozenset({"nocaseglob"}), True),
        ("[[:alpha:]]ws", "aws", frozenset(), True),
        ("[!a]ws", "aws", frozenset(), False),
        ("[^a]ws", "bws", frozenset(), True),
        ("@(x|a)ws", "aws", frozenset({"extglob"}), True),
        (".*", "..", frozenset(), False),
        ("a\\*", "a*", frozenset(), True),
        ("a\\*", "ab", frozenset(), False),
    ],
)
def test_a_name_matches_as_bash_matches_it(
    segment: str, name: str, options: frozenset[str], expected: bool
) -> None:
    assert name_matches(segment, name, options) is expected


_TREE = """
/bin/mkdir -p "$HOME/.aws" "$HOME/.ssh" "$HOME/.cargo" "$HOME/notes" .git/hooks src
: > "$HOME/.aws/credentials"; : > "$HOME/.ssh/id_rsa"; : > "$HOME/.cargo/credentials.toml"
: > "$HOME/.bash_history"; : > "$HOME/notes/a.txt"; : > .env; : > .envrc
: > .git/config; : > .git/hooks/pre-commit; : > src/app.py; : > src/id_rsa.pub; : > key.pem
"""

_GLOBS = [
    ("", "$HOME", "/.a[w]s/cred*"),
    ("", "$HOME", "/.[a]ws/*"),
    ("", "$HOME", "/[.]aws/*"),
    ("", "$HOME", "/.*"),
    ("", "$HOME", "/.*/*"),
    ("", "$HOME", "/*/*"),
    ("", "$HOME", "/.bash_hist?ry"),
    ("", "$HOME", "/.cargo/c?edentials.toml"),
    ("shopt -s dotglob", "$HOME", "/*/*"),
    ("shopt -s globstar", "$HOME", "/**"),
    ("shopt -s globstar dotglob", "$HOME", "/**"),
    ("", "$PWD", "/.gi?/hoo?s/*"),
    ("", "$PWD", "/.en*"),
    ("", "$PWD", "/*"),
    ("", "$PWD", "/*/*"),
    ("", "$PWD", "/src/*.py"),
    ("shopt -s nocaseglob", "$PWD", "/.EN[V]"),
    ("GLOBIGNORE=x", "$PWD", "/?env"),
]


@pytest.mark.parametrize(("setup", "anchor", "glob"), _GLOBS)
def test_every_protected_file_bash_matches_was_foreseen(setup: str, anchor: str, glob: str) -> None:
    run = bash.run(
        f'{_TREE}\n{setup}\nprintf "%s\\n" "$HOME" "$PWD"\n'
        f'for f in "{anchor}"{glob}; do [ -e "$f" ] && printf "%s\\n" "$f"; done; true\n'
    )
    assert run.status == 0, run.stderr
    home, cwd, *matches = run.stdout.decode().splitlines()
    options = frozenset(
        word for word in setup.split() if word in ("dotglob", "nocaseglob", "globstar")
    ) | (frozenset({"dotglob"}) if setup.startswith("GLOBIGNORE") else frozenset())
    absolute = (home if anchor == "$HOME" else cwd) + glob
    patterns = [
        home + p[1:] if p.startswith("~/") else p
        for p in DEFAULT_SECRET_PATTERNS + DEFAULT_PERSISTENCE_PATTERNS
    ]
    assert matches or glob == "/[.]aws/*", "the tree holds a match of every glob but one"
    for match in matches:
        for pattern in patterns:
            if pattern_regex(pattern).fullmatch(match):
                assert could_match(absolute, pattern, options=options), (match, pattern)
    for pattern in patterns:  # and what it foresees beyond the tree is a name bash would match
        if not any(pattern_regex(pattern).fullmatch(m) for m in matches):
            continue
        assert could_match(absolute, pattern, options=options)


def test_the_paths_context_is_the_one_the_tests_use() -> None:
    assert PATHS.cwd == CWD
