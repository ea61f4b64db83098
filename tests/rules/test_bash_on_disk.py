"""
What bash does with the workspace of ``test_hostile_on_disk``: the rows there are real.

Each text runs with bash 5.2, confined (`oracle.bash.run`: a temporary home
and working directory, loggers on ``PATH``, limits): a link into the home
directory is climbed from where it leads, a write to a link lands where it
leads, ``nocaseglob`` makes ``.EN[V]`` name ``.env``, and ``--rcfile`` runs
its file before the text. The links are made with ``/bin/ln`` inside the
confined directories.
"""

from __future__ import annotations

from oracle import bash

_WORLD = r"""
/bin/mkdir -p "$HOME/sub" "$HOME/.aws" .git/hooks
printf 'SECRET\n' > "$HOME/.aws/credentials"
printf '# rc\n' > "$HOME/.bashrc"
printf 'API_KEY=x\n' > .env
/bin/ln -s "$HOME/sub" link_sub
/bin/ln -s "$HOME/.bashrc" link_bashrc
/bin/ln -s "$PWD/.git/hooks" link_hooks
"""


def _run(text: str) -> bash.Run:
    run = bash.run(_WORLD + text)
    assert run.status == 0, run.stderr
    return run


def test_a_climb_out_of_a_link_reads_beside_where_it_leads() -> None:
    run = _run("read -r line < link_sub/../.aws/credentials; printf '%s' \"$line\"\n")
    assert run.stdout == b"SECRET"


def test_a_climb_out_of_a_link_through_an_expansion_or_a_glob_reads_beside_where_it_leads() -> None:
    run = _run(
        "d=link_sub\n"
        "read -r a < $d/../.aws/credentials\n"
        'read -r b < "$PWD"/link_sub/../.aws/credentials\n'
        'for f in link_sub/../.aws/cred*; do read -r c < "$f"; done\n'
        'printf \'%s %s %s\' "$a" "$b" "$c"\n'
    )
    assert run.stdout == b"SECRET SECRET SECRET"


def test_a_write_to_a_link_changes_where_it_leads() -> None:
    run = _run("printf 'EVIL\\n' >> link_bashrc\nprintf 'id\\n' > link_hooks/pre-commit\n")
    assert run.home[".bashrc"] == b"# rc\nEVIL\n"
    assert run.files[".git/hooks/pre-commit"] == b"id\n"
    assert "link_bashrc" in run.links


def test_nocaseglob_makes_a_pattern_name_the_env_file() -> None:
    run = _run("shopt -s nocaseglob\nfor f in .EN[V]; do printf '%s' \"$f\"; done\n")
    assert run.stdout == b".env"


def test_rcfile_runs_its_file_before_the_text() -> None:
    run = _run(
        "printf 'printf \"from the start-up file\"\\n' > rc.sh\n"
        '"$BASH" --rcfile rc.sh -i -c true 2>/dev/null\n'
    )
    assert run.stdout == b"from the start-up file"


def test_a_link_made_in_the_same_text_takes_the_later_write_where_it_leads() -> None:
    run = _run(
        "/bin/ln -s .git/hooks h && printf 'id\\n' > h/pre-commit\n"
        "/bin/cp -s .git/hooks/pre-commit p; printf 'id2\\n' > p\n"
    )
    assert run.files[".git/hooks/pre-commit"] == b"id2\n"
