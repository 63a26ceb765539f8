"""TOML in and out: a config file's nested tables to flat keys, and flat keys back to a file.

Reading uses `tomllib`; every value written goes through `tomli-w`, so whatever Mneme writes, Mneme reads
back to the same values. Writing is laid out by hand around those values: one `[table]` per section in the
template's order, `[[roles]]` and `[[emotions]]` as arrays of tables, small tables inline
(`thresholds = { luna = 0.45 }`, `token = { "$env" = "DISCORD_TOKEN" }`), prompts as multi-line strings, and,
for the template, a comment above each key saying what it allows.

The shape of a file:

    [companion] [memory] [storage] [mood] [relations] [prompts]   key = value
    [[roles]] [[emotions]]                                        each a whole list
    [messages.<lang>]   "notes.header" = "..."  (quoted or bare dotted keys both mean `notes.header`)
    [adapters.<name>] [plugins.<name>]                            their owners' own settings

A mapping may be given instead of a file, nested the same way or with flat keys (`{"mood.step": 4}`).
"""

from __future__ import annotations

import logging
import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from typing import Any

import tomli_w

from .. import files
from ..errors import InvalidType, InvalidValue, describe
from . import keys, mneme_llm
from .keys import FREE, KEYS, LISTS, SECTIONS, ConfigError

log = logging.getLogger(__name__)

__all__ = ["dumps", "flatten", "inline", "load", "name_of", "order", "read", "refusal", "template"]

Source = Mapping[str, Any] | str | os.PathLike[str]


def read(source: Source) -> tuple[Mapping[str, Any], str]:
    """The tables of a config (a TOML file's path, or a mapping), and how to name it in a message."""
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        try:
            return tomllib.loads(files.read_text(path, "config file")), path
        except files.FileRefused as err:  # not there, not readable, not UTF-8: one line naming the file
            raise ConfigError(str(err)) from err
        except tomllib.TOMLDecodeError as err:
            raise ConfigError(f"{path} is not valid TOML: {err}") from err
    if not isinstance(source, Mapping):
        raise InvalidType(f"a config is a mapping or the path of a TOML file, not {type(source).__name__}")
    return source, name_of(source)


def name_of(source: Source | None) -> str:
    """How a message names a config: its path, or "the config"."""
    return os.fspath(source) if isinstance(source, str | os.PathLike) else "the config"


