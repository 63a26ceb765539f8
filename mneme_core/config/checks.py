"""The checks a config value must pass, one small function per kind of value.

A check takes the name to blame (a config key such as `mood.step`, or an argument such as `daily_quota`) and
a value; it returns the value as it is stored (a whole number as an `int`, any other number as a `float`, a
zone as its string) or raises `InvalidValue` / `InvalidType` whose message starts with that name and says
what is allowed. Checks never touch the database, so a file is checked whole before anything is written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .. import dates
from ..errors import InvalidType, InvalidValue, describe
from ..messages import PLACEHOLDER

Check = Callable[[str, object], Any]

LANGUAGE = re.compile(r"[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?")
"""A display language: 'en', 'zh', 'zh-TW', 'pt_BR'."""

WORD = re.compile(r"[a-z][a-z0-9_-]{0,39}")
"""A role's or a feeling's key."""

EMBEDDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,199}")
"""An embedder's registered name: 'local', 'openai:text-embedding-3-small@256', 'model2vec:org/model'."""


def _shown(bound: float) -> str:
    return str(int(bound)) if bound == int(bound) else f"{bound:g}"


def number(low: float, high: float, *, whole: bool = False) -> Check:
    """A finite number in [low, high] (booleans are not numbers); `whole` for counts."""
    kind = "a whole number" if whole else "a number"
    bounds = f"from {_shown(low)} to {_shown(high)}"

    def check(name: str, value: object) -> int | float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not ok or (whole and value != int(value)) or not low <= value <= high:  # type: ignore[operator]
            raise InvalidValue(f"{name} is {kind} {bounds}, not {describe(value)}")
        return int(value) if whole else float(value)  # type: ignore[arg-type]

    return check


def text(limit: int, *, lines: bool = False, empty: bool = False) -> Check:
    """A string of at most `limit` characters: one line unless `lines`, not blank unless `empty`."""
    shape = "text" if lines else "one line"
    low = 0 if empty else 1

    def check(name: str, value: object) -> str:
        if not isinstance(value, str):
            raise InvalidType(f"{name} is {shape} of {low} to {limit} characters, not {describe(value)}")
        if len(value) > limit or (not empty and not value.strip()) or (not lines and "\n" in value):
            raise InvalidValue(f"{name} is {shape} of {low} to {limit} characters, not {describe(value)}")
        return value

    return check


def choice(*options: str) -> Check:
    def check(name: str, value: object) -> str:
        if value not in options:
            raise InvalidValue(f"{name} is one of {', '.join(options)}, not {describe(value)}")
        return value  # type: ignore[return-value]

    return check


def database(name: str, value: object) -> Any:
    """Where the memory is kept: "" (the path given to `Mneme` or `--db`), a SQLite file's path, a
    postgresql:// URL without a password, or a reference to an environment variable holding one."""
    from ..store.location import is_url, redacted
    from .secrets import check as secret_reference
    from .secrets import is_reference

    if isinstance(value, Mapping) and is_reference(value):
        return secret_reference(name, value)
    if not isinstance(value, str) or "\n" in value or len(value) > 4000:
        raise InvalidValue(
            f'{name} is a SQLite file\'s path or a postgresql:// URL (or {{ "$env" = "NAME" }}), '
            f"not {describe(value)}"
        )
    try:
        url = is_url(value)
    except InvalidValue as err:
        raise InvalidValue(f"{name}: {err}") from err
    if url and redacted(value) != value:
        raise InvalidValue(
            f"{name} holds a password: never write it in the config; put the URL in an environment variable "
            'and name it instead, like database = { "$env" = "MNEME_DATABASE" }'
        )
    return value


def language(name: str, value: object) -> str:
    if not isinstance(value, str) or not LANGUAGE.fullmatch(value):
        raise InvalidValue(f"{name} is a language code like 'en', 'zh' or 'zh-TW', not {describe(value)}")
    return value


def zone(name: str, value: object) -> str:
    """A zone as the config writes it: "" (the machine's), "UTC+8", or an IANA name; kept as the string."""
    try:
        if not isinstance(value, str):
            raise InvalidType("not a string")
        dates.zone_of(value)
    except (InvalidValue, InvalidType) as err:
        raise InvalidValue(
            f'{name} is "" for the machine\'s zone, an offset like "UTC+8" (up to 14 hours) or an IANA name '
            f'like "Asia/Shanghai", not {describe(value)}'
        ) from err
    return value


def embedder(name: str, value: object) -> str:
    """ "" (words only) or an embedder's name as it is registered. Whether something is registered under
    it depends on the plugins installed where the companion runs, so that is checked when it opens."""
    if not isinstance(value, str) or (value and not EMBEDDER.fullmatch(value)):
        raise InvalidValue(
            f'{name} is "" for words only or an embedder\'s registered name without spaces, like "local" or '
            f'"openai:text-embedding-3-small@256", not {describe(value)}'
        )
    return value


