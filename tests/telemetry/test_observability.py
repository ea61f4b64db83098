"""
docs/observability.md and its Grafana dashboard are made from, and checked against, the code:
the metrics table is current, and every series and label the dashboard queries is exported.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gateway import ConfigError, load_config
from gateway._cli._common import CommandError
from gateway._cli._otlp import export_headers, open_exporters
from gateway._observe._metrics import METRICS, metric_table, prometheus_names

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "observability.md"
DASHBOARD = ROOT / "docs" / "grafana" / "agent-gateway.json"

_SERIES = re.compile(r"\bagent_gateway_[a-z_]+\b")
_BY = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
_MATCHERS = re.compile(r"\{([^}]*)\}")
# PromQL's own words and Grafana's variables are not labels.
_PROMQL_LABELS = {"le"}


def _labels(metric_name: str) -> set[str]:
    for metric in METRICS:
        if metric_name in prometheus_names(metric):
            found = {name.replace(".", "_") for name in metric.attributes}
            return found | ({"le"} if metric_name.endswith("_bucket") else set())
    raise AssertionError(
        f"the dashboard queries {metric_name!r}, which the gateway does not export"
    )


def _expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_the_metrics_table_is_made_from_the_code() -> None:
    text = PAGE.read_text(encoding="utf-8")
    match = re.search(r"<!-- metrics: begin -->\n(.*?)<!-- metrics: end -->", text, re.DOTALL)
    assert match is not None
    assert match.group(1) == metric_table(), (
        "docs/observability.md's metrics table is out of date; paste gateway._observe._metrics.metric_table()"
    )


def test_every_series_the_dashboard_queries_is_exported_with_its_labels() -> None:
    expressions = _expressions()
    assert expressions
    for expression in expressions:
        used: set[str] = set()
        for group in _BY.findall(expression):
            used |= {label.strip() for label in group.split(",") if label.strip()}
        for group in _MATCHERS.findall(expression):
            used |= {m.split("=")[0].strip(" !~") for m in group.split(",") if "=" in m}
        series = set(_SERIES.findall(expression)) - used
        assert series, expression
        allowed = set.union(*(_labels(name) for name in series))
        assert used - allowed - _PROMQL_LABELS == set(), (expression, used - allowed)


def test_the_dashboard_shows_every_metric() -> None:
    text = " ".join(_expressions())
    missing = [m.name for m in METRICS if not any(name in text for name in prometheus_names(m))]
    assert missing == []


def test_the_dashboard_is_importable_json_with_a_datasource_variable() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert dashboard["uid"] == "agent-gateway"
    (variable,) = dashboard["templating"]["list"]
    assert variable["type"] == "datasource"
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}"


def test_telemetry_config_is_validated_in_one_sentence() -> None:
    config = load_config(
        b'[telemetry]\nendpoint = "http://127.0.0.1:4318"\nprotocol = "grpc"\nheaders = { "x-a" = "1" }\n'
    )
    assert config.telemetry.protocol == "grpc"
    assert config.telemetry.headers == {"x-a": "1"}
    for bad in (
        b'[telemetry]\nendpoint = "ftp://x"\n',
        b'[telemetry]\nprotocol = "carrier-pigeon"\n',
        b'[telemetry]\nheaders = { "bad name" = "1" }\n',
        b'[telemetry]\nendpoint = "off"\n',
        b"[telemetry]\nsurprise = 1\n",
    ):
        with pytest.raises(ConfigError, match=r"telemetry"):
            load_config(bad)


def test_without_an_endpoint_nothing_is_set_up() -> None:
    with open_exporters(load_config(b"").telemetry) as exporters:
        assert exporters == (None, None)


def test_the_headers_file_must_be_private_and_well_formed(tmp_path: Path) -> None:
    headers = tmp_path / "headers"
    headers.write_text("# the key\nAuthorization = Bearer abc\n\nx-b=2\n")
    headers.chmod(0o600)
    section = load_config(
        f'[telemetry]\nendpoint = "http://127.0.0.1:1"\nheaders = {{ "x-a" = "1" }}\nheaders-file = "{headers}"\n'.encode()
    ).telemetry
    assert export_headers(section) == {"x-a": "1", "authorization": "Bearer abc", "x-b": "2"}
    headers.chmod(0o644)
    with pytest.raises(CommandError, match="may be read by others"):
        export_headers(section)
    headers.chmod(0o600)
    headers.write_text("no equals sign\n")
    with pytest.raises(CommandError, match=r"Line 1 .* is not 'name=value'"):
        export_headers(section)


def test_exporters_are_sdk_providers_that_shut_down_cleanly() -> None:
    section = load_config(
        b'[telemetry]\nendpoint = "http://127.0.0.1:9"\nmetrics-endpoint = "off"\ntimeout = 0.5\n'
    ).telemetry
    with open_exporters(section) as exporters:
        assert exporters.meter_provider is None
        tracer = exporters.tracer_provider.get_tracer("t")
        with tracer.start_as_current_span("x") as span:
            assert span.is_recording()
