"""
The page for a team, in a real headless browser (Debian's chromium, driven by Playwright).

Each card opens with one sentence saying what the call would do, riskiest
first; the history comes from the service (decisions made before the page
opened, kept across a reload), searchable and filterable, grouped by session
or agent, each saying who decided, when, with what note; a restart of the
service is noticed and said; at 390 px the Allow/Decline bar stays in view
over a long card; dark mode follows the system. Screenshots of each, at
desktop and phone widths, are kept in ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest
from playwright.async_api import Locator, Page

from gateway.config import SinkConfig
from gateway.fleet import Identity
from web.browser import artifact, browser, open_page, review
from web.support import (
    KEY_HEREDOC,
    WAIT,
    bash,
    config,
    decided,
    serve,
    team,
    three_decisions,
    wait_pending,
)

pytestmark = pytest.mark.anyio

ALICE = "alice-token-0123456789abcdef"
SHARED = "restart-token-0123456789abcdef"


@pytest.fixture
def anyio_backend() -> str:
    """Playwright's async API runs on asyncio."""
    return "asyncio"


async def _park(client: httpx.AsyncClient, group: Any, body: dict[str, Any]) -> dict[str, Any]:
    """Start a review that waits for a person; return its board entry once it waits."""
    group.start_soon(review, client, body, [])
    with anyio.fail_after(WAIT):
        return await wait_pending(client, body["call_id"])


async def test_every_card_opens_with_what_the_call_would_do_riskiest_first() -> None:
    with serve(human=True) as served:
        async with browser() as chromium, served.client(headers=served.auth) as client:
            page, problems = await open_page(chromium, served)
            await page.wait_for_selector("#status[data-kind=live]")
            async with anyio.create_task_group() as group:
                await _park(client, group, bash(KEY_HEREDOC, "sum-1"))
                await _park(client, group, bash("echo 'alias ls=true' >> ~/.bashrc", "sum-2"))
                card = page.locator('li.card[data-call-id="sum-1"]')
                await card.locator(".summary").wait_for()
                first = await card.evaluate(
                    "card => card.querySelector('.card-head').nextElementSibling.className"
                )
                sentence = await card.locator(".summary").text_content()
                spans = await card.locator(".summary code").all_text_contents()
                other = page.locator('li.card[data-call-id="sum-2"] .summary')
                await other.wait_for()
                bashrc = await other.text_content()
                await page.screenshot(path=artifact("team-summary-desktop.png"), full_page=True)
                await page.set_viewport_size({"width": 390, "height": 844})
                await card.scroll_into_view_if_needed()
                await page.screenshot(path=artifact("team-summary-390.png"))
                group.cancel_scope.cancel()
    assert first == "summary"
    assert sentence == "Sends ~/.ssh/id_rsa to deploy.example and writes deploy.sh."
    assert spans == ["~/.ssh/id_rsa", "deploy.sh"]
    assert bashrc == "Appends to ~/.bashrc."
    assert problems == []


def _team() -> Any:
    """A service whose rules stand-in names the rule that asks, with a second person's token."""
    return team("ask.person", {ALICE: Identity(name="alice", role="approver")})


async def _shown(page: Page) -> list[str]:
    items: list[str] = await page.locator("#history li.decided").evaluate_all(
        "items => items.map(item => item.dataset.callId)"
    )
    return items


async def _until_shown(page: Page, calls: list[str]) -> None:
    await page.wait_for_function(
        "calls => JSON.stringify(Array.from(document.querySelectorAll('#history li.decided'),"
        " item => item.dataset.callId)) === JSON.stringify(calls)",
        arg=calls,
    )


