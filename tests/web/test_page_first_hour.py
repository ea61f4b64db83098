"""
The page in a person's first hour, in a real headless browser (Debian's chromium, through Playwright).

* Signing in through the token form shows at once what the token may read:
  the decisions already made (the count and the list), and, where reads
  need the token, the calls waiting (each with its action bar), without a
  reload.
* On a phone one card is open at a time: at every scroll position at most
  one Allow/Decline bar is on screen, and it belongs to the open card; a
  closed card shows what it is about and a button that opens it.
* Cards are compact: three waiting calls fit in well under half the height
  they took (3,177 px at 1,100 px wide, 4,713 px at 390 px, measured before).
* Remembering an approval at the width a person chooses: the page shows
  what the chosen width covers (and what it never does) before anything is
  saved; the next call it covers is allowed without a person, and the
  history says which memory allowed it.

The chain is the real rules approver (remembering in a temporary file) and
the human approver. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_human import HumanApprover
from gateway_rules import RulesApprover
from playwright.async_api import Page

from gateway import ApproverContext
from web.browser import artifact, browser, open_page, review, whole_page_screenshot
from web.support import WAIT, Served, bash, config, decided, serve, wait_pending

pytestmark = pytest.mark.anyio

COMMANDS = ("pip install requests", "make test", "git push origin main")


@pytest.fixture
def anyio_backend() -> str:
    """Playwright's async API runs on asyncio."""
    return "asyncio"


@contextmanager
def rules_then_person(memory: Path) -> Iterator[tuple[Served, RulesApprover]]:
    """The service with the default policy (remembering in ``memory``), then a person."""
    cfg = config()
    services: dict[str, Any] = {}
    rules = RulesApprover({"memory": str(memory)}, ApproverContext(config=cfg, services=services))
    human = HumanApprover({}, ApproverContext(config=cfg, services=services))
    with serve(cfg, approvers=[rules, human], services=services) as served:
        yield served, rules


async def _three_waiting(client: Any, group: Any, results: list[dict[str, Any]]) -> None:
    for number, command in enumerate(COMMANDS):
        body = bash(command, f"c{number}", session_id="s-1", cwd="/work/app")
        group.start_soon(review, client, body, results)
        with anyio.fail_after(WAIT):
            await wait_pending(client, f"c{number}")


async def _bars_on_screen(page: Page) -> list[list[str]]:
    """At each scroll position from top to bottom, the call ids of the Allow buttons a person sees."""
    found: list[list[str]] = await page.evaluate(
        """async () => {
            const seen = [];
            const step = Math.floor(window.innerHeight / 3);
            for (let y = 0; ; y += step) {
                window.scrollTo(0, y);
                await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
                const here = [];
                for (const button of document.querySelectorAll('#pending button[data-action="allow"]')) {
                    const box = button.getBoundingClientRect();
                    const shown = button.checkVisibility() && box.height > 0
                        && box.bottom > 0 && box.top < window.innerHeight;
                    if (shown) here.push(button.closest("li.card").dataset.callId);
                }
                seen.push(here);
                if (y + window.innerHeight >= document.documentElement.scrollHeight) break;
            }
            window.scrollTo(0, 0);
            return seen;
        }"""
    )
    return found


async def test_signing_in_shows_the_decisions_at_once(tmp_path: Path) -> None:
    with rules_then_person(tmp_path / "memory.json") as (served, _):
        async with browser() as chromium, served.client(headers=served.auth) as client:
            await decided(client, bash("make release", "before-1"), "allow", served.token)
            page, problems = await open_page(chromium, served, token=False)
            await page.locator("#token-panel").wait_for()
            await page.locator("#history-empty", has_text="sign in").wait_for()
            before = await page.locator("#history-count").text_content()
            await page.evaluate("window.notReloaded = true")
            await page.locator("#token-input").fill(served.token)
            await page.locator("#token-form button").click()
            await page.locator('#history li[data-call-id="before-1"]').wait_for()
            count = await page.locator("#history-count").text_content()
            empty = await page.locator("#history-empty").is_visible()
            same_page = await page.evaluate("window.notReloaded === true")
            await whole_page_screenshot(page, "first-hour-signed-in.png")
    assert before == "0"
    assert count == "1"
    assert empty is False
    assert same_page is True
    assert [p for p in problems if "401" not in p] == []


async def test_where_reads_need_the_token_signing_in_shows_the_waiting_calls_at_once() -> None:
    """With ``protect-reads``, the page shows nothing before the token, and every waiting call after it."""
    with serve(config(protect_reads=True), human=True) as served:
        async with browser() as chromium, served.client(headers=served.auth) as client:
            page, problems = await open_page(chromium, served, token=False)
            await page.locator("#token-panel").wait_for()
            results: list[dict[str, Any]] = []
            async with anyio.create_task_group() as group:
                group.start_soon(review, client, bash("make release", "waits"), results)
                with anyio.fail_after(WAIT):
                    await wait_pending(client, "waits")
                cards_before = await page.locator("#pending li.card").count()
                await page.evaluate("window.notReloaded = true")
                await page.locator("#token-input").fill(served.token)
                await page.locator("#token-form button").click()
                card = page.locator('li.card[data-call-id="waits"]')
                await card.locator('button[data-action="allow"]').wait_for()
                count = await page.locator("#pending-count").text_content()
                same_page = await page.evaluate("window.notReloaded === true")
                await card.locator('button[data-action="allow"]').click()
                await page.locator('#history li[data-call-id="waits"]').wait_for()
                decided_count = await page.locator("#history-count").text_content()
    assert cards_before == 0
    assert count == "1"
    assert same_page is True
    assert [r["decision"] for r in results] == ["allow"]
    assert decided_count == "1"
    assert [p for p in problems if "401" not in p] == []


