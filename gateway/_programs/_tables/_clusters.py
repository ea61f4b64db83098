"""
Option tables of docker and kubectl: enough to state what each command reaches and runs.

Every docker command talks to the Docker daemon, a service with the host's
full authority, and every kubectl command to a cluster's API server: both
are ``network`` facts. ``docker run``/``exec``/``build`` and ``kubectl
exec``/``run``/``debug`` run programs; a bind mount (``-v /host:/ctr``,
``--mount type=bind,source=…``) writes the host path, and ``--privileged``,
``--cap-add``, ``--security-opt`` or the API socket reach the whole host
(stated as a recursive write of ``/``). Files named to them are read or
written (``--env-file``, ``-o``, ``--kubeconfig``, ``kubectl cp``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from gateway._programs._rows import (
    DATA,
    FOLLOW,
    LISTEN,
    NETWORK,
    READ,
    RUN_PROGRAM,
    WRITE,
    Effect,
    Implicit,
    Mode,
    Operands,
    OptionSpec,
    ProgramRow,
    Role,
    role,
)
from gateway._programs._tables._common import NO_OPERANDS, row

__all__ = ["CLUSTER_TABLES"]

_HOST_WIDE: Final = Effect(kind="write", action="write", recursive=True, value="/", fixed=True)
"""The container reaches the whole host (privileged, added capabilities, the API socket)."""
_BIND: Final = Effect(kind="write", action="write", recursive=True, form="bind_mount")
_MOUNT: Final = Effect(kind="write", action="write", recursive=True, form="mount_spec")
_DETACHED: Final = Effect(kind="lifetime", action="detached")
_READ_TREE: Final = Effect(kind="read", recursive=True)
_REMOTE_OR_READ: Final = Effect(kind="read", form="remote_path")
_REMOTE_OR_WRITE: Final = Effect(kind="write", action="write", form="remote_path")
_RUNS_IN_CONTAINER: Final = Role(effects=(RUN_PROGRAM,), arguments=True)
_NAMES: Final = Operands(rest=DATA)
"""Operands that name containers, services or resources."""


def _daemon(via: str = "the Docker daemon") -> Implicit:
    return Implicit(effect=Effect(kind="network", action="connect"), via=via)


# ───────────────────────── docker ─────────────────────────

_DOCKER_GLOBAL: Final[tuple[OptionSpec, ...]] = (
    ("--config =", READ),
    "-c --context =",
    "-D --debug",
    ("-H --host =", NETWORK),
    "-l --log-level =",
    "--tls",
    ("--tlscacert =", READ),
    ("--tlscert =", READ),
    ("--tlskey =", READ),
    "--tlsverify",
    "-v --version",
    "--help",
)

_CONTAINER_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    "--add-host =",
    "--annotation =",
    "-a --attach =",
    "--blkio-weight =",
    "--blkio-weight-device =",
    ("--cap-add =", _HOST_WIDE),
    "--cap-drop =",
    "--cgroup-parent =",
    "--cgroupns =",
    ("--cidfile =", WRITE),
    "--cpu-count =",
    "--cpu-percent =",
    "--cpu-period =",
    "--cpu-quota =",
    "--cpu-rt-period =",
    "--cpu-rt-runtime =",
    "-c --cpu-shares =",
    "--cpus =",
    "--cpuset-cpus =",
    "--cpuset-mems =",
    ("-d --detach", _DETACHED),
    "--detach-keys =",
    ("--device =", WRITE),
    "--device-cgroup-rule =",
    "--device-read-bps =",
    "--device-read-iops =",
    "--device-write-bps =",
    "--device-write-iops =",
    "--disable-content-trust",
    "--dns =",
    "--dns-option =",
    "--dns-search =",
    "--domainname =",
    ("--entrypoint =", RUN_PROGRAM),
    "-e --env =",
    ("--env-file =", READ),
    "--expose =",
    "--gpus =",
    "--group-add =",
    ("--health-cmd =", RUN_PROGRAM),
    "--health-interval =",
    "--health-retries =",
    "--health-start-interval =",
    "--health-start-period =",
    "--health-timeout =",
    "--help",
    "-h --hostname =",
    "--init",
    "-i --interactive",
    "--io-maxbandwidth =",
    "--io-maxiops =",
    "--ip =",
    "--ip6 =",
    "--ipc =",
    "--isolation =",
    "--kernel-memory =",
    "-l --label =",
    ("--label-file =", READ),
    "--link =",
    "--link-local-ip =",
    "--log-driver =",
    "--log-opt =",
    "--mac-address =",
    "-m --memory =",
    "--memory-reservation =",
    "--memory-swap =",
    "--memory-swappiness =",
    ("--mount =", _MOUNT),
    "--name =",
    "--network --net =",
    "--network-alias =",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--oom-score-adj =",
    ("--pid =", _HOST_WIDE),
    "--pids-limit =",
    "--platform =",
    ("--privileged", _HOST_WIDE),
    ("-p --publish =", LISTEN),
    ("-P --publish-all", LISTEN),
    "--pull =",
    "-q --quiet",
    "--read-only",
    ("--restart =", _DETACHED),
    "--rm",
    "--runtime =",
    ("--security-opt =", _HOST_WIDE),
    "--shm-size =",
    "--stop-signal =",
    "--stop-timeout =",
    "--storage-opt =",
    "--sysctl =",
    "--tmpfs =",
    "-t --tty",
    "--ulimit =",
    ("--use-api-socket", _HOST_WIDE),
    "-u --user =",
    ("--userns =", _HOST_WIDE),
    ("--uts =", _HOST_WIDE),
    ("-v --volume =", _BIND),
    "--volume-driver =",
    ("--volumes-from =", _HOST_WIDE),
    "-w --workdir =",
)


def _docker(
    *options: OptionSpec,
    facts: tuple[Implicit, ...] = (),
    operands: Operands = NO_OPERANDS,
    options_end_after: int | None = None,
    modes: tuple[Mode, ...] = (),
) -> ProgramRow:
    return row(
        *options,
        "--help",
        abbreviations=False,
        inherit=True,
        operands=operands,
        options_end_after=options_end_after,
        modes=modes,
        facts=(_daemon(), *facts),
    )


_IMAGE_RUNS: Final = Implicit(effect=RUN_PROGRAM, via="the image's command")
# docker run [OPTIONS] IMAGE [COMMAND [ARG…]]
_DOCKER_RUN: Final = _docker(
    *(spec for spec in _CONTAINER_OPTIONS if spec != "--help"),
    options_end_after=1,
    operands=Operands(head=(DATA, _RUNS_IN_CONTAINER)),
    facts=(_IMAGE_RUNS, Implicit(effect=NETWORK, via="the image registry")),
)
_DOCKER_EXEC: Final = _docker(
    ("-d --detach", _DETACHED),
    "--detach-keys =",
    "-e --env =",
    ("--env-file =", READ),
    "-i --interactive",
    ("--privileged", _HOST_WIDE),
    "-t --tty",
    "-u --user =",
    "-w --workdir =",
    options_end_after=1,
    operands=Operands(head=(DATA, _RUNS_IN_CONTAINER)),
)
_DOCKER_BUILD: Final = _docker(
    "--add-host =",
    "--build-arg =",
    "--cache-from =",
    "--cache-to =",
    "--cgroup-parent =",
    "--compress",
    "--cpu-period =",
    "--cpu-quota =",
    "-c --cpu-shares =",
    "--cpuset-cpus =",
    "--cpuset-mems =",
    "--disable-content-trust",
    ("-f --file =", READ),
    "--force-rm",
    ("--iidfile =", WRITE),
    "--isolation =",
    "--label =",
    "-m --memory =",
    "--memory-swap =",
    "--network =",
    "--no-cache",
    "--platform =",
    "--pull",
    "-q --quiet",
    "--rm",
    ("--security-opt =", _HOST_WIDE),
    "--shm-size =",
    "--squash",
    "-t --tag =",
    "--target =",
    "--ulimit =",
    "--progress =",
    "--load",
    "--push",
    ("-o --output =", Effect(kind="write", action="write", recursive=True, value=None, fixed=True)),
    ("--secret =", Effect(kind="read", value=None, fixed=True)),
    ("--ssh =", Effect(kind="read", value=None, fixed=True)),
    "--provenance =",
    "--sbom =",
    "--builder =",
    ("--allow =", _HOST_WIDE),
    operands=Operands(rest=role(_READ_TREE)),
    facts=(
        Implicit(effect=RUN_PROGRAM, via="the Dockerfile's RUN steps"),
        Implicit(effect=NETWORK, via="the image registry"),
    ),
)
_FILTERS: Final[tuple[OptionSpec, ...]] = (
    "-f --filter =",
    "--format =",
    "--no-trunc",
    "-q --quiet",
)
_DOCKER_READ: Final = _docker(*_FILTERS, "-a --all", "-s --size", "-n --last =", "-l --latest")
_DOCKER_IMAGES: Final = _docker(*_FILTERS, "-a --all", "--digests", "--tree")
_DOCKER_LOGS: Final = _docker(
    "--details",
    ("-f --follow", FOLLOW),
    "--since =",
    "-n --tail =",
    "-t --timestamps",
    "--until =",
)
_DOCKER_INSPECT: Final = _docker("-f --format =", "-s --size", "--type =")
_DOCKER_STATS: Final = _docker(
    "-a --all",
    "--format =",
    "--no-stream",
    "--no-trunc",
    facts=(Implicit(effect=FOLLOW, via="docker stats", unless=frozenset({"--no-stream"})),),
)
_DOCKER_CHANGES: Final = _docker(
    "-f --force",
    "-s --signal =",
    "-t --timeout =",
    "-v --volumes",
    "-l --link",
    "--no-prune",
    "-a --attach",
    "-i --interactive",
)
_DOCKER_CP: Final = _docker(
    "-a --archive",
    "-L --follow-link",
    "-q --quiet",
    operands=Operands(tail=(role(_REMOTE_OR_WRITE),), rest=role(_REMOTE_OR_READ)),
)
_DOCKER_LOGIN: Final = _docker(
    "-p --password =",
    "--password-stdin",
    "-u --username =",
    facts=(
        Implicit(effect=NETWORK, via="the registry"),
        Implicit(
            effect=Effect(kind="write", action="write", value="~/.docker/config.json"),
            via="the credentials",
        ),
    ),
)
_DOCKER_SAVE: Final = _docker(("-o --output =", WRITE), "--platform =")
_DOCKER_LOAD: Final = _docker(("-i --input =", READ), "-q --quiet", "--platform =")
_DOCKER_VERSION: Final = _docker("-f --format =")
_DOCKER_COMPOSE_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    ("-f --file =", READ),
    "-p --project-name =",
    ("--project-directory =", Effect(kind="cwd")),
    ("--env-file =", READ),
    "--profile =",
    "--ansi =",
    "--progress =",
    "--parallel =",
    "--compatibility",
    "--dry-run",
    "--all-resources",
)


def _compose(*options: OptionSpec, facts: tuple[Implicit, ...] = ()) -> ProgramRow:
    return _docker(*options, operands=_NAMES, facts=facts)


_COMPOSE_RUNS: Final = (
    Implicit(effect=RUN_PROGRAM, via="the services' commands"),
    Implicit(effect=NETWORK, via="the image registry"),
)
_DOCKER_COMPOSE: Final = row(
    *_DOCKER_COMPOSE_OPTIONS,
    "--help",
    "-v --version",
    abbreviations=False,
    inherit=True,
    subcommands={
        "up": _compose(
            ("-d --detach", _DETACHED),
            "--build",
            "--no-build",
            "--force-recreate",
            "--no-recreate",
            "--remove-orphans",
            "--abort-on-container-exit",
            "--exit-code-from =",
            "--scale =",
            "--wait",
            "--pull =",
            "-V --renew-anon-volumes",
            "--no-deps",
            "--no-start",
            "-t --timeout =",
            "--attach =",
            "--quiet-pull",
            facts=_COMPOSE_RUNS,
        ),
        "run": _compose(
            ("-d --detach", _DETACHED),
            "--rm",
            "-e --env =",
            "--entrypoint =",
            "--name =",
            "--no-deps",
            ("-p --publish =", LISTEN),
            "--service-ports",
            "-T --no-TTY",
            "-u --user =",
            ("-v --volume =", _BIND),
            "-w --workdir =",
            facts=_COMPOSE_RUNS,
        ),
        "exec": _compose(
            ("-d --detach", _DETACHED),
            "-e --env =",
            "--index =",
            "-T --no-TTY",
            ("--privileged", _HOST_WIDE),
            "-u --user =",
            "-w --workdir =",
            facts=_COMPOSE_RUNS,
        ),
        "build": _compose(
            "--no-cache", "--pull", "-q --quiet", "--build-arg =", facts=_COMPOSE_RUNS
        ),
        "start": _compose(facts=_COMPOSE_RUNS),
        "restart": _compose("-t --timeout =", facts=_COMPOSE_RUNS),
        "down": _compose("-v --volumes", "--remove-orphans", "--rmi =", "-t --timeout ="),
        "stop": _compose("-t --timeout ="),
        "rm": _compose("-f --force", "-s --stop", "-v"),
        "kill": _compose("-s --signal ="),
        "pull": _compose(
            "-q --quiet",
            "--ignore-pull-failures",
            facts=(Implicit(effect=NETWORK, via="the image registry"),),
        ),
        "push": _compose("-q --quiet", facts=(Implicit(effect=NETWORK, via="the image registry"),)),
        "ps": _compose("-a --all", "-q --quiet", "--services", "--format =", "--filter ="),
        "logs": _compose(
            ("-f --follow", FOLLOW),
            "-t --timestamps",
            "-n --tail =",
            "--since =",
            "--until =",
            "--no-color",
            "--no-log-prefix",
        ),
        "config": _compose(
            "-q --quiet",
            "--services",
            "--volumes",
            "--format =",
            "--resolve-image-digests",
            ("-o --output =", WRITE),
        ),
        "ls": _compose("-a --all", "-q --quiet", "--format =", "--filter ="),
        "images": _compose("-q --quiet", "--format ="),
        "top": _compose(),
        "version": _compose("--short", "-f --format ="),
    },
)


def _container_group(run_row: ProgramRow) -> ProgramRow:
    """``docker container …``: the same commands as the top-level ones."""
    return row(
        "--help",
        abbreviations=False,
        subcommands={
            "run": run_row,
            "create": run_row,
            "exec": _DOCKER_EXEC,
            "ls": _DOCKER_READ,
            "ps": _DOCKER_READ,
            "list": _DOCKER_READ,
            "logs": _DOCKER_LOGS,
            "inspect": _DOCKER_INSPECT,
            "stats": _DOCKER_STATS,
            "top": _DOCKER_INSPECT,
            "port": _DOCKER_INSPECT,
            "diff": _DOCKER_INSPECT,
            "cp": _DOCKER_CP,
            **dict.fromkeys(
                (
                    "start",
                    "stop",
                    "restart",
                    "kill",
                    "rm",
                    "pause",
                    "unpause",
                    "rename",
                    "wait",
                    "prune",
                    "attach",
                ),
                _DOCKER_CHANGES,
            ),
        },
    )


_DOCKER_IMAGE_GROUP: Final = row(
    "--help",
    abbreviations=False,
    subcommands={
        "ls": _DOCKER_IMAGES,
        "list": _DOCKER_IMAGES,
        "inspect": _DOCKER_INSPECT,
        "history": _docker("-H --human", "--no-trunc", "-q --quiet", "--format ="),
        "build": _DOCKER_BUILD,
        "pull": _docker(
            "-a --all-tags",
            "-q --quiet",
            "--platform =",
            facts=(Implicit(effect=NETWORK, via="the image registry"),),
        ),
        "push": _docker(
            "-a --all-tags",
            "-q --quiet",
            facts=(Implicit(effect=NETWORK, via="the image registry"),),
        ),
        "rm": _DOCKER_CHANGES,
        "prune": _docker("-a --all", "-f --force", "--filter ="),
        "tag": _DOCKER_CHANGES,
        "save": _DOCKER_SAVE,
        "load": _DOCKER_LOAD,
    },
)
_DOCKER_OBJECTS: Final = _docker(
    *_FILTERS, "-d --driver =", "-o --opt =", "--label =", "--force", "--scope ="
)

_DOCKER: Final = row(
    *_DOCKER_GLOBAL,
    abbreviations=False,
    subcommands={
        "run": _DOCKER_RUN,
        "create": _DOCKER_RUN,
        "exec": _DOCKER_EXEC,
        "build": _DOCKER_BUILD,
        "compose": _DOCKER_COMPOSE,
        "ps": _DOCKER_READ,
        "images": _DOCKER_IMAGES,
        "logs": _DOCKER_LOGS,
        "inspect": _DOCKER_INSPECT,
        "top": _DOCKER_INSPECT,
        "port": _DOCKER_INSPECT,
        "diff": _DOCKER_INSPECT,
        "history": _docker("-H --human", "--no-trunc", "-q --quiet", "--format ="),
        "stats": _DOCKER_STATS,
        "events": _docker(
            "-f --filter =",
            "--format =",
            "--since =",
            "--until =",
            facts=(Implicit(effect=FOLLOW, via="docker events", unless=frozenset({"--until"})),),
        ),
        "version": _DOCKER_VERSION,
        "info": _DOCKER_VERSION,
        "search": _docker(
            *_FILTERS, "--limit =", facts=(Implicit(effect=NETWORK, via="the image registry"),)
        ),
        "pull": _docker(
            "-a --all-tags",
            "-q --quiet",
            "--platform =",
            facts=(Implicit(effect=NETWORK, via="the image registry"),),
        ),
        "push": _docker(
            "-a --all-tags",
            "-q --quiet",
            facts=(Implicit(effect=NETWORK, via="the image registry"),),
        ),
        "login": _DOCKER_LOGIN,
        "logout": _docker(),
        "cp": _DOCKER_CP,
        "save": _DOCKER_SAVE,
        "load": _DOCKER_LOAD,
        "export": _DOCKER_SAVE,
        "import": _docker(
            "-c --change =",
            "-m --message =",
            "--platform =",
            operands=Operands(head=(role(READ),), rest=DATA),
        ),
        "commit": _docker("-a --author =", "-c --change =", "-m --message =", "-p --pause"),
        **dict.fromkeys(
            (
                "start",
                "stop",
                "restart",
                "kill",
                "rm",
                "rmi",
                "pause",
                "unpause",
                "rename",
                "wait",
                "tag",
                "update",
                "attach",
            ),
            _DOCKER_CHANGES,
        ),
        "container": _container_group(_DOCKER_RUN),
        "image": _DOCKER_IMAGE_GROUP,
        "network": row(
            "--help",
            abbreviations=False,
            subcommands=dict.fromkeys(
                ("ls", "inspect", "create", "rm", "connect", "disconnect", "prune"), _DOCKER_OBJECTS
            ),
        ),
        "volume": row(
            "--help",
            abbreviations=False,
            subcommands=dict.fromkeys(("ls", "inspect", "create", "rm", "prune"), _DOCKER_OBJECTS),
        ),
        "context": row(
            "--help",
            abbreviations=False,
            subcommands=dict.fromkeys(("ls", "inspect", "show", "use"), _docker(*_FILTERS)),
        ),
        "system": row(
            "--help",
            abbreviations=False,
            subcommands={
                "df": _docker("-v --verbose", "--format ="),
                "info": _DOCKER_VERSION,
                "prune": _docker("-a --all", "-f --force", "--volumes", "--filter ="),
                "events": _docker("-f --filter =", "--format =", "--since =", "--until ="),
            },
        ),
    },
    environment=frozenset({"DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_CERT_PATH"}),
)

# ───────────────────────── kubectl ─────────────────────────

_KUBECTL_GLOBAL: Final[tuple[OptionSpec, ...]] = (
    ("--kubeconfig =", READ),
    "--context =",
    "--cluster =",
    "--user =",
    "-n --namespace =",
    ("-s --server =", NETWORK),
    "--token =",
    "--as =",
    "--as-group =",
    "--as-uid =",
    ("--certificate-authority =", READ),
    ("--client-certificate =", READ),
    ("--client-key =", READ),
    "--insecure-skip-tls-verify",
    "--request-timeout =",
    "-v --v =",
    "--match-server-version",
    ("--cache-dir =", Effect(kind="write", action="write", recursive=True)),
    "--tls-server-name =",
    "--username =",
    "--password =",
    "--warnings-as-errors",
    "--disable-compression",
    "--profile =",
    ("--profile-output =", WRITE),
    "-h --help",
)
_SELECTS: Final[tuple[OptionSpec, ...]] = (
    "-o --output =",
    "-l --selector =",
    "--field-selector =",
    "-A --all-namespaces",
    ("-f --filename =", READ),
    "-R --recursive",
    ("-k --kustomize =", _READ_TREE),
    "--show-labels",
    "--sort-by =",
    "-L --label-columns =",
    "--no-headers",
    "--chunk-size =",
    "--ignore-not-found",
    "--template =",
    "--show-kind",
    "--show-managed-fields",
    "--server-print",
    "--subresource =",
    "--allow-missing-template-keys",
    "--output-watch-events",
)
_API: Final = Implicit(effect=NETWORK, via="the cluster's API server")


def _kubectl(
    *options: OptionSpec,
    facts: tuple[Implicit, ...] = (),
    operands: Operands = _NAMES,
    options_end_after: int | None = None,
) -> ProgramRow:
    return row(
        *options,
        abbreviations=False,
        inherit=True,
        operands=operands,
        options_end_after=options_end_after,
        facts=(_API, *facts),
    )


_KUBECTL_GET: Final = _kubectl(
    *_SELECTS,
    ("-w --watch", FOLLOW),
    ("--watch-only", FOLLOW),
    "--raw =",
)
_KUBECTL_DESCRIBE: Final = _kubectl(*_SELECTS, "--show-events")
_KUBECTL_LOGS: Final = _kubectl(
    ("-f --follow", FOLLOW),
    "-c --container =",
    "--tail =",
    "--since =",
    "--since-time =",
    "--timestamps",
    "-p --previous",
    "--all-containers",
    "-l --selector =",
    "--prefix",
    "--max-log-requests =",
    "--limit-bytes =",
    "--pod-running-timeout =",
    "--ignore-errors",
    "--insecure-skip-tls-verify-backend",
)
_CHANGES_CLUSTER: Final[tuple[OptionSpec, ...]] = (
    *_SELECTS,
    "--dry-run [=]",
    "--server-side",
    "--force",
    "--grace-period =",
    "--timeout =",
    "--wait",
    "--prune",
    "--validate [=]",
    "--field-manager =",
    "--overwrite",
    "--all",
    "--cascade [=]",
    "--now",
    "-p --patch =",
    ("--patch-file =", READ),
    "--type =",
    "--replicas =",
    "--current-replicas =",
    "--record",
    "--save-config",
    "--port =",
    "--target-port =",
    "--name =",
    "--image =",
    "--ignore-daemonsets",
    "--delete-emptydir-data",
    "--local",
    "--force-conflicts",
)
_KUBECTL_CHANGES: Final = _kubectl(*_CHANGES_CLUSTER)
# kubectl reads its flags anywhere up to `--`: `kubectl exec POD -c C -- CMD ARGS`.
_KUBECTL_EXEC: Final = _kubectl(
    "-c --container =",
    "-i --stdin",
    "-t --tty",
    "-q --quiet",
    ("-f --filename =", READ),
    "--pod-running-timeout =",
    operands=Operands(head=(DATA, _RUNS_IN_CONTAINER)),
)
_KUBECTL_RUN: Final = _kubectl(
    "--image =",
    "--restart =",
    "--rm",
    "-i --stdin",
    "-t --tty",
    "--env =",
    "--port =",
    "--labels -l =",
    "--command",
    "--overrides =",
    "--dry-run [=]",
    "-o --output =",
    "--attach",
    "--privileged",
    "--image-pull-policy =",
    operands=Operands(head=(DATA, _RUNS_IN_CONTAINER)),
    facts=(Implicit(effect=RUN_PROGRAM, via="the image's command"),),
)
_KUBECTL_FORWARD: Final = _kubectl(
    "--address =",
    "--pod-running-timeout =",
    operands=Operands(rest=DATA),
    facts=(
        Implicit(effect=LISTEN, via="the forwarded ports"),
        Implicit(effect=FOLLOW, via="the forwarding"),
    ),
)
_KUBECTL_CP: Final = _kubectl(
    "-c --container =",
    "--no-preserve",
    "--retries =",
    operands=Operands(tail=(role(_REMOTE_OR_WRITE),), rest=role(_REMOTE_OR_READ)),
)
_KUBECONFIG: Final = Effect(kind="write", action="write", value="~/.kube/config")
_KUBECTL_CONFIG: Final = row(
    abbreviations=False,
    inherit=True,
    subcommands={
        "view": row(
            "--raw",
            "--minify",
            "--flatten",
            "-o --output =",
            "--merge [=]",
            abbreviations=False,
            inherit=True,
            operands=NO_OPERANDS,
            facts=(
                Implicit(effect=Effect(kind="read", value="~/.kube/config"), via="the kubeconfig"),
            ),
        ),
        **dict.fromkeys(
            ("get-contexts", "current-context", "get-clusters", "get-users"),
            row(
                "-o --output =",
                "--no-headers",
                abbreviations=False,
                inherit=True,
                operands=Operands(rest=DATA),
            ),
        ),
        **dict.fromkeys(
            (
                "use-context",
                "use",
                "set-context",
                "set-cluster",
                "set-credentials",
                "set",
                "unset",
                "delete-context",
                "delete-cluster",
                "delete-user",
                "rename-context",
            ),
            row(
                "--current",
                abbreviations=False,
                inherit=True,
                operands=_NAMES,
                facts=(Implicit(effect=_KUBECONFIG, via="the kubeconfig"),),
            ),
        ),
    },
)

_KUBECTL: Final = row(
    *_KUBECTL_GLOBAL,
    abbreviations=False,
    subcommands={
        "get": _KUBECTL_GET,
        "describe": _KUBECTL_DESCRIBE,
        "logs": _KUBECTL_LOGS,
        "explain": _kubectl("--recursive", "--api-version =", "-o --output ="),
        "api-resources": _kubectl(
            "-o --output =",
            "--namespaced [=]",
            "--api-group =",
            "--verbs =",
            "--sort-by =",
            "--no-headers",
            "--cached",
        ),
        "api-versions": _kubectl(),
        "version": _kubectl("--client", "-o --output =", "--short"),
        "cluster-info": _kubectl(),
        "top": _kubectl(
            "--containers",
            "-l --selector =",
            "--sort-by =",
            "-A --all-namespaces",
            "--no-headers",
            "--use-protocol-buffers",
        ),
        "events": _kubectl(
            "-A --all-namespaces",
            "--for =",
            "--types =",
            ("-w --watch", FOLLOW),
            "-o --output =",
            "--no-headers",
        ),
        "auth": row(
            abbreviations=False,
            inherit=True,
            subcommands={
                "can-i": _kubectl("-A --all-namespaces", "--list", "-q --quiet", "--subresource ="),
                "whoami": _kubectl("-o --output ="),
            },
        ),
        **dict.fromkeys(
            (
                "apply",
                "create",
                "delete",
                "replace",
                "patch",
                "scale",
                "label",
                "annotate",
                "expose",
                "autoscale",
                "cordon",
                "uncordon",
                "drain",
                "taint",
                "set",
                "rollout",
            ),
            _KUBECTL_CHANGES,
        ),
        "exec": _KUBECTL_EXEC,
        "run": _KUBECTL_RUN,
        "debug": _KUBECTL_RUN,
        "attach": _KUBECTL_EXEC,
        "port-forward": _KUBECTL_FORWARD,
        "proxy": _kubectl(
            "-p --port =",
            "--address =",
            "--accept-hosts =",
            "--www =",
            "--api-prefix =",
            facts=(
                Implicit(effect=LISTEN, via="the proxy"),
                Implicit(effect=FOLLOW, via="the proxy"),
            ),
        ),
        "cp": _KUBECTL_CP,
        "config": _KUBECTL_CONFIG,
        "edit": _kubectl(*_SELECTS, facts=(Implicit(effect=RUN_PROGRAM, via="the editor"),)),
        "diff": _kubectl(*_SELECTS, facts=(Implicit(effect=RUN_PROGRAM, via="the diff program"),)),
    },
    environment=frozenset({"KUBECONFIG", "KUBE_EDITOR", "EDITOR", "KUBECTL_EXTERNAL_DIFF"}),
)

CLUSTER_TABLES: Final[Mapping[str, ProgramRow]] = {
    "docker": _DOCKER,
    "kubectl": _KUBECTL,
}
"""Basename → row, for docker and kubectl."""
