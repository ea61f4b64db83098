"""Bash itself as the test oracle: a confined runner and the differential harness built on it."""
