"""Hostile calls replayed through `gateway run` with real bubblewrap, judged by their harm."""
