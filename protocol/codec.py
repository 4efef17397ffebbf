"""msgpack binary frames (and JSON text frames) to and from the protocol models.

A frame is one msgpack map in a binary WebSocket frame.  :func:`decode_client`
is the server's edge: it turns any bytes into a validated
:data:`~protocol.client_messages.ClientMessage` or raises :class:`FrameError`
with the error code to answer (and the request id, if one could be read).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final, TypeVar, final

import msgpack  # type: ignore[import-untyped]
import ormsgpack
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator

from protocol import pydantic_adapter
from protocol.client_messages import ClientMessage
from protocol.errors import ErrorCode
from protocol.server_messages import ServerMessage

_M = TypeVar("_M")
_B = TypeVar("_B", bound=BaseModel)
_CLIENT: Final[TypeAdapter[ClientMessage]] = TypeAdapter(ClientMessage)
_SERVER: Final[TypeAdapter[ServerMessage]] = TypeAdapter(ServerMessage)


def _validating(adapter: TypeAdapter[_M]) -> Callable[..., _M]:
    """``adapter``'s validation of Python data: pydantic-core's own, without the
    wrapper ``TypeAdapter.validate_python`` puts around it (a third of a move's
    validation), when the adapter is built."""
    validator = adapter.validator
    if isinstance(validator, SchemaValidator):
        return validator.validate_python
    return adapter.validate_python


_VALIDATE_CLIENT: Final = _validating(_CLIENT)
_VALIDATE_SERVER: Final = _validating(_SERVER)
_MAX_ERRORS: Final = 3


class FrameError(ValueError):
    """A frame that is not a valid message: answer ``error`` with ``code``.

    ``ref`` is the ``id`` of the offending request when it could be read.
    """

    def __init__(self, code: ErrorCode, message: str, ref: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.ref = ref


def _fields_of(value: object) -> dict[str, Any]:
    """A model met inside a message: its fields in declaration order (msgpack's ``default``)."""
    if isinstance(value, BaseModel):
        return value.__dict__
    raise TypeError(f"cannot encode {type(value).__name__}")


def encode(message: BaseModel) -> bytes:
    """The msgpack frame of ``message``.

    The same bytes as packing ``message.model_dump()`` with ``msgpack``, without
    building that copy: ormsgpack (msgpack in Rust, faster on views:
    docs/performance.md, A move through the server) walks the model's own
    field values, nested models included (protocol models hold only fields,
    no private or computed attributes); map keys may be integers, as plain
    data's are.
    """
    return ormsgpack.packb(message.__dict__, default=_fields_of, option=_PACK_OPTIONS)


_UNPACKB: Final = msgpack.unpackb
"""What reads each client frame (a Final name: a C static when compiled, not two lookups)."""

_PACK_OPTIONS: Final = (
    ormsgpack.OPT_NON_STR_KEYS
    | ormsgpack.OPT_PASSTHROUGH_DATACLASS
    | ormsgpack.OPT_PASSTHROUGH_DATETIME
    | ormsgpack.OPT_PASSTHROUGH_UUID
)
"""Integer map keys (plain data's mappings keyed by seat) packed as msgpack ints; the
types ormsgpack would pack by itself (an engine dataclass, a date) refused, as
``msgpack`` does: only plain data and protocol models go on the wire."""


def unchecked(cls: type[_B], fields: dict[str, Any]) -> _B:
    """A ``cls`` message holding ``fields`` as they are, without validation.

    For the hot path only, where the server builds a message from values it
    made itself (a view from :func:`engine.codec.to_plain`, its own table
    id and version): validating them again costs more than encoding them.
    ``fields`` names every field of ``cls`` in declaration order (so the
    message encodes to the very bytes a validated one does; tests compare
    them), and is the message's own from then on.
    """
    names, name_set = _field_names(cls)
    if tuple(fields) != names:
        raise ValueError(f"{cls.__name__} has the fields {names}, not {tuple(fields)}")
    if not _BY_SLOTS:  # pydantic moved a slot (protocol.pydantic_adapter): its public path
        return _construct_public(cls, fields)
    message = _new(cls)
    _set_dict(message, fields)  # the slots of BaseModel, set through their descriptors
    _set_fields_set(message, name_set.copy())
    _set_extra(message, None)
    _set_private(message, None)
    return message


# pydantic's private slots, probed at import by protocol.pydantic_adapter (the only
# place that names them), bound to Final names here: compiled, C statics
_BY_SLOTS: Final = pydantic_adapter.BY_SLOTS
_construct_public: Final = pydantic_adapter.construct_public
_new: Final = object.__new__
_set_dict: Final = pydantic_adapter.SET_DICT
_set_fields_set: Final = pydantic_adapter.SET_FIELDS_SET
_set_extra: Final = pydantic_adapter.SET_EXTRA
_set_private: Final = pydantic_adapter.SET_PRIVATE


_FIELD_NAMES: Final[dict[type, tuple[tuple[str, ...], set[str]]]] = {}


def _field_names(cls: type[BaseModel]) -> tuple[tuple[str, ...], set[str]]:
    """The fields of ``cls`` in declaration order, and as a set (copied for each message)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = (tuple(cls.model_fields), set(cls.model_fields))
    return names


@final
class Frame:
    """A server message encoded once, sent as is to every connection that gets it.

    ``message`` is None for a frame another server process encoded, relayed as
    is to a msgpack connection (:mod:`server.cluster.bus`).  A frame made by
    :meth:`of_fields` is encoded from the message's fields when first sent
    (:attr:`data`), and the message itself is made only if asked for (for a
    JSON connection, say): the hot path's updates go out without a message
    object, and an update every recipient gets reduced (:meth:`derived`) is
    never encoded whole.
    """

    __slots__ = ("_data", "_derived", "_fields", "_message", "_type", "hint")

    def __init__(
        self,
        message: BaseModel | None,
        data: bytes | None,
        *,
        message_type: type[BaseModel] | None = None,
        fields: dict[str, Any] | None = None,
        hint: object = None,
    ) -> None:
        self._message = message
        self._type = message_type
        self._fields = fields
        self._data = data
        """None until first sent (a frame made from ``fields``)."""
        self._derived: tuple[object, Frame] | None = None
        self.hint = hint
        """What its maker noted for those who send it on, never sent itself (None:
        nothing): for a table's update, what changed in the view since the
        seat's last one (:mod:`server.net.view_changes`)."""

    @classmethod
    def of(cls, message: BaseModel) -> Frame:
        """``message`` with its encoding."""
        return Frame(message, encode(message))

    @classmethod
    def of_fields(
        cls, message_type: type[BaseModel], fields: dict[str, Any], hint: object = None
    ) -> Frame:
        """The frame of the ``message_type`` message holding ``fields`` (as
        :func:`unchecked` takes them: every field, in declaration order, plain
        data only): the same bytes as ``Frame.of(unchecked(message_type, fields))``,
        without making the message.

        Both constructors call :class:`Frame` itself, not ``cls`` (the class is
        final): compiled (``python -m compiled.build``), that builds the frame
        directly, while a call of ``cls`` went through Python's generic call
        with keywords, once for every frame of every move (docs/performance.md)."""
        return Frame(None, None, message_type=message_type, fields=fields, hint=hint)

    @property
    def data(self) -> bytes:
        """The encoded message."""
        data = self._data
        if data is None:
            data = self._data = ormsgpack.packb(self._fields, option=_PACK_OPTIONS)
        return data

    @property
    def fields(self) -> dict[str, Any] | None:
        """The fields it was made from (:meth:`of_fields`; read-only), else None."""
        return self._fields

    def derived(self, key: object, make: Callable[[Frame, Any], Frame | None]) -> Frame:
        """``make(self, key)``, or this frame where that is None, made once for the
        ``key`` last asked for (compared by identity): the frames that connections
        holding the same ``key`` send instead of this one (a frame made from fields)."""
        derived = self._derived
        if derived is not None and derived[0] is key:
            return derived[1]
        made = None if self._fields is None else make(self, key)
        frame = self if made is None else made
        self._derived = (key, frame)
        return frame

    @property
    def message_type(self) -> type[BaseModel] | None:
        """The class of the message (without making it); None for a relayed frame."""
        if self._type is not None:
            return self._type
        return None if self._message is None else type(self._message)

    @property
    def message(self) -> BaseModel | None:
        """The message (made now from its fields if the frame was made from them)."""
        message = self._message
        if message is None and self._type is not None and self._fields is not None:
            message = self._message = unchecked(self._type, self._fields)
        return message

    def __repr__(self) -> str:
        return f"Frame({self.message!r}, {len(self.data)} bytes)"


def _unpack(frame: bytes | str, *, trusted: bool) -> dict[str, Any]:
    """The map in a msgpack ``frame``; raise :class:`FrameError`.

    ``trusted``: a frame a Cardavia server wrote (for clients): unpacked by
    ormsgpack, the faster of the two on a view (docs/performance.md), into
    lists, with text keys only, as strictly as ``msgpack`` except that bytes
    after the map are not looked at.  A client's frame (the server's edge) is
    unpacked by ``msgpack``, which refuses those, arrays as tuples.
    """
    if isinstance(frame, str):
        raise FrameError(ErrorCode.BAD_MESSAGE, "send binary frames holding msgpack, not text")
    try:
        if trusted:
            data = ormsgpack.unpackb(frame)
        else:
            data = _UNPACKB(frame, raw=False, use_list=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated types on bad input
        reason = f"not a msgpack frame ({type(exc).__name__})"
        raise FrameError(ErrorCode.BAD_MESSAGE, reason) from None
    if not isinstance(data, dict):
        raise FrameError(ErrorCode.BAD_MESSAGE, "a message is a msgpack map")
    return data


def _request_id(data: dict[str, Any]) -> int | None:
    rid = data.get("id")
    if isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 2**53:
        return rid
    return None


def _describe(exc: ValidationError) -> tuple[ErrorCode, str]:
    errors = exc.errors(include_url=False)
    for err in errors:
        if err["type"] == "union_tag_invalid":
            return ErrorCode.UNKNOWN_TYPE, f"unknown message type {err['input'].get('type')!r}"
        if err["type"] == "union_tag_not_found":
            return ErrorCode.BAD_MESSAGE, "a message needs a 'type' field"
    parts = []
    for err in errors[:_MAX_ERRORS]:
        loc = ".".join(str(p) for p in err["loc"][1:]) or "message"
        parts.append(f"{loc}: {err['msg']}")
    more = len(errors) - _MAX_ERRORS
    if more > 0:
        parts.append(f"and {more} more")
    return ErrorCode.BAD_MESSAGE, "; ".join(parts)


def _validate(validate: Callable[..., _M], data: dict[str, Any], *, strict: bool | None) -> _M:
    """``data`` as a message of ``validate``'s union; raise :class:`FrameError` saying why not."""
    try:
        return validate(data, strict=strict)
    except ValidationError as exc:
        code, message = _describe(exc)
        raise FrameError(code, message, _request_id(data)) from None


def decode_client(frame: bytes | str) -> ClientMessage:
    """The validated client message in ``frame``; raise :class:`FrameError`.

    Arrays decode as tuples and fields are strict: ``"5"`` is not a number.
    """
    data = _unpack(frame, trusted=False)
    return _validate(_VALIDATE_CLIENT, data, strict=None)


def decode_server(frame: bytes | str) -> ServerMessage:
    """The validated server message in ``frame`` (for clients); raise :class:`FrameError`.

    Arrays inside game data decode as lists, as :func:`engine.codec.to_plain` makes them.
    """
    data = _unpack(frame, trusted=True)
    return _validate(_VALIDATE_SERVER, data, strict=False)


def encode_json(message: BaseModel) -> str:
    """The JSON text frame of ``message`` (the ``cardavia.json`` subprotocol)."""
    return json.dumps(message.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _tuples(value: Any) -> Any:
    """JSON arrays as tuples, as msgpack frames decode (``use_list=False``)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def decode_client_json(frame: bytes | str) -> ClientMessage:
    """The validated client message in a JSON text ``frame``; raise :class:`FrameError`.

    The same rules as :func:`decode_client`: one object, strict fields.
    """
    if not isinstance(frame, str):
        raise FrameError(ErrorCode.BAD_MESSAGE, "send text frames holding JSON, not binary")
    try:
        data = json.loads(frame, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise FrameError(
            ErrorCode.BAD_MESSAGE, f"not a JSON frame ({type(exc).__name__})"
        ) from None
    if not isinstance(data, dict):
        raise FrameError(ErrorCode.BAD_MESSAGE, "a message is a JSON object")
    data = _tuples(data)
    return _validate(_VALIDATE_CLIENT, data, strict=None)


def decode_server_json(frame: bytes | str) -> ServerMessage:
    """The validated server message in a JSON text ``frame`` (for clients and tests)."""
    if not isinstance(frame, str):
        raise FrameError(ErrorCode.BAD_MESSAGE, "expected a JSON text frame")
    try:
        data = json.loads(frame)
    except ValueError as exc:
        raise FrameError(
            ErrorCode.BAD_MESSAGE, f"not a JSON frame ({type(exc).__name__})"
        ) from None
    if not isinstance(data, dict):
        raise FrameError(ErrorCode.BAD_MESSAGE, "a message is a JSON object")
    return _validate(_VALIDATE_SERVER, data, strict=False)


def client_adapter() -> TypeAdapter[ClientMessage]:
    """The pydantic adapter of the client union (for schema generation)."""
    return _CLIENT


def server_adapter() -> TypeAdapter[ServerMessage]:
    """The pydantic adapter of the server union (for schema generation)."""
    return _SERVER