def words(name: str, value: object) -> list[str]:
    """A list of distinct one-line words, such as the sources the mood skips."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidType(f"{name} is a list of words, not {describe(value)}")
    found = list(value)
    for item in found:
        if not isinstance(item, str) or not item.strip() or item != item.strip() or len(item) > 40:
            raise InvalidValue(f"{name} is a list of words of 1 to 40 characters, not {describe(item)}")
    return sorted(set(found))


def placeholders(allowed: Iterable[str], shape: Check) -> Check:
    """Text that may use only the `{name}` placeholders in `allowed`; any other brace is kept as it is.

    Only what `messages.fill` would fill counts as a placeholder (`{lowercase_name}`), so JSON in a prompt
    (`{"text": "..."}`) passes, while a misspelt `{usr}` is refused instead of reaching a model as it is.
    """
    allowed = frozenset(allowed)
    offered = ", ".join(f"{{{p}}}" for p in sorted(allowed))
    may = f"it may use {offered}" if allowed else "it takes none"

    def check(name: str, value: object) -> str:
        value = shape(name, value)
        for found in PLACEHOLDER.findall(value):
            if found not in allowed:
                raise InvalidValue(f"{name}: no placeholder {{{found}}} here ({may})")
        return value

    return check


def table_list(item: str, fields: Mapping[str, Check], make: Callable[..., Any]) -> Check:
    """A non-empty list of tables (`[[roles]]`), each with only `fields`, each made into a value by `make`
    (whose own checks then run, blamed on the table), each key given once."""

    def check(name: str, value: object) -> list[dict[str, Any]]:
        if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
            raise InvalidType(f"{name} is a list of tables ([[{name}]]), not {describe(value)}")
        tables = list(value)
        if not tables:
            raise InvalidValue(f"{name} lists at least one {item}")
        found: list[dict[str, Any]] = []
        for n, table in enumerate(tables, 1):
            where = f"{name}[{n}]"
            if not isinstance(table, Mapping):
                raise InvalidType(f"{where} is a table of {', '.join(fields)}, not {describe(table)}")
            extra = [k for k in table if k not in fields]
            if extra:
                raise InvalidValue(f"{where}.{extra[0]}: no such field (a {item} has {', '.join(fields)})")
            if "key" not in table:
                raise InvalidValue(f"{where} needs a key")
            clean = {k: fields[k](f"{where}.{k}", v) for k, v in table.items()}
            try:
                made = make(**clean)
            except (InvalidValue, InvalidType, ValueError, TypeError) as err:
                raise InvalidValue(f"{where} ({clean['key']}): {err}") from err
            found.append(plain({k: getattr(made, k) for k in fields}))
        keys = [t["key"] for t in found]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise InvalidValue(f"{name} name each {item} once; {', '.join(twice)} came more than once")
        return found

    return check


def secret(variable: str) -> Check:
    """A secret's setting: a reference to the environment variable that holds it (`{ "$env" = "NAME" }`),
    like the one named here. A config never holds a secret in the clear (`secrets.check` refuses it before
    this runs); text reaches this check only from code, which may hand the secret itself."""

    def check(name: str, value: object) -> Any:
        if not isinstance(value, str | Mapping):
            raise InvalidType(
                f'{name} is a reference like {{ "$env" = "{variable}" }}, not {describe(value)}'
            )
        return value

    return check


def schedule(name: str, value: object) -> str:
    """When a job between conversations runs: "04:00", "6h", "30m" or "off" (`dates.schedule`)."""
    dates.schedule(value, name)
    return value.strip().lower()  # type: ignore[union-attr]


def boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidType(f"{name} is true or false, not {describe(value)}")
    return value


def key_word(name: str, value: object) -> str:
    if not isinstance(value, str) or not WORD.fullmatch(value):
        raise InvalidValue(
            f"{name} is a lowercase word of up to 40 letters, digits, _ or -, not {describe(value)}"
        )
    return value


def labels(name: str, value: object) -> dict[str, str]:
    """Labels by display language: `{ en = "your teacher", zh = "你的老师" }`."""
    if not isinstance(value, Mapping):
        raise InvalidType(
            f'{name} is a table of labels by language, like {{ en = "..." }}, not {describe(value)}'
        )
    check = text(80)
    return {language(f"{name}.{lang}", lang): check(f"{name}.{lang}", label) for lang, label in value.items()}


def plain(value: Any) -> Any:
    """A value as JSON and TOML hold it: tables as dicts, sets and tuples as lists (sets sorted)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
