"""Accounts in the browser (issue 54): register, the name in the header, log out, log in
from the first page, a wrong password told in the page's language, and the profile page
with the account's stored games."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client_cli.client import Client, play_table, random_chooser
from server.app import CardaviaServer
from tests.client_web.pages import TIMEOUT_MS, fill, open_page, page_url, strings

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.heavy]

PASSWORD = "correct horse battery"
EN = strings("en")


async def account_form(page: Any, name: str, password: str) -> None:
    await page.locator("form.account").wait_for(timeout=TIMEOUT_MS)
    await page.fill("#account-name", name)
    await page.fill("#account-password", password)


async def registered(page: Any, name: str) -> str:
    """Register ``name`` from the page; the header's text once logged in."""
    await account_form(page, name, PASSWORD)
    await page.click("#register")
    signed_in = fill(EN["account"]["signed_in"], name=name)
    await page.locator("#status", has_text=signed_in).wait_for(timeout=TIMEOUT_MS)
    return signed_in


async def test_register_log_out_and_log_in_again(server: CardaviaServer, browser: Any) -> None:
    page = await open_page(browser, page_url(server), "Guest Reg")
    signed_in = await registered(page, "Webber")
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


async def test_the_profile_page_shows_the_account_s_stored_games(
    server: CardaviaServer, browser: Any
) -> None:
    page = await open_page(browser, page_url(server), "Guest Prof")
    await registered(page, "Proffie")
    # the same account on another device plays a short game against the AI
    async with await Client.connect(server.url, login=("Proffie", PASSWORD)) as phone:
        options = {"seat": 0, "ai": [{"seat": 1, "level": "random"}], "game": {"target": 1}}
        table = (await phone.create_table("scopa", options)).table.id
        await play_table(phone, table, random_chooser(5))
    await asyncio.wait_for(server.record_writer.drain(), 10)
    await page.click("#profile")
    row = page.locator(f"li.history-game[data-game_id='{table}.1']")
    await row.wait_for(timeout=TIMEOUT_MS)
    assert "Scopa" in await row.inner_text()
    counts = page.locator("table.profile-games tr[data-game=scopa] td")
    texts = await counts.all_inner_texts()
    assert texts[:2] == ["Scopa", "1"] and texts[2] in ("0", "1")  # played, won
    assert await page.locator("h2", has_text="Proffie").count() == 1
    member = EN["profile"]["member_since"].split("{")[0].strip()
    assert member in await page.locator("p.member-since").inner_text()
    await page.click("#close-profile")  # back to the lobby
    await page.locator("form.game[data-game=scopa]").wait_for(timeout=TIMEOUT_MS)
    assert page.errors == []