async def test_on_a_phone_one_action_bar_shows_and_it_is_the_open_cards(tmp_path: Path) -> None:
    with rules_then_person(tmp_path / "memory.json") as (served, _):
        async with browser() as chromium, served.client(headers=served.auth) as client:
            page, problems = await open_page(chromium, served, width=390, height=844)
            results: list[dict[str, Any]] = []
            async with anyio.create_task_group() as group:
                await _three_waiting(client, group, results)
                await page.locator('li.card[data-call-id="c2"]').wait_for()
                first = await _bars_on_screen(page)
                await whole_page_screenshot(page, "first-hour-phone.png")
                second = page.locator('li.card[data-call-id="c1"]')
                await second.locator("button.open-card").click()
                await second.locator('button[data-action="allow"]').wait_for()
                after = await _bars_on_screen(page)
                closed = await page.locator('li.card[data-call-id="c0"] .open-card').is_visible()
                await page.screenshot(path=artifact("first-hour-phone-second-open.png"))
                await second.locator('button[data-action="allow"]').click()
                await page.locator('#history li[data-call-id="c1"]').wait_for()
                # The card decided leaves; another opens, with the only bar.
                left = await _bars_on_screen(page)
                group.cancel_scope.cancel()
    assert all(len(seen) <= 1 for seen in first), first
    assert {call for seen in first for call in seen} == {"c0"}
    assert all(len(seen) <= 1 for seen in after), after
    assert {call for seen in after for call in seen} == {"c1"}
    assert closed is True
    assert [r["call_id"] for r in results] == ["c1"]
    assert results[0]["decision"] == "allow"
    assert all(len(seen) <= 1 for seen in left), left
    assert len({call for seen in left for call in seen}) == 1
    assert problems == []


async def test_three_waiting_calls_take_well_under_half_the_height_they_took(
    tmp_path: Path,
) -> None:
    heights: dict[str, float] = {}
    with rules_then_person(tmp_path / "memory.json") as (served, _):
        async with (
            browser() as chromium,
            served.client(headers=served.auth) as client,
            anyio.create_task_group() as group,
        ):
            await _three_waiting(client, group, [])
            for width, height, name in ((1100, 900, "desktop"), (390, 844, "phone")):
                page, problems = await open_page(chromium, served, width=width, height=height)
                await page.locator('li.card[data-call-id="c2"]').wait_for()
                heights[name] = await page.evaluate(
                    "document.getElementById('pending').getBoundingClientRect().height"
                )
                overflow = await page.evaluate("document.documentElement.scrollWidth")
                await whole_page_screenshot(page, f"first-hour-three-cards-{name}.png")
                assert overflow <= width
                assert problems == []
                await page.close()
            # How it runs is a click away: the tree of each statement is all there.
            page, _ = await open_page(chromium, served)
            card = page.locator('li.card[data-call-id="c2"]')
            await card.locator("details.plan-tree summary").click()
            runs = await card.locator(".statements .runs").all_text_contents()
            group.cancel_scope.cancel()
    assert heights["desktop"] < 3177 / 2, heights
    assert heights["phone"] < 4713 / 2, heights
    assert runs == ["git"]


async def test_a_remembered_width_is_shown_first_then_allows_what_it_covers(
    tmp_path: Path,
) -> None:
    with rules_then_person(tmp_path / "memory.json") as (served, rules):
        async with browser() as chromium, served.client(headers=served.auth) as client:
            page, problems = await open_page(chromium, served)
            results: list[dict[str, Any]] = []
            async with anyio.create_task_group() as group:
                group.start_soon(review, client, bash("pip install requests", "first"), results)
                card = page.locator('li.card[data-call-id="first"]')
                await card.wait_for()
                choices = await card.locator("select option").all_text_contents()
                await card.locator("select").select_option(
                    label="`pip install` followed by anything"
                )
                covers = await card.locator(".covers").text_content()
                label = await card.locator('button[data-action="allow"]').text_content()
                await card.screenshot(path=artifact("first-hour-remember-width.png"))
                saved_before = list(rules.remembered)
                await card.locator('button[data-action="allow"]').click()
                await page.locator('#history li[data-call-id="first"]').wait_for()
            # The review was released (the task group ended) after the approval was saved.
            again = (
                await client.post("/v1/review", json=bash("pip install flask", "again"))
            ).json()
            memory = rules.remembered[0].id
            shown = page.locator('#history li[data-call-id="again"]')
            await shown.wait_for()
            by = await shown.locator(".by").first.text_content()
            await whole_page_screenshot(page, "first-hour-remembered-history.png")
    assert choices == [
        "No: just this call",
        "This exact command, anywhere",
        "`pip install requests` followed by anything",
        "`pip install` followed by anything",
        "`pip` followed by anything",
    ]
    assert covers is not None
    assert "Allow pip install followed by anything again without asking" in covers
    assert "in the place of rule ask.writes" in covers
    assert "never a decline" in covers
    assert label == "Allow and remember"
    assert saved_before == []
    assert results[0]["decision"] == "allow"
    assert (again["decision"], again["approver"], again["rule"]) == (
        "allow",
        "rules",
        f"remembered.{memory}",
    )
    assert by == f"by a remembered approval remembered.{memory}"
    assert problems == []
