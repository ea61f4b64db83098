"""The bashlex worker process: a worker that misses its deadline is killed and leaves nothing open."""

from __future__ import annotations

import time

from gateway._shell._worker import WorkerPool, _Worker


def test_a_killed_worker_closes_both_of_its_pipes() -> None:
    worker = _Worker()
    worker.kill()
    assert worker.process.poll() is not None
    assert worker.process.stdin is not None
    assert worker.process.stdin.closed
    assert worker.process.stdout is not None
    assert worker.process.stdout.closed


def test_a_reading_past_its_deadline_is_unmeasured_and_the_worker_is_replaced() -> None:
    pool = WorkerPool()
    try:
        result = pool.read("echo hi", (), time.monotonic())  # the deadline has passed already
        assert result.program is None
        assert result.reason is not None
        again = pool.read("echo hi", (), time.monotonic() + 60.0)
        assert again.program is not None
    finally:
        pool.close()