async def test_the_history_comes_from_the_service_and_a_team_can_search_and_filter_it() -> None:
    with _team() as served:
        async with browser() as chromium, served.client(headers=served.auth) as client:
            # Decided before the page opened: only the service knows about them.
            await three_decisions(client, served.token, ALICE, "t")
            page, problems = await open_page(chromium, served)
            await _until_shown(page, ["t-3", "t-1", "t-2"])  # grouped by session: s-1, then s-2
            groups = await page.locator("#history section.group .group-title").all_text_contents()
            key = page.locator('#history li[data-call-id="t-2"]')
            who = await key.locator(".by").text_content()
            note = await key.locator(".decided-note").text_content()
            summary = await key.locator(".summary").text_content()
            when = await key.locator("time").get_attribute("datetime")
            facts = await key.locator(".facts").text_content()
            await page.screenshot(path=artifact("team-history-desktop.png"), full_page=True)
            await page.set_viewport_size({"width": 390, "height": 844})
            await page.locator("#history-title").scroll_into_view_if_needed()
            await page.screenshot(path=artifact("team-history-390.png"))
            await page.set_viewport_size({"width": 1100, "height": 900})

            await page.select_option("#filter-person", "alice")
            await _until_shown(page, ["t-2"])
            await page.select_option("#filter-person", "")
            await page.fill("#filter-q", "LOCK FILE")
            await _until_shown(page, ["t-1"])
            await page.fill("#filter-q", "")
            await page.select_option("#filter-decision", "allow")
            await page.select_option("#filter-agent", "planner")
            await _until_shown(page, ["t-3"])
            await page.select_option("#filter-agent", "")
            await page.select_option("#filter-decision", "")
            await page.select_option("#filter-rule", "ask.person")
            await page.select_option("#history-group", "agent")
            await _until_shown(page, ["t-3", "t-2", "t-1"])  # planner (newest), then coder
            by_agent = await page.locator("#history .group-title").all_text_contents()

            await page.reload()
            await _until_shown(page, ["t-3", "t-1", "t-2"])
            after_reload = await _shown(page)
    assert groups == ["Session s-1 · 2", "Session s-2 · 1"]
    assert by_agent == ["Agent planner · 1", "Agent coder · 2"]
    assert who == "by alice"
    assert note == "Note: never send keys"
    assert summary == "Sends ~/.ssh/id_rsa to deploy.example and writes deploy.sh."
    assert when
    assert facts is not None
    assert "session s-2" in facts
    assert "agent coder" in facts
    assert "rule ask.person" in facts
    assert after_reload == ["t-3", "t-1", "t-2"]
    assert problems == []


async def _review_until_stopped(url: str, token: str, body: dict[str, Any], out: list[Any]) -> None:
    """A review that the stopping service answers (a decline) or cuts off; either is kept."""
    async with httpx.AsyncClient(
        base_url=url, trust_env=False, timeout=WAIT, headers={"Authorization": f"Bearer {token}"}
    ) as client:
        try:
            out.append((await client.post("/v1/review", json=body)).json())
        except httpx.HTTPError as error:
            out.append({"error": type(error).__name__})


