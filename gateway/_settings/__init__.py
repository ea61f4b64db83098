"""
Settings: the configuration, the fleet's tiers and tokens, plugin loading, tool rows.

`_config` is the one TOML schema, validated in full at start-up; `_tiers`
and `_tokens` are the fleet's; `_plugins` loads entry points; `_tools` is
the table of tools a call may name. Below both the record and the
deciding, which read them; above the meaning layer (`_config` holds users'
option tables).

Its place: not a stage in the order of a review (calls → read → plan →
programs → review → decide → record → observe → serve); the review, the
deciding and the record read it. In the import order it is layer 5 of 11,
and it may import only `_calls/`, `_work/`, `_read/`, `_programs/`, `_plan/`
(`[tool.importlinter]` in pyproject.toml holds the layers; docs/design.md
draws them).
"""
