"""
Telemetry while no provider is set, and after one is set late.

With neither a tracer nor a meter provider (OpenTelemetry's API alone, its
proxy providers), a review builds no span and records no measurement, yet
gives every record what the API's no-op tracer would: a caller's trace
context when there is one. The API lets a host set its global providers after
the gateway started; from the next review on, spans and metrics appear, for
new and identical (replayed) calls alike.

The global providers can be set once per process, and no test may touch this
process's globals, so each case runs in a Python process of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Final

BOUND: Final = 120.0
"""Seconds a child process may take (imports and two gateways on a busy machine)."""

_CHILD: Final = textwrap.dedent(
    """
    import json, sys
    import anyio
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from gateway import Gateway, GatewayConfig
    from gateway.audit import read_audit_log
    from gateway.config import SinkConfig
    from gateway.events import VerdictReached, trace_context
    from gateway.testing import StaticApprover, make_call

    PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    def points(reader):
        data = reader.get_metrics_data()
        found = {}
        for resource in (data.resource_metrics if data else ()):
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    found[metric.name] = sum(
                        getattr(point, "count", None) or getattr(point, "value", 0)
                        for point in metric.data.data_points
                    )
        return found

    async def main(log):
        config = GatewayConfig(sinks={"audit": SinkConfig(plugin="jsonl", path=log, required=True)})
        out = {}
        async with Gateway(config, approvers=[StaticApprover("allow")]) as gateway:
            await gateway.review(make_call("ls", call_id="before-1"))
            await gateway.review(make_call("ls", call_id="before-2"))
            with trace_context({"traceparent": PARENT}):
                await gateway.review(make_call("ls", call_id="before-parent"))
            exporter = InMemorySpanExporter()
            tracer_provider = TracerProvider()
            tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
            reader = InMemoryMetricReader()
            trace.set_tracer_provider(tracer_provider)
            metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
            out["spans_before"] = len(exporter.get_finished_spans())
            await gateway.review(make_call("ls", call_id="after-identical"))
            await gateway.review(make_call("pwd", call_id="after-new"))
            with trace_context({"traceparent": PARENT}):
                await gateway.review(make_call("ls", call_id="after-parent"))
            spans = exporter.get_finished_spans()
            out["spans"] = sorted(span.name for span in spans)
            out["reviewed"] = sorted(
                dict(span.attributes or {}).get("gen_ai.tool.call.id", "")
                for span in spans
                if span.name == "gateway.review"
            )
            out["span_ids"] = {
                dict(span.attributes or {}).get("gen_ai.tool.call.id", ""): [
                    format(span.context.trace_id, "032x"),
                    format(span.context.span_id, "016x"),
                ]
                for span in spans
                if span.name == "gateway.review"
            }
            out["metrics"] = points(reader)
            out["hits"] = gateway.statistics().plan_cache_hits
        out["records"] = [
            [event.call_id, event.trace_id, event.span_id]
            for event in read_audit_log(log)
            if isinstance(event, VerdictReached)
        ]
        print(json.dumps(out))

    anyio.run(main, sys.argv[1])
    """
)


def _child(tmp_path: Path) -> dict[str, Any]:
    log = tmp_path / "audit.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(log)],
        capture_output=True,
        text=True,
        timeout=BOUND,
        cwd=tmp_path,
        check=False,
        env={
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PYTHONPATH": ":".join(sys.path),
        },
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_spans_and_metrics_appear_when_a_provider_is_set_after_the_gateway_started(
    tmp_path: Path,
) -> None:
    """No span while only the API is there; once providers are set, every later review has its span and metrics."""
    result = _child(tmp_path)
    assert result["spans_before"] == 0
    assert result["reviewed"] == ["after-identical", "after-new", "after-parent"]
    assert "gateway.plan" in result["spans"]  # the new call was read under its review span
    assert result["metrics"]["agent_gateway.verdicts"] == 3
    assert result["metrics"]["agent_gateway.review.duration"] == 3
    assert result["metrics"]["agent_gateway.audit.write.duration"] == 3
    assert result["hits"] >= 3  # identical calls were replayed, before and after


def test_records_carry_the_trace_context_as_the_no_op_tracer_gives_it(tmp_path: Path) -> None:
    """Without a provider a record has the caller's trace and span; with one, the review span's, in the caller's trace."""
    result = _child(tmp_path)
    records = {call_id: (trace_id, span_id) for call_id, trace_id, span_id in result["records"]}
    parent_trace, parent_span = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
    assert records["before-1"] == (None, None)
    assert records["before-2"] == (None, None)
    assert records["before-parent"] == (parent_trace, parent_span)
    for call_id in ("after-identical", "after-new", "after-parent"):
        assert records[call_id] == tuple(result["span_ids"][call_id])
    assert records["after-parent"][0] == parent_trace
    assert records["after-parent"][1] != parent_span