async def test_the_page_notices_a_restart_and_shows_the_new_service(tmp_path: Path) -> None:
    shared = SHARED
    results: list[Any] = []
    cfg = msgspec.structs.replace(
        config(),
        sinks={"audit": SinkConfig(plugin="jsonl", path=str(tmp_path / "a.jsonl"), required=True)},
    )
    async with browser() as chromium:
        async with anyio.create_task_group() as group:
            with serve(cfg, human=True, token=shared) as first:
                port = int(first.url.rsplit(":", 1)[1])
                page, problems = await open_page(chromium, first)
                await page.wait_for_selector("#status[data-kind=live]")
                async with first.client(headers=first.auth) as client:
                    await decided(client, bash("make lint", "kept-1"), "allow", shared, note="ok")
                group.start_soon(
                    _review_until_stopped, first.url, shared, bash("make deploy", "old-1"), results
                )
                await page.locator('li.card[data-call-id="old-1"]').wait_for()
                await _until_shown(page, ["kept-1"])
                before = await page.evaluate("document.getElementById('status').textContent")
            # The service stopped here (the waiting call is declined) while the page stays open:
            # it no longer says "Live".
            await page.wait_for_selector("#status[data-kind=error]")
            between = await page.evaluate("document.getElementById('status').textContent")
        with serve(cfg, human=True, token=shared, port=port) as second:
            notice = page.locator("#service-notice")
            await notice.wait_for(state="visible")
            await page.wait_for_selector("#status[data-kind=live]")
            said = await notice.text_content()
            await page.locator('li.card[data-call-id="old-1"]').wait_for(state="detached")
            # The new run's history: what a person decided before, read back from the audit log.
            await _until_shown(page, ["kept-1"])
            await page.screenshot(path=artifact("team-restart-desktop.png"))
            async with second.client(headers=second.auth) as client:
                fresh: list[dict[str, Any]] = []
                async with anyio.create_task_group() as group:
                    group.start_soon(review, client, bash("make test", "new-1"), fresh)
                    card = page.locator('li.card[data-call-id="new-1"]')
                    await card.locator('button[data-action="allow"]').click()
            await _until_shown(page, ["new-1", "kept-1"])
            status = await page.evaluate("document.getElementById('status').textContent")
    assert before == "Live"
    assert between != "Live"
    assert said is not None
    assert said.startswith("The service restarted")
    assert "this page now shows the new one" in said
    assert status == "Live"
    assert fresh[0]["decision"] == "allow"
    assert len(results) == 1
    assert problems == [] or all("Failed to load resource" in p for p in problems)


LONG = "\n".join(
    [
        "set -e",
        "cat > notes.txt <<'EOF'",
        *(f"line {n} of a long literal heredoc body that makes the card tall" for n in range(40)),
        "EOF",
        "sudo env FOO=1 cat notes.txt > out.txt 2>&1",
        "tar czf backup.tgz . && curl -T backup.tgz https://backup.example/up",
        "echo done",
    ]
)


async def _long_card(page: Page, group: Any, client: httpx.AsyncClient) -> Locator:
    await _park(client, group, bash(LONG, "long-1", session_id="s-9"))
    card = page.locator('li.card[data-call-id="long-1"]')
    await card.locator(".summary").wait_for()
    # Open every heredoc: the card's body is as long as it gets.
    await card.evaluate("card => card.querySelectorAll('details').forEach(d => { d.open = true; })")
    return card


async def _allow_reachable(page: Page, card: Locator) -> dict[str, Any]:
    """Scroll the card's top to the top of the window; where is Allow, and is it what is there?"""
    await card.evaluate(
        "card => window.scrollTo(0, card.getBoundingClientRect().top + window.scrollY)"
    )
    found: dict[str, Any] = await card.evaluate(
        """card => {
            const button = card.querySelector('button[data-action="allow"]');
            const box = button.getBoundingClientRect();
            const x = box.left + box.width / 2, y = box.top + box.height / 2;
            const hit = document.elementFromPoint(x, y);
            return {
                card: card.getBoundingClientRect().height, viewport: window.innerHeight,
                top: box.top, bottom: box.bottom, hit: hit === button || button.contains(hit),
                decline: card.querySelector('button[data-action="decline"]').getBoundingClientRect().bottom,
                width: document.documentElement.scrollWidth,
            };
        }"""
    )
    return found


async def test_at_390_px_allow_and_decline_stay_in_view_over_a_long_card() -> None:
    with serve(human=True) as served:
        async with browser() as chromium, served.client(headers=served.auth) as client:
            page, problems = await open_page(chromium, served, width=390, height=844)
            async with anyio.create_task_group() as group:
                card = await _long_card(page, group, client)
                who = await card.locator(".card-head .who").text_content()
                found = await _allow_reachable(page, card)
                await page.screenshot(path=artifact("team-phone-card-390.png"))
                await page.set_viewport_size({"width": 1100, "height": 900})
                desktop = await _allow_reachable(page, card)
                await page.screenshot(path=artifact("team-phone-card-desktop.png"))
                await page.set_viewport_size({"width": 390, "height": 844})
                await _allow_reachable(page, card)
                await card.locator('button[data-action="allow"]').click()
                await page.locator('#history li[data-call-id="long-1"]').wait_for()
                group.cancel_scope.cancel()
    assert who == "session s-9"
    # The card is taller than the window, yet Allow and Decline are on screen and on top.
    assert found["card"] > found["viewport"]
    assert found["top"] >= 0
    assert found["bottom"] <= found["viewport"]
    assert found["decline"] <= found["viewport"]
    assert found["hit"] is True
    assert found["width"] <= 390
    assert desktop["card"] > desktop["viewport"]
    assert desktop["bottom"] <= desktop["viewport"]
    assert desktop["hit"] is True
    assert problems == []


