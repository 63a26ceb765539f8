"""Secrets by reference: a config names where a secret is, never the secret itself.

    [adapters.discord]
    token = { "$env" = "DISCORD_TOKEN" }

A reference is a table with the one key `$env` naming an environment variable. It is what the file holds,
what the database stores, what `config show` prints and what an export carries, so a config file can be
committed and a database shared without leaking a token. The secret is read from the environment only
when its owner asks for it (`resolve`), and is never written back anywhere.

Under `[adapters.<name>]` and `[plugins.<name>]`, a setting whose name says it is a secret (`token`,
`api_key`, `secret`, `password`, or a name ending in `_token`, `_secret`, `_password`, `_api_key`) must be
a reference: a plain string there is refused, with the reference to write instead. A secret under some
other name cannot be recognised, so owners should name their secrets accordingly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidValue, describe

__all__ = ["ENV", "check", "is_reference", "is_secret_name", "resolve"]

ENV = "$env"
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
SECRET_NAMES = frozenset({"token", "api_key", "apikey", "secret", "password"})
SECRET_ENDINGS = ("_token", "_secret", "_password", "_api_key")


def is_secret_name(name: str) -> bool:
    name = name.lower()
    return name in SECRET_NAMES or name.endswith(SECRET_ENDINGS)


def is_reference(value: object) -> bool:
    return isinstance(value, Mapping) and set(value) == {ENV}


def _suggest(key: str) -> str:
    """`adapters.discord.token` -> `DISCORD_TOKEN`."""
    parts = key.split(".")[1:] or [key]
    return re.sub(r"[^A-Za-z0-9_]", "_", "_".join(parts)).upper()


def check(key: str, value: object) -> Any:
    """Refuse a secret written in the clear anywhere in `value` (a setting of `key`), or a bad reference."""
    _walk(key, key.rsplit(".", 1)[-1], value)
    return value


def _walk(where: str, name: str, value: object) -> None:
    if isinstance(value, Mapping):
        if ENV in value:
            target = value[ENV]
            if len(value) != 1 or not isinstance(target, str) or not VARIABLE.fullmatch(target):
                raise InvalidValue(
                    f'{where}: a secret reference is {{ "$env" = "NAME" }} with the name of an environment '
                    f"variable and nothing else, not {describe(dict(value))}"
                )
            return
        for inner, item in value.items():
            _walk(f"{where}.{inner}", str(inner), item)
        return
    if isinstance(value, list):
        for n, item in enumerate(value, 1):
            _walk(f"{where}[{n}]", name, item)
        return
    if is_secret_name(name):
        raise InvalidValue(
            f"{where} is a secret: never write it in the config; name the environment variable that holds "
            f'it instead, like {name} = {{ "$env" = "{_suggest(where)}" }}'
        )


def resolve(value: Any, environ: Mapping[str, str] | None = None, *, key: str = "a setting") -> Any:
    """`value` with every reference replaced by the secret it names, read from `environ` (the process's
    environment by default). A missing variable is an error naming the setting and the variable.

    The result is for the caller's use only: it is never stored, exported or printed by Mneme.
    """
    environ = os.environ if environ is None else environ
    if is_reference(value):
        variable = value[ENV]
        if variable not in environ:
            raise InvalidValue(f"{key}: the environment variable {variable} is not set")
        return environ[variable]
    if isinstance(value, Mapping):
        return {k: resolve(v, environ, key=f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, environ, key=key) for v in value]
    return value
