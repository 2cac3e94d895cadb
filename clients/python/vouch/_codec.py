"""JSON encoding and decoding of the dataclasses of :mod:`vouch.types`.

The dataclasses carry their JSON names in their fields' metadata ("json");
a field marked "extra" holds the members the schema does not name. The
type annotations drive decoding: a member is decoded as its field's type
says (a dataclass, a list or dict of them, a literal, a number).
"""

from __future__ import annotations

import dataclasses
import datetime
import typing as t

__all__ = ["DecodeError", "from_json", "to_json"]

T = t.TypeVar("T")


class DecodeError(ValueError):
    """A JSON value that does not have the type it should."""


def to_json(value: t.Any) -> t.Any:
    """Returns value as plain JSON data (dicts, lists, strings, numbers).

    A dataclass becomes an object under its members' JSON names, leaving out
    the optional fields that are None; a datetime becomes an RFC 3339
    string in UTC, a timedelta a Go duration ("90s"). Dicts and lists are
    converted member by member; anything else is returned as it is.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: t.Dict[str, t.Any] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.metadata.get("extra"):
                for k, x in (v or {}).items():
                    out[str(k)] = to_json(x)
                continue
            if v is None and not _required(f):
                continue
            out[f.metadata.get("json", f.name)] = to_json(v)
        return out
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        s = value.astimezone(datetime.timezone.utc).isoformat()
        return s.replace("+00:00", "Z")
    if isinstance(value, datetime.timedelta):
        return _duration(value)
    return value


def from_json(tp: t.Type[T], value: t.Any, strict: bool = False) -> T:
    """Decodes JSON data (as json.loads gives it) into the type tp.

    With strict, a member the type does not know, a required member that
    is missing, a value outside an enumeration or of another type is a
    :class:`DecodeError`; without, they are kept as they came (unknown
    members are dropped, missing ones are None).
    """
    return t.cast(T, _decode(tp, value, strict, "$"))


def _required(f: dataclasses.Field) -> bool:  # type: ignore[type-arg]
    return (
        f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING  # type: ignore[misc]
    )


_HINTS: t.Dict[type, t.Dict[str, t.Any]] = {}


def _hints(cls: type) -> t.Dict[str, t.Any]:
    h = _HINTS.get(cls)
    if h is None:
        h = t.get_type_hints(cls)
        _HINTS[cls] = h
    return h


def _decode(tp: t.Any, v: t.Any, strict: bool, path: str) -> t.Any:
    if tp is t.Any:
        return v
    origin = t.get_origin(tp)
    args = t.get_args(tp)
    if origin is t.Union:
        if v is None and type(None) in args:
            return None
        alts = [a for a in args if a is not type(None)]
        if len(alts) == 1:
            return _decode(alts[0], v, strict, path)
        for a in alts:
            try:
                return _decode(a, v, True, path)
            except DecodeError:
                continue
        return _mismatch(tp, v, strict, path)
    if v is None:
        return _mismatch(tp, v, strict, path)
    if origin is t.Literal:
        if v not in args:
            return _mismatch(tp, v, strict, path)
        return v
    if origin is list:
        if not isinstance(v, list):
            return _mismatch(tp, v, strict, path)
        elem = args[0] if args else t.Any
        return [_decode(elem, x, strict, f"{path}[{i}]") for i, x in enumerate(v)]
    if origin is dict:
        if not isinstance(v, dict):
            return _mismatch(tp, v, strict, path)
        elem = args[1] if len(args) == 2 else t.Any
        return {k: _decode(elem, x, strict, f"{path}.{k}") for k, x in v.items()}
    if dataclasses.is_dataclass(tp):
        return _decode_class(tp, v, strict, path)
    if tp is float:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
        return _mismatch(tp, v, strict, path)
    if tp is int:
        if isinstance(v, int) and not isinstance(v, bool):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return _mismatch(tp, v, strict, path)
    if tp in (str, bool):
        if type(v) is tp:
            return v
        return _mismatch(tp, v, strict, path)
    return v


def _decode_class(cls: type, v: t.Any, strict: bool, path: str) -> t.Any:
    if not isinstance(v, dict):
        return _mismatch(cls, v, strict, path)
    hints = _hints(cls)
    kwargs: t.Dict[str, t.Any] = {}
    known = set()
    extra_field = None
    for f in dataclasses.fields(cls):
        if f.metadata.get("extra"):
            extra_field = f.name
            continue
        name = f.metadata.get("json", f.name)
        known.add(name)
        if name in v:
            kwargs[f.name] = _decode(hints[f.name], v[name], strict, f"{path}.{name}")
        elif _required(f):
            if strict:
                raise DecodeError(f"{path}: {cls.__name__} lacks required member {name!r}")
            kwargs[f.name] = None
    rest = {k: x for k, x in v.items() if k not in known}
    if extra_field is not None:
        kwargs[extra_field] = rest
    elif rest and strict:
        names = ", ".join(sorted(rest))
        raise DecodeError(f"{path}: {cls.__name__} has no member {names}")
    return cls(**kwargs)


def _mismatch(tp: t.Any, v: t.Any, strict: bool, path: str) -> t.Any:
    if strict:
        raise DecodeError(f"{path}: {v!r} is not a {_name(tp)}")
    return v


def _name(tp: t.Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _duration(d: datetime.timedelta) -> str:
    """Formats a timedelta as a Go duration (whole seconds: "3600s")."""
    seconds = d.total_seconds()
    if seconds == int(seconds):
        return f"{int(seconds)}s"
    return f"{seconds:.6f}".rstrip("0") + "s"