def _luminance(colour: str) -> float:
    """Relative luminance of an ``rgb(r, g, b)`` colour (WCAG)."""
    parts = colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]

    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(float(part)) for part in parts)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _contrast(one: str, two: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


async def test_dark_mode_follows_the_system_and_stays_readable() -> None:
    with serve(human=True) as served:
        async with browser() as chromium, served.client(headers=served.auth) as client:
            colours: dict[str, dict[str, str]] = {}
            async with anyio.create_task_group() as group:
                await _park(client, group, bash(KEY_HEREDOC, "dark-1"))
                for scheme in ("light", "dark"):
                    for width, height in ((1100, 900), (390, 844)):
                        page, problems = await open_page(
                            chromium, served, scheme=scheme, width=width, height=height
                        )
                        card = page.locator('li.card[data-call-id="dark-1"]')
                        await card.locator(".summary").wait_for()
                        colours[f"{scheme}-{width}"] = await page.evaluate(
                            """() => {
                                const style = (selector) => getComputedStyle(document.querySelector(selector));
                                return {
                                    body: style('body').backgroundColor, text: style('body').color,
                                    card: style('li.card').backgroundColor,
                                    summary: style('li.card .summary').color,
                                    summaryBg: style('li.card .summary').backgroundColor,
                                    allow: style('button[data-action="allow"]').color,
                                    allowBg: style('button[data-action="allow"]').backgroundColor,
                                };
                            }"""
                        )
                        await page.screenshot(
                            path=artifact(f"team-{scheme}-{width}.png"), full_page=width > 400
                        )
                        assert problems == []
                        await page.close()
                group.cancel_scope.cancel()
    light, dark = colours["light-1100"], colours["dark-1100"]
    assert _luminance(light["body"]) > 0.8
    assert _luminance(dark["body"]) < 0.05
    assert _luminance(dark["card"]) < 0.05
    assert colours["dark-390"] == dark
    for shown in (light, dark):
        assert _contrast(shown["text"], shown["card"]) >= 7
        assert _contrast(shown["summary"], shown["summaryBg"]) >= 7
        assert _contrast(shown["allow"], shown["allowBg"]) >= 4.5


async def test_after_a_restart_with_a_new_token_the_page_asks_for_it() -> None:
    async with browser() as chromium:
        with serve(human=True) as first:
            port = int(first.url.rsplit(":", 1)[1])
            page, problems = await open_page(chromium, first)
            await page.wait_for_selector("#status[data-kind=live]")
        with serve(human=True, port=port) as second:
            await page.locator("#service-notice").wait_for(state="visible")
            await page.locator("#token-panel").wait_for(state="visible")
            asked = await page.locator("#token-error").text_content()
            await page.locator("#token-input").fill(second.token)
            await page.locator("#token-form button").click()
            await page.locator("#token-panel").wait_for(state="hidden")
            async with second.client(headers=second.auth) as client:
                results: list[dict[str, Any]] = []
                async with anyio.create_task_group() as group:
                    group.start_soon(review, client, bash("make test", "after-1"), results)
                    card = page.locator('li.card[data-call-id="after-1"]')
                    await card.locator('button[data-action="allow"]').click()
    assert asked == "The service restarted with a new token: paste the one it printed now."
    assert results[0]["decision"] == "allow"
    assert [p for p in problems if "Failed to load resource" not in p] == []
