"""
Driving the page in a real headless browser: Debian's chromium through Playwright.

`browser` launches chromium with a fresh profile; `open_page` opens the
service's page (signed in with its token by default) and collects page errors
and console errors, which every test expects to stay empty. Screenshots go
to `ARTIFACTS` (``test-artifacts/`` at the top of the checkout, ignored by
git), made when a test first writes one.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import httpx
from playwright.async_api import Browser, Page, async_playwright

from web.support import WAIT, Served

__all__ = [
    "ARTIFACTS",
    "TIMEOUT_MS",
    "artifact",
    "browser",
    "open_page",
    "review",
    "whole_page_screenshot",
]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = WAIT * 1000


def artifact(name: str) -> str:
    """Where a screenshot called ``name`` is kept (the directory is made when missing)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return str(ARTIFACTS / name)


async def whole_page_screenshot(page: Page, name: str) -> None:
    """
    The whole page, as a window as tall as the page shows it, in ``artifact(name)``.

    A full-page screenshot keeps the window's height, so what is sticky to
    the window's bottom (a card's Allow/Decline bar) is drawn over other
    cards at that height; a window as tall as the page puts it in its place.
    """
    size = page.viewport_size
    assert size is not None
    height = await page.evaluate("document.documentElement.scrollHeight")
    await page.set_viewport_size({"width": size["width"], "height": max(height, size["height"])})
    try:
        await page.screenshot(path=artifact(name))
    finally:
        await page.set_viewport_size(size)


@asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    """Headless chromium with a fresh profile (Playwright makes a new user-data-dir per launch)."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=FLAGS, timeout=TIMEOUT_MS
        )
        try:
            yield launched
        finally:
            await launched.close()


async def open_page(
    chromium: Browser,
    served: Served,
    *,
    token: bool = True,
    width: int = 1100,
    height: int = 900,
    scheme: Literal["light", "dark"] = "light",
) -> tuple[Page, list[str]]:
    """The service's page in a new tab, and the list its errors are collected in."""
    page = await chromium.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    page.set_default_timeout(TIMEOUT_MS)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on(
        "console",
        lambda message: problems.append(message.text) if message.type == "error" else None,
    )
    await page.goto(served.running.url + (f"#token={served.token}" if token else ""))
    return page, problems


async def review(
    client: httpx.AsyncClient, body: dict[str, Any], results: list[dict[str, Any]]
) -> None:
    """Post a review and keep its answer (run it in a task: it waits for a person)."""
    response = await client.post("/v1/review", json=body)
    results.append(response.json())
