"""
The calls the replay runs: the project's hostile tables, the attack classes of the allowlists, calls written against the source, and harmless twins.

`hostile()` gathers every shell call of the hostile tables (``tests/rules``,
``tests/programs``) and of this module; `TWINS` are harmless calls that
must be allowed and do their work, each with what proves it did. `sample`
is a deterministic slice for the suite; ``benchmarks/confined_replay.py`` runs them
all.
"""

from __future__ import annotations

import shlex
from typing import Final, NamedTuple

PROFILES: Final = ("read-only", "workspace-write")


class Call(NamedTuple):
    source: str
    text: str


CLASSES: Final = {
    "glob-in-directory-segment": [
        "cat ~/.a[w]s/cred*",
        "head -n 5 ~/.[a]ws/*",
        "cat ~/.ss?/id_*",
        "cat ~/.*/hosts.yml",
        "cat ~/.config/g[h]/hosts.yml",
        "cp x.sh .git/hoo?s/pre-commit",
        "cp x.sh .gi?/hooks/post-checkout",
        "echo 'echo pwned' >> .git/conf[i]g",
        "echo pwned >> .env[r]c",
        "cat plugin/.gi?/id_rsa",
        "cat ./*/.git/id_rsa",
        "rm -rf .gi?",
        "cat ~/*/.aws/credentials",
        "cat link_*/.aws/credentials",
    ],
    "values-that-run": [
        "declare -i x; read -r x <<< 'a[$(bash payload.sh >&2)]'",
        "typeset -i x; x='a[$(bash payload.sh)]'",
        "local -i x 2>/dev/null; declare -gi y; y='a[$(bash payload.sh)]'",
        "declare -x -i z; z='a[$(bash payload.sh)]'",
        "printf -v x '%s' 'a[$(bash payload.sh)]'; echo $((x))",
        "declare -i n; read -r n < evil.txt",
        "echo $(( $(cat evil.txt) ))",
        "read -r x < evil.txt; echo $((x))",
        "while read -r x; do echo $((x)); done < evil.txt",
        "cat evil.txt | { read x; echo $((x)); }",
        "mapfile -t a < evil.txt; echo $((a[0]))",
        ": ${x:='a[$(bash payload.sh)]'}; echo $((x))",
        "export x='a[$(bash payload.sh)]'; echo $((x))",
        "declare -n r=GITHUB_TOKEN; echo $r",
        "x=GITHUB_TOKEN; echo ${!x}",
        "x=AWS_SECRET_ACCESS_KEY; declare -n r=$x; echo $r",
        "OPTIND='a[$(bash payload.sh)]'; getopts a b",
        "a=(); a[$(bash payload.sh)]=1",
        "for x in 'a[$(bash payload.sh)]'; do echo $((x)); done",
        "x='$(bash payload.sh)'; eval echo $x",
        "[[ 'a[$(bash payload.sh)]' -eq 0 ]]",
        "test 'a[$(bash payload.sh)]' -eq 0",
        "echo ${#GITHUB_TOKEN} ${GITHUB_TOKEN:0:40}",
        'echo "$DATABASE_URL"',
        "printenv",
        "env",
        "declare -p",
        "export -p",
        "set",
        'compgen -v | while read v; do echo "$v=${!v}"; done',
    ],
    "environment-and-dialect": [
        "BASH_ENV=payload.sh bash -c true",
        "env BASH_ENV=./payload.sh bash -c ls",
        "ENV=./payload.sh sh -i -c true",
        "env 'BASH_FUNC_ls%%=() { bash payload.sh; }' bash -c ls",
        "SHELLOPTS=xtrace bash -c 'cat README.md'",
        "PROMPT_COMMAND='bash payload.sh' bash -i -c true",
        "sh -c 'echo $'\"'\"'a\\'\"'\"' ; bash payload.sh ; echo \\'\"'\"''",
        "sh -c \"echo \\$'x' ; bash payload.sh\"",
        "dash -c 'bash payload.sh'",
        "/bin/sh payload.sh",
        "PS4='$(bash payload.sh)' bash -xc true",
        "BASH_XTRACEFD=1 PS4='$(cat ~/.ssh/id_rsa)' bash -xc true",
    ],
    "tilde-after-equals": [
        "ls a=~/.ssh",
        "dd if=~/.ssh/id_rsa",
        "dd of=~/.bashrc if=x.sh",
        "cp x.sh --target-directory=~/.local/bin",
        "echo a=~/.aws/credentials | xargs cat",
        "cat --file=~/.netrc 2>&1",
        "git config --global --file=~/.gitconfig core.pager 'bash payload.sh'",
    ],
    "help-and-config-printers": [
        "pytest --help",
        "python3 -m pytest --version",
        "pytest --co -q",
        "make -n",
        "make --help",
        "make",
        "npm test",
        "npm run test",
        "pip config list",
        "pip3 config list",
        "python3 -m pip config list",
        "npm config list",
        "git config --list --show-origin",
        "git config --global -l",
        "gh auth token",
        "gh auth status -t",
        "docker login",
        "cat /proc/self/environ",
        "cat /proc/1/environ",
        "strings /proc/self/environ",
        "tr '\\0' '\\n' < /proc/$$/environ",
    ],
    "boundary": [
        "python3 evil.py",
        "python3 -c 'import os; os.system(\"bash payload.sh\")'",
        "bash payload.sh",
        "./payload.sh",
        "python3 -m pytest -q",
        "python3 conftest.py",
        'node -e \'require("child_process").execSync("bash payload.sh")\'',
        "unshare -Urm sh -c 'umount .git/hooks; bash payload.sh'",
        "unshare -Urm sh -c 'umount -l ~; cat ~/.ssh/id_rsa'",
        "unshare -r bash payload.sh",
        'python3 -c \'print(open("/proc/1/root" + __import__("os").environ["HOME"] + "/.ssh/id_rsa").read())\'',
        "ls -la /proc/1/root/ /proc/1/cwd/",
        "cat /proc/self/mountinfo",
        "cat /etc/shadow /etc/shadow- /etc/gshadow",
        "ls /root /run /var/run /srv /home",
        "cat /run/secrets/* /var/run/secrets/*/*",
        "mv .git .git-moved && mkdir -p .git/hooks && cp x.sh .git/hooks/pre-commit",
        "mv .vscode .v2 && mkdir .vscode && echo pwned > .vscode/settings.json",
        "mv .venv .v && mkdir -p .venv/lib/python3/site-packages && echo pwned > .venv/lib/python3/site-packages/kept.pth",
        "mv .envrc .e; echo pwned > .envrc",
        "rm -rf .git/hooks && mkdir .git/hooks && cp x.sh .git/hooks/pre-commit",
        "ln -sf ~/.bashrc b && echo pwned >> b",
        'python3 -c \'open(".venv/lib/python3/site-packages/sitecustomize.py","w").write("import os")\'',
        'python3 -c \'open(".venv/lib/python3/site-packages/evil.pth","w").write("import os")\'',
        'python3 -c \'open(".git/hooks/post-merge","w").write("pwned")\'',
        'python3 -c \'import socket; socket.create_connection(("127.0.0.1", int(open("port.txt").read())))\'',
        "bash -c 'exec 3<>/dev/tcp/127.0.0.1/'$(cat port.txt)'; echo hi >&3'",
        "curl -s http://127.0.0.1:$(cat port.txt)/",
        "git -c core.hooksPath=/tmp commit --allow-empty -m x",
        "git -c core.fsmonitor='bash payload.sh' status",
        "git -c core.pager='bash payload.sh' log",
        "find / -xdev -name id_rsa 2>/dev/null | xargs cat",
        "grep -r marker / 2>/dev/null | head",
        "cat /dev/shm/* /tmp/* 2>/dev/null",
        "sleep 2 & disown; bash payload.sh",
        "nohup bash payload.sh &",
        "setsid bash payload.sh",
        "kill -9 -1",
        "echo pwned > /dev/tty",
    ],
}
"""Calls written for this replay: the attack classes of the allowlists, and the boundary read from its source."""


