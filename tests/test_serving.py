"""The shared ``gateway serve`` launcher of the tests: what it waits for, and what it says when the service cannot start."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import serving


def test_it_waits_for_every_announced_line_and_stops_the_service(tmp_path: Path) -> None:
    socket = tmp_path / "s" / "gateway.sock"
    with serving.gateway_serve(
        "--token-file", str(tmp_path / "token"), "--socket", str(socket), cwd=tmp_path
    ) as served:
        assert [line.split(":", 1)[1][:12] for line in served.lines] == [
            " the approva",
            " bearer toke",
            " hooks forwa",
        ]
        assert served.announced(serving.SOCKET) == f"{socket} (mode 0600)"
        info = httpx.get(
            f"{served.url}v1/info",
            headers={"Authorization": f"Bearer {served.token}"},
            trust_env=False,
            timeout=serving.WAIT,
        )
        assert info.status_code == 200
    assert served.process.returncode == 0


def test_a_service_that_cannot_start_is_said_so_with_its_own_sentence(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[serve]\nport = 99999\n")
    log = tmp_path / "serve.log"
    with (
        pytest.raises(
            AssertionError, match=r"ended before it was ready: gateway serve: Invalid config"
        ),
        serving.gateway_serve("--config", str(config), "--no-socket", cwd=tmp_path, log=log),
    ):
        pass


def test_the_lines_it_waits_for_follow_the_arguments() -> None:
    assert serving.announcements(["--no-socket"]) == (serving.PAGE, serving.TOKEN)
    assert serving.announcements(["--broker", "nats://x", "--no-socket"]) == (
        serving.PAGE,
        serving.TOKEN,
        serving.REPLICA,
    )
    assert serving.announcements([]) == (serving.PAGE, serving.TOKEN, serving.SOCKET)
