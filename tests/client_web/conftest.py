"""Browser tests: Debian's chromium driven by Playwright against a real in-process server.

Never ``playwright install``: the browser is the system's ``chromium`` package.
Screenshots of every page of a failed test land in ``tests/client_web/screenshots/``.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Generator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from server.app import CardaviaServer, running_server
from tests.server.helpers import FAST

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).parent / "screenshots"
CONFIG = FAST.replace(connect_rate_per_address=1000.0)


def chromium_path() -> str:
    """Debian's chromium; a clear failure (not a skip) when it is missing."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "the browser tests need Debian's `chromium` package: apt-get install -y chromium",
            pytrace=False,
        )
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[Any]:
    """Remember whether the test body failed (for the screenshots)."""
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest_asyncio.fixture(loop_scope="module")
async def server() -> AsyncIterator[CardaviaServer]:
    """A started server with fast AI and no connection-rate cap for reloads."""
    async with running_server(CONFIG) as srv:
        yield srv


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    """One headless chromium for a test module (each test opens its own profiles)."""
    path = chromium_path()
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.fail("the browser tests need the `playwright` Python package (dev extra)")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture(loop_scope="module")
async def browser(request: pytest.FixtureRequest, chromium: Any) -> AsyncIterator[Any]:
    """The module's chromium; the profiles a test opened are closed after it, and on
    failure each of their pages is saved as a screenshot first."""
    yield chromium
    for i, context in enumerate(list(chromium.contexts)):
        if request.node.stash.get(_FAILED, False):
            SCREENSHOTS.mkdir(exist_ok=True)
            for j, page in enumerate(context.pages):
                name = f"{request.node.name}-{i}-{j}.png".replace("/", "_")
                await page.screenshot(path=str(SCREENSHOTS / name), full_page=True)
        await context.close()
