"""A small JSON Schema validator for the subset ``protocol.game_schema`` writes.

``jsonschema`` is not a dependency; this checks the keywords the generator
uses (type, properties, required, additionalProperties, items, prefixItems,
minItems, maxItems, uniqueItems, enum, const, oneOf, anyOf, allOf, ``$ref``
into the document) and refuses any other keyword, so a schema can never
silently pass because a keyword is ignored.
"""

from __future__ import annotations

from typing import Any

ANNOTATIONS = frozenset({"description", "default", "title", "$schema", "$comment"})
KEYWORDS = ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    "allOf",
    "$ref",
}

TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


class Invalid(ValueError):
    """A value that does not match its schema; the message says where."""


def _same(a: Any, b: Any) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def resolve(root: dict[str, Any], ref: str) -> Any:
    """The schema a ``#/a/b`` reference points at inside ``root``."""
    if not ref.startswith("#/"):
        raise Invalid(f"unsupported $ref {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(value: Any, schema: Any, root: dict[str, Any], where: str = "$") -> None:
    """Raise :class:`Invalid` unless ``value`` matches ``schema`` (refs resolved in ``root``)."""
    if schema is True:
        return
    if schema is False:
        raise Invalid(f"{where}: no value allowed here")
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise AssertionError(f"{where}: the checker does not know {sorted(unknown)}")
    if "$ref" in schema:
        validate(value, resolve(root, schema["$ref"]), root, where)
    if "type" in schema and not TYPES[schema["type"]](value):
        raise Invalid(f"{where}: expected {schema['type']}, got {value!r}")
    if "const" in schema and not _same(value, schema["const"]):
        raise Invalid(f"{where}: expected {schema['const']!r}, got {value!r}")
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        raise Invalid(f"{where}: {value!r} is not one of {schema['enum']!r}")
    for sub in schema.get("allOf", ()):
        validate(value, sub, root, where)
    any_of = schema.get("anyOf")
    if any_of is not None and not any(_matches(value, s, root, where) for s in any_of):
        raise Invalid(f"{where}: {value!r} matches none of anyOf")
    if "oneOf" in schema:
        hits = sum(_matches(value, s, root, where) for s in schema["oneOf"])
        if hits != 1:
            raise Invalid(f"{where}: {value!r} matches {hits} of oneOf, not exactly one")
    if isinstance(value, dict):
        _object(value, schema, root, where)
    if isinstance(value, list):
        _array(value, schema, root, where)


def _matches(value: Any, schema: Any, root: dict[str, Any], where: str) -> bool:
    try:
        validate(value, schema, root, where)
    except Invalid:
        return False
    return True


def _object(
    value: dict[str, Any], schema: dict[str, Any], root: dict[str, Any], where: str
) -> None:
    properties = schema.get("properties", {})
    for name in schema.get("required", ()):
        if name not in value:
            raise Invalid(f"{where}: missing {name!r}")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if not isinstance(name, str):
            raise Invalid(f"{where}: key {name!r} is not a string")
        if name in properties:
            validate(item, properties[name], root, f"{where}.{name}")
        else:
            validate(item, extra, root, f"{where}.{name}")


def _array(value: list[Any], schema: dict[str, Any], root: dict[str, Any], where: str) -> None:
    if len(value) < schema.get("minItems", 0):
        raise Invalid(f"{where}: fewer than {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise Invalid(f"{where}: more than {schema['maxItems']} items")
    prefix = schema.get("prefixItems", [])
    for i, item in enumerate(value):
        sub = prefix[i] if i < len(prefix) else schema.get("items", True)
        validate(item, sub, root, f"{where}[{i}]")
    if schema.get("uniqueItems"):
        for i, a in enumerate(value):
            if any(_same(a, b) for b in value[:i]):
                raise Invalid(f"{where}: item {i} is repeated")
