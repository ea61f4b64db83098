"""
Observing: spans and metrics.

`_telemetry` holds the span helpers and the registry of span attributes,
`_metrics` the instruments. The orchestrator and the approvers call them
today; they will subscribe to events instead.

Its place: eighth in the order of a review (calls → read → plan → programs →
review → decide → record → observe → serve). In the import order it is layer
7 of 11, and it may import only `_calls/`, `_work/`, `_read/`, `_programs/`,
`_plan/`, `_settings/`, `_review/` (`[tool.importlinter]` in pyproject.toml
holds the layers; docs/design.md draws them).
"""
