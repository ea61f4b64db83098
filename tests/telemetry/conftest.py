"""
Real OTLP receivers for the telemetry tests: Arize Phoenix for traces, and a plain OTLP/HTTP
metrics receiver.

Phoenix (the ``arize-phoenix`` package the dev extra installs) runs as a
subprocess on free loopback ports (its HTTP port takes OTLP traces and
serves its API; its gRPC collector gets a free port too), with its working
directory and HOME in a temporary directory, its own telemetry and external
resources off, so it touches no network. It starts once per test session —
it takes up to a minute on a busy machine — and is stopped at the end.

Phoenix takes traces, not metrics: the metrics the service exports over OTLP
go to `MetricsReceiver`, an HTTP server that decodes real
``ExportMetricsServiceRequest`` messages with the protobuf classes the OTLP
exporter ships.
"""

from __future__ import annotations

import gzip
import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest

START_BOUND: Final = 360.0
"""Seconds Phoenix may take to start on a busy machine (about a minute is usual; two under load)."""


def free_port() -> int:
    """A free loopback port (bound and released: another process may still take it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Phoenix:
    """A running Phoenix: its base URL (UI, OTLP/HTTP at ``/v1/traces``, and its REST API)."""

    url: str
    log: Path


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:  # noqa: S310 -- our own loopback URL
            return bool(answer.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    """One Phoenix for the whole test session."""
    place = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = free_port(), free_port()
    environment = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(place),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(place / "working"),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        "PYTHONWARNINGS": "ignore",
    }
    log = place / "phoenix.log"
    url = f"http://127.0.0.1:{port}"
    with (
        log.open("wb") as output,
        subprocess.Popen(
            [sys.executable, "-m", "phoenix.server.main", "serve"],
            cwd=place,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        ) as process,
    ):
        try:
            deadline = time.monotonic() + START_BOUND
            while not _healthy(url):
                if process.poll() is not None:
                    pytest.fail(
                        f"Phoenix exited ({process.returncode}) before it served:\n{log.read_text()[-3000:]}"
                    )
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"Phoenix did not serve within {START_BOUND:g} s:\n{log.read_text()[-3000:]}"
                    )
                time.sleep(0.5)
            yield Phoenix(url, log)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)


@dataclass
class MetricsReceiver:
    """An OTLP/HTTP metrics receiver: what it was sent, decoded."""

    url: str
    points: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def names(self) -> set[str]:
        """The metric names received so far."""
        with self.lock:
            return set(self.points)


def _attributes(items: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in items:
        value = item.value
        kind = value.WhichOneof("value")
        found[item.key] = getattr(value, kind) if kind else None
    return found


@pytest.fixture
def metrics_receiver() -> Iterator[MetricsReceiver]:
    """A receiver on a free loopback port, stopped after the test."""
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest,
        ExportMetricsServiceResponse,
    )

    receiver = MetricsReceiver(url="")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path != "/v1/metrics":
                self.send_response(404)
                self.end_headers()
                return
            request = ExportMetricsServiceRequest()
            request.ParseFromString(body)
            with receiver.lock:
                receiver.requests += 1
                for resource in request.resource_metrics:
                    for scope in resource.scope_metrics:
                        for metric in scope.metrics:
                            kind = metric.WhichOneof("data")
                            data = getattr(metric, kind)
                            for point in data.data_points:
                                receiver.points.setdefault(metric.name, []).append(
                                    {
                                        "kind": kind,
                                        "unit": metric.unit,
                                        "attributes": _attributes(point.attributes),
                                        "value": getattr(point, "as_int", None)
                                        or getattr(point, "as_double", None)
                                        or getattr(point, "count", None),
                                    }
                                )
            answer = ExportMetricsServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
