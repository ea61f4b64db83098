"""
The vocabulary: what crosses every seam of a review.

Frozen msgspec Structs and the constants they use: the call (`_calls`),
its plan (`_plans`) and effects (`_effects`), the verdict (`_verdicts`),
the events published about it (`_events`), the confinement a verdict
may carry (`_confinement`), where paths lie (`_places`), digests, errors,
text in sentences and the version. It imports no other part of the
gateway: the first word of a review and the bottom layer.

Its place: first in the order of a review (calls → read → plan → programs →
review → decide → record → observe → serve). In the import order it is layer
1 of 11, and it imports no other part of the gateway (`[tool.importlinter]`
in pyproject.toml holds the layers; docs/design.md draws them).
"""
