"""``server.net.frames``: frames built by hand as websockets builds them, and a client's bytes
cut into the very frames websockets would read (``FrameSplitter``)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from server.net import frames as ws_frames
from server.net.frames import FrameSplitter

MAX = 70_000  # above 65,535: the 64-bit length form too

_OPCODES = (Opcode.BINARY, Opcode.BINARY, Opcode.TEXT, Opcode.CONT, Opcode.PING, Opcode.CLOSE)


@st.composite
def frames(draw: st.DrawFn, max_size: int = MAX) -> tuple[Frame, bool]:
    """A frame as a client might send it, and whether it is masked (clients must mask)."""
    opcode = draw(st.sampled_from(_OPCODES))
    control = opcode in (Opcode.PING, Opcode.CLOSE)
    sizes = [st.integers(0, 125)]  # the three length forms of RFC 6455 5.2
    if not control:
        sizes += [st.integers(126, min(65_535, max_size))]
        sizes += [st.integers(65_536, max_size)] if max_size > 65_535 else []
    size = draw(st.one_of(sizes))
    fin = True if control else draw(st.booleans())
    data = draw(st.binary(min_size=min(size, 8), max_size=min(size, 8))) * (size // 8 + 1)
    masked = draw(st.sampled_from((True, True, True, False)))
    return Frame(opcode, data[:size], fin), masked


def _wire(frame: Frame, masked: bool) -> bytes:
    return frame.serialize(mask=masked, extensions=[])


@st.composite
def cuts(draw: st.DrawFn, stream: bytes) -> list[bytes]:
    """``stream`` in chunks, as TCP might deliver it (single bytes included)."""
    points = sorted(draw(st.sets(st.integers(1, max(1, len(stream) - 1)), max_size=12)))
    bounds = [0, *[p for p in points if p < len(stream)], len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@settings(max_examples=150, deadline=None)
@given(st.lists(frames(), min_size=1, max_size=6), st.data())
def test_each_frame_comes_out_whole_and_only_final_masked_binary_ones_with_a_payload(
    sent: list[tuple[Frame, bool]], data: st.DataObject
) -> None:
    wires = [_wire(f, m) for f, m in sent]
    splitter = FrameSplitter(MAX)
    out: list[tuple[bytes, bytes | None]] = []
    for chunk in data.draw(cuts(b"".join(wires))):
        out.extend(splitter.frames(chunk))
    assert [whole for whole, _ in out] == wires
    for (frame, masked), (_, payload) in zip(sent, out, strict=True):
        fast = frame.opcode is Opcode.BINARY and frame.fin and masked
        assert payload == (frame.data if fast else None)
    assert not splitter.rest and not splitter.broken


@settings(max_examples=60, deadline=None)
@given(st.lists(frames(max_size=2_000), max_size=3), st.integers(2_001, 2**40), st.data())
def test_a_frame_announcing_more_than_the_limit_hands_everything_over_once(
    before: list[tuple[Frame, bool]], size: int, data: st.DataObject
) -> None:
    """websockets then refuses it (1009) from its header; the splitter is done."""
    head = b"".join(_wire(f, m) for f, m in before)
    big = bytes((0x82, 0xFF)) + size.to_bytes(8, "big") + b"\x00\x01\x02\x03" + b"x" * 10
    splitter = FrameSplitter(2_000)
    out: list[tuple[bytes, bytes | None]] = []
    fed = 0
    for chunk in data.draw(cuts(head + big)):
        out.extend(splitter.frames(chunk))
        fed += len(chunk)
        if splitter.broken:
            break
    assert splitter.broken
    # every byte read so far, in order, nothing kept back or doubled; the last piece
    # (from the big frame's header on) without a payload, for websockets to refuse
    assert b"".join(whole for whole, _ in out) == (head + big)[:fed]
    assert out[-1][1] is None and out[-1][0].startswith(big[:2])
    assert not splitter.rest


def test_an_unfinished_frame_waits_for_its_last_byte() -> None:
    wire = _wire(Frame(Opcode.BINARY, b"m" * 300), True)
    splitter = FrameSplitter(MAX)
    for i in range(len(wire) - 1):
        assert list(splitter.frames(wire[i : i + 1])) == []
    assert splitter.need == len(wire)  # known once the header is in: no re-reading it
    assert list(splitter.frames(wire[-1:])) == [(wire, b"m" * 300)]
    assert not splitter.rest and splitter.need == 0


def test_an_unmasked_binary_frame_has_no_payload_for_the_fast_path() -> None:
    """websockets sees it whole and fails the connection (clients must mask)."""
    wire = _wire(Frame(Opcode.BINARY, b"abc"), False)
    assert list(FrameSplitter(MAX).frames(wire)) == [(wire, None)]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_frames_built_by_hand_are_websockets_own(size: int) -> None:
    payload = bytes(i % 251 for i in range(size))
    for first, opcode in ((ws_frames.BINARY, Opcode.BINARY), (ws_frames.TEXT, Opcode.TEXT)):
        assert ws_frames.frame(first, payload) == Frame(opcode, payload).serialize(mask=False)