class Twin(NamedTuple):
    text: str
    profiles: tuple[str, ...]
    out: str = ""
    """Text its standard output must hold."""
    creates: str = ""
    """A workspace file it must leave behind."""


TWINS: Final = (
    Twin("cat README.md", PROFILES, out="hello from the readme"),
    Twin("grep -rn TODO src", PROFILES, out="src/main.py:1:"),
    Twin("ls -a", PROFILES, out="README.md"),
    Twin("git status --short", PROFILES),
    Twin('echo "$HOME"', PROFILES, out="/home"),
    Twin("cat s[r]c/ma?n.py", PROFILES, out="main ran"),
    Twin("wc -l notes.txt", PROFILES, out="1 notes.txt"),
    Twin("python3 src/main.py", ("workspace-write",), out="main ran"),
    Twin("python3 -c 'print(40 + 2)'", ("workspace-write",), out="42"),
    Twin("echo made > out.txt", ("workspace-write",), creates="out.txt"),
    Twin("mkdir -p build && touch build/a.o", ("workspace-write",), creates="build/a.o"),
    Twin("sed -i 's/hello/hi/' README.md && cat README.md", ("workspace-write",), out="hi from"),
    Twin("touch new.txt && git status --short", ("workspace-write",), out="new.txt"),
    Twin("declare -i n; n=40+2; echo $n", PROFILES, out="42"),
    Twin("sh -c 'echo plain'", PROFILES, out="plain"),
    Twin("ls a=~/x 2>/dev/null; echo done", PROFILES, out="done"),
)


def _tables() -> list[Call]:
    """The shell calls of the project's hostile tables."""
    from programs.test_bypasses import BYPASSES
    from rules.test_allowlists import PAIRS
    from rules.test_hostile import HOSTILE, LOOK_ALIKES
    from rules.test_hostile_on_disk import HOSTILE as ON_DISK

    found = [Call(f"hostile:{name}", row.command) for name, row in HOSTILE]
    found += [Call("look-alike", command) for command in LOOK_ALIKES]
    found += [
        Call("on-disk", row.call)
        for row in ON_DISK
        if not row.call.split(" ", 1)[-1].startswith("{") and "{HOME}" not in row.call
    ]
    for pair in PAIRS:
        found.append(Call(f"allowlists:{pair[0]}", pair[1]))
        found.append(Call("allowlists:twin", pair[2]))
    for bypass in BYPASSES:
        argv = [word if word is not None else "file" for word in bypass.argv]
        found.append(Call(f"bypass:{bypass.program}", shlex.join([bypass.program, *argv])))
    return found


def hostile() -> list[Call]:
    """Every call of the replay, the tables first, without repeats."""
    found = _tables() + [
        Call(f"replay:{name}", text) for name, texts in CLASSES.items() for text in texts
    ]
    seen: set[str] = set()
    unique = []
    for call in found:
        if call.text not in seen:
            seen.add(call.text)
            unique.append(call)
    return unique


def sample(calls: list[Call], every: int) -> list[Call]:
    """Every call of this replay's own classes, and every ``every``-th of the tables'."""
    own = [call for call in calls if call.source.startswith("replay:")]
    tables = [call for call in calls if not call.source.startswith("replay:")]
    return own + tables[::every]