def flatten(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """Nested tables to flat keys, and the problems of shape found on the way (key -> message)."""
    flat: dict[str, Any] = {}
    problems: dict[str, str] = {}

    def table(name: str, body: object) -> Mapping[str, Any]:
        if isinstance(body, Mapping):
            return body
        problems[name] = f"{name} is a table ([{name}]), not {describe(body)}"
        return {}

    for top, body in data.items():
        top = str(top)
        if "." in top or top in LISTS or top not in SECTIONS:
            flat[top] = body  # a flat key, a whole list, or something `keys.lookup` will refuse
        elif top == "messages":
            for lang, sentences in table(top, body).items():
                for key, sentence in _dotted(table(f"messages.{lang}", sentences)):
                    flat[f"messages.{lang}.{key}"] = sentence
        elif top in FREE:
            for owner, settings in table(top, body).items():
                for key, value in table(f"{top}.{owner}", settings).items():
                    flat[f"{top}.{owner}.{key}"] = value
        else:
            for key, value in table(top, body).items():
                flat[f"{top}.{key}"] = value
    return flat, problems


def _dotted(table: Mapping[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    """`{"notes": {"header": "..."}}` (bare `notes.header = ...`) -> `("notes.header", "...")`."""
    for key, value in table.items():
        if isinstance(value, Mapping):
            yield from _dotted(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def database(source: Source | None) -> str | None:
    """The `[storage] database` a config names (a reference read from the environment), if any: where the
    memory is kept when no path is given (`Mneme(config=...)`, `mneme --config`)."""
    if source is None:
        return None
    data, _ = read(source)
    storage = data.get("storage")
    value = storage.get("database") if isinstance(storage, Mapping) else None
    if value is None or value == "":
        return None
    from .checks import database as check
    from .secrets import resolve

    check("storage.database", value)
    found = resolve(value, key="storage.database")
    return found or None


def load(
    source: Source, left_out: dict[str, str] | None = None, declared: keys.Declared | None = None
) -> dict[str, Any]:
    """A config's flat keys with their values checked one by one, or `ConfigError` naming every bad key.

    A mneme-llm config is read too (`mneme_llm`): what has an equivalent is mapped, and each key without
    one is logged and, when `left_out` is given, put there with why. Checks across keys (the mood's band)
    need the values already in effect, so `Config` runs them. `declared` are the keys installed adapters
    and plugins read from their own tables (`keys.lookup`).
    """
    data, name = read(source)
    flat, problems = flatten(data)
    try:
        return check_all(flat, name, problems, declared)
    except ConfigError as refused:
        if not mneme_llm.speaks_mneme_llm(flat, refused.problems):
            raise
    translated = mneme_llm.translate(flat)
    values = check_all(translated.values, f"{name} (read as a mneme-llm config)", declared=declared)
    if translated.left_out:
        log.warning(
            "%s is a mneme-llm config: %d keys have no equivalent in Mneme and are left out: %s",
            name,
            len(translated.left_out),
            "; ".join(f"{key} ({why})" for key, why in translated.left_out.items()),
        )
    if left_out is not None:
        left_out.update(translated.left_out)
    return values


def check_all(
    flat: Mapping[str, Any],
    name: str,
    problems: dict[str, str] | None = None,
    declared: keys.Declared | None = None,
) -> dict[str, Any]:
    problems = dict(problems or {})
    checked: dict[str, Any] = {}
    for key, value in flat.items():
        try:
            checked[key] = keys.lookup(key, declared).check(key, value)
        except (InvalidValue, InvalidType) as err:
            problems[key] = str(err)
    if problems:
        raise refusal(name, problems)
    return checked


def refusal(name: str, problems: Mapping[str, str]) -> ConfigError:
    """One error for every problem of a config, on one line; nothing of it is written."""
    found = list(problems.values())
    if len(found) == 1:
        return ConfigError(f"{name} is refused: {found[0]}", problems)
    return ConfigError(f"{name} is refused, {len(found)} problems: {'; '.join(found)}", problems)


# -- writing ---------------------------------------------------------------------------------------------


def _key(part: str) -> str:
    """A key as TOML writes it: bare when it can be, quoted otherwise (tomli-w decides)."""
    return tomli_w.dumps({part: 0})[: -len(" = 0\n")]


def inline(value: Any, *, top: bool = False) -> str:
    """A value on one line (or a multi-line string at the top of a table), each scalar written by tomli-w."""
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_key(str(k))} = {inline(v)}" for k, v in value.items())
        return f"{{ {inner} }}" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    # tomli-w writes a carriage return raw in a multi-line string, where TOML readers may turn "\r\n"
    # into "\n"; such a text is written on one line, with the return escaped.
    multiline = top and not (isinstance(value, str) and "\r" in value)
    written = tomli_w.dumps({"v": value}, multiline_strings=multiline)
    return written[len("v = ") : -1]


def _where(key: str) -> tuple[str, str]:
    """The table a flat key is written in, and its key there."""
    section, _, rest = key.partition(".")
    if section == "messages" or section in FREE:
        owner, _, leaf = rest.partition(".")
        return f"{section}.{owner}", leaf
    return section, rest


def order(key: str) -> tuple[int, int, str]:
    section = key.partition(".")[0]
    rank = SECTIONS.index(section) if section in SECTIONS else len(SECTIONS)
    known = list(KEYS)
    return rank, known.index(key) if key in KEYS else len(known), key


SECTION_NOTES = {
    "prompts": "The prompts given to models. Each may use only the placeholders named above it; any other "
    "brace is kept as it is.",
    "messages": "Every sentence shown to people, by display language. Give [messages.<lang>] for another "
    "language: a sentence it lacks comes from its base language (zh for zh-TW), then English.",
}

HEADER = """\
# A Mneme companion's config: every key, with the defaults of mneme-bots {version}.
# Keep only what you change. The first time a database meets the companion (its space) it takes this file;
# from then on the database keeps its own copy: change it with `mneme config set KEY VALUE` or
# `mneme config apply FILE`. Given again (--config), the file's [adapters.*] and [plugins.*] tables are
# taken at each start, and where it differs in the rest, one line says so (`mneme config check FILE`).
"""

FOOTER = """
# Adapters and plugins keep their own settings in their own tables. Secrets are written by reference, to
# the environment variable that holds them, never in the file:
# [adapters.discord]
# token = { "$env" = "DISCORD_TOKEN" }
# [plugins.<name>]
"""


def dumps(values: Mapping[str, Any], *, notes: bool = False, header: str = "") -> str:
    """Flat keys as a TOML file; with `notes`, a comment above each key says what it allows."""
    tables: dict[str, list[str]] = {}
    lists: list[str] = []
    noted: set[str] = set()
    for key in sorted(values, key=order):
        value = values[key]
        rule = KEYS[key].rule if notes and key in KEYS else ""
        if key in LISTS:
            lists.append(key)
            continue
        table, leaf = _where(key)
        lines = tables.setdefault(table, [])
        section = table.partition(".")[0]
        if notes and section in SECTION_NOTES and section not in noted:
            noted.add(section)
            lines.extend(f"# {line}" for line in _wrap(SECTION_NOTES[section]))
        if rule:
            lines.append(f"# {rule}")
        lines.append(f"{_key(leaf)} = {inline(value, top=True)}")
    out = [header] if header else []
    layout = sorted({*tables, *lists}, key=lambda t: SECTIONS.index(t.partition(".")[0]))
    for table in layout:
        if table in lists:
            out.append(_array(table, values[table], KEYS[table].rule if notes else ""))
        else:
            head = ".".join(_key(part) for part in table.split(".", 1))
            out.append("\n".join([f"[{head}]", *tables[table]]) + "\n")
    return "\n".join(out)


def _array(name: str, tables: list[Mapping[str, Any]], rule: str) -> str:
    lines = [f"# {line}" for line in _wrap(rule)] if rule else []
    for n, table in enumerate(tables):
        lines.extend(["", f"[[{name}]]"] if n else [f"[[{name}]]"])
        lines.extend(f"{_key(k)} = {inline(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int = 108) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def template(declared: keys.Declared | None = None, owner: Callable[[str], str] | None = None) -> str:
    """Every key with this version's defaults, as a commented file to start from; with `declared`, every key
    the installed adapters and plugins read from their own tables too (`owned`)."""
    try:
        version = metadata.version("mneme-bots")
    except metadata.PackageNotFoundError:
        version = "(not installed)"
    made = dumps(keys.defaults(), notes=True, header=HEADER.format(version=version)) + FOOTER
    return made + owned(declared, owner) if declared else made


def owned(declared: keys.Declared, owner: Callable[[str], str] | None = None) -> str:
    """The tables adapters and plugins declared, each key commented out (so the file means the same) with
    what it allows above it, and its default, or an example where it has none; `owner(key)` says who reads
    it ("the plugin discord")."""
    tables: dict[str, list[keys.Key]] = {}
    for key in declared.values():
        tables.setdefault(key.name.rsplit(".", 1)[0], []).append(key)
    out = []
    for table, found in sorted(tables.items()):
        whose = f"read by {owner(found[0].name)}; " if owner else ""
        lines = [f"# [{table}]  ({whose}uncomment what you set)"]
        for key in found:
            value = key.example if key.default is keys.MISSING else key.default
            example = " (no default; an example below)" if key.default is keys.MISSING else ""
            lines.extend(f"#   {line}" for line in _wrap(key.rule + example, 104))
            lines.append(f"# {_key(key.name.rsplit('.', 1)[1])} = {inline(value)}")
        out.append("\n".join(lines) + "\n")
    return "\n" + "\n".join(out)
