"""Accounts in the browser (issue 54): register, the name in the header, log out, log in
from the first page, and a wrong password told in the page's language."""

from __future__ import annotations

from typing import Any

import pytest

from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, fill, open_page, page_url, strings

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

PASSWORD = "correct horse battery"
EN = strings("en")


async def account_form(page: Any, name: str, password: str) -> None:
    await page.locator("form.account").wait_for(timeout=TIMEOUT_MS)
    await page.fill("#account-name", name)
    await page.fill("#account-password", password)


async def test_register_log_out_and_log_in_again(server: CardaviaServer, browser: Any) -> None:
    page = await open_page(browser, page_url(server), "Guest Reg")
    await account_form(page, "Webber", PASSWORD)
    await page.click("#register")
    signed_in = fill(EN["account"]["signed_in"], name="Webber")
    await page.locator("#status", has_text=signed_in).wait_for(timeout=TIMEOUT_MS)
    assert server.accounts.taken("webber")
    assert await page.locator("#account-password").count() == 0  # the form is gone
    await page.click("#logout")
    await page.locator("#save-name").wait_for(timeout=TIMEOUT_MS)  # a new, nameless page
    # log in straight from the first page (a guest session opens first)
    await account_form(page, "WEBBER", PASSWORD)
    await page.click("#login")
    await page.locator("#status", has_text=signed_in).wait_for(timeout=TIMEOUT_MS)
    await page.reload()  # the session resumes, still logged in
    await page.locator("#status", has_text=signed_in).wait_for(timeout=TIMEOUT_MS)
    assert page.errors == []


async def test_a_wrong_password_is_told_and_changes_nothing(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Guest Two")
    await account_form(page, "Nobody Here", PASSWORD)
    await page.click("#login")
    toast = page.locator("#toast", has_text=EN["errors"]["bad_credentials"])
    await toast.wait_for(timeout=TIMEOUT_MS)
    assert await page.locator("#status").inner_text() == "Guest Two"
    assert page.errors == []
