"""Display names and chat text: normalised, visible, unique per table, not impersonating."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client_cli.client import Client, ServerError
from protocol import server_messages as sm
from server.app import CardaviaServer
from server.players.names import (
    BLANK,
    LOOKALIKES,
    NAME_MAX,
    NameError_,
    clean_chat,
    confusables,
    is_reserved,
    skeleton,
    validate_name,
)

INVISIBLE = [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
INVISIBLE += [0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0xFEFF, 0x2060, 0x00AD, 0x061C]
INVISIBLE += [0xE0001, 0xE0041, 0xE007F]


def test_names_are_nfkc_normalised_and_trimmed() -> None:
    assert validate_name("  Ann  ") == "Ann"
    assert validate_name("Ｆｕｌｌ") == "Full"  # full-width
    assert validate_name("𝐁𝐨𝐥𝐝") == "Bold"  # mathematical bold
    assert validate_name("Zoë 李") == "Zoë 李"
    assert validate_name("Ann\u3000\u2003Lee") == "Ann Lee"  # odd spaces become one
    assert validate_name("Zoe\u0308") == "Zoë"  # combining sequence composed


@pytest.mark.parametrize("code", INVISIBLE)
def test_invisible_and_bidi_characters_are_refused(code: int) -> None:
    with pytest.raises(NameError_):
        validate_name(f"An{chr(code)}n")


@pytest.mark.parametrize(
    "raw",
    [
        "\u3164",
        "\u3164\u3164",
        "\u2800",
        "A\u2800",
        "\uffa0",
        "\u115f",
        "\u0301",
        "  \u0301\u0302 ",
        "\ufe0f",
        "x\ufe0f",
        "x\u0301\u0302\u0303",
        "",
        " ",
        "x" * (NAME_MAX + 1),
        "a\tb",
        "a\u2028b",
        "\x00",
        "\ue000",
    ],
)
def test_blank_invisible_and_odd_names_are_refused(raw: str) -> None:
    with pytest.raises(NameError_):
        validate_name(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "Server",
        "SYSTEM",
        "admin",
        "AI",
        "ai",
        "AI (hard)",
        "AI 1 (hard)",
        "AI 2",
        "Cardavia",
        "Ｓｅｒｖｅｒ",
        "Ѕеrvеr",  # Cyrillic Dze and Ie
        "ΑΙ",  # Greek Alpha Iota
        "S.y.s.t.e.m",
        "player 3",
        "(empty seat 1)",
    ],
)
def test_reserved_names_and_their_look_alikes_are_refused(raw: str) -> None:
    assert is_reserved(raw)
    with pytest.raises(NameError_, match="reserved"):
        validate_name(raw)


def test_ordinary_names_are_not_reserved() -> None:
    for name in ["Al", "Aidan", "Serverina", "Sys", "Adminah", "Kai", "Player"]:
        assert validate_name(name) == name


def test_skeletons_fold_look_alikes() -> None:
    ann = skeleton("Ann")
    for same in ["ann", "ANN", "Аnn", "АNN", "Ａｎｎ", "Ánn", "Αnn"]:
        assert skeleton(same) == ann, same
    assert skeleton("Bill") == skeleton("BiII") == skeleton("Bi11")
    assert skeleton("rnary") == skeleton("mary")
    assert skeleton("Ann") != skeleton("Anna")
    assert skeleton("Zoë") == skeleton("Zoe")


def test_the_look_alike_table_maps_letters_to_latin() -> None:
    for ch, latin in LOOKALIKES.items():
        assert ch != latin and latin.isascii()
        assert unicodedata.name(ch).split()[0] in ("CYRILLIC", "GREEK", "LATIN")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_accepted_names_are_normal_visible_and_stable(raw: str) -> None:
    try:
        name = validate_name(raw)
    except NameError_:
        return
    assert name == unicodedata.normalize("NFKC", name)
    assert 1 <= len(name) <= NAME_MAX
    assert name == name.strip() and "  " not in name
    assert not any(unicodedata.category(ch)[0] == "C" for ch in name)
    assert not any(ch in BLANK for ch in name)
    assert any(unicodedata.category(ch)[0] in "LNPS" for ch in name)
    assert validate_name(name) == name  # idempotent
    assert not is_reserved(name)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_skeleton_is_a_fold(text: str) -> None:
    sk = skeleton(text)
    assert skeleton(text.casefold()) == sk
    assert skeleton(unicodedata.normalize("NFKC", text)) == sk


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_clean_chat_never_passes_invisible_characters(text: str) -> None:
    try:
        line = clean_chat(text)
    except ValueError:
        assert any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029" for ch in text)
        return
    assert not any(unicodedata.category(ch) == "Cf" or ch in BLANK for ch in line)
    assert line == line.strip()


def test_clean_chat_strips_bidi_and_zero_width() -> None:
    assert clean_chat("\u202eolleh\u202c") == "olleh"
    assert clean_chat("a\u200bb\ufeffc\U000e0041") == "abc"
    assert clean_chat("\u3164\u2800 ") == ""
    with pytest.raises(ValueError):
        clean_chat("bell\x07")


# -- at a real server ----------------------------------------------------------------


async def test_hello_refuses_reserved_and_blank_names(server: CardaviaServer) -> None:
    for bad in ["Server", "AI (hard)", "\u3164", "An\u202en"]:
        with pytest.raises(ServerError) as info:
            await Client.connect(server.url, bad)
        assert info.value.code == "bad_name"
    client = await Client.connect(server.url, "Ｚｏｅ")
    assert client.name == "Zoe"
    await client.close()


async def test_names_are_unique_per_table(server: CardaviaServer) -> None:
    ann = await Client.connect(server.url, "Ann")
    fake = await Client.connect(server.url, "Аnn")  # Cyrillic А
    loud = await Client.connect(server.url, "ANN")
    bob = await Client.connect(server.url, "Bob")
    try:
        table = (await ann.create_table("scopa", {"seat": 0})).table.id
        for impostor in (fake, loud):
            for request in (impostor.join(table), impostor.spectate(table)):
                with pytest.raises(ServerError) as info:
                    await request
                assert info.value.code == "name_taken"
        assert (await bob.spectate(table)).seat is None
        # elsewhere the same name is fine
        other = (await fake.create_table("scopa", {"seat": 0})).table.id
        assert other != table
    finally:
        for c in (ann, fake, loud, bob):
            await c.close()


async def test_quick_play_does_not_seat_a_look_alike(server: CardaviaServer) -> None:
    ann = await Client.connect(server.url, "Ann")
    fake = await Client.connect(server.url, "Аnn")
    try:
        first = (await ann.quick_play("cicera")).table.id
        second = (await fake.quick_play("cicera")).table.id
        assert first != second
    finally:
        await ann.close()
        await fake.close()


async def test_chat_strips_invisible_characters(server: CardaviaServer) -> None:
    a = await Client.connect(server.url, "a")
    b = await Client.connect(server.url, "b")
    try:
        table = (await a.create_table("scopa", {"seat": 0})).table.id
        await b.spectate(table)
        await a.chat(table, "\u202eevil\u200b\ufeff\U000e0041 line")
        line = await b.wait_for(lambda m: isinstance(m, sm.ChatLine), 5)
        assert line.text == "evil line"
        with pytest.raises(ServerError) as info:
            await a.chat(table, "\u200b\u202e\u3164")
        assert info.value.code == "bad_message"
    finally:
        await a.close()
        await b.close()


@pytest.mark.parametrize(
    "look_alike",
    ["Ꭺnn", "𝐀nn", "Аnn", "Ａｎｎ", "ANN", "Ann\u0301"],  # Cherokee, math bold, Cyrillic …
)
def test_confusables_of_other_scripts_share_the_skeleton(look_alike: str) -> None:
    assert skeleton(look_alike) == skeleton("Ann")


def test_the_confusables_table_maps_sources_to_prototypes_not_ascii() -> None:
    table = confusables()
    assert table["Ꭺ"] == "A"  # CHEROKEE LETTER GO
    assert not any(ch.isascii() for ch in table)
    assert skeleton("Ben") != skeleton("Ann")
