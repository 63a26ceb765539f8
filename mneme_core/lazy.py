"""Names a plugin package hands out without importing them until they are used.

An adapter package is loaded as a plugin whenever a `Mneme` lists its plugins; what it exports (an adapter
class, a cog) needs the platform's library and the bot layer, which a `Mneme` that only remembers must never
load. `lazy_names(globals(), names)` is the package's module `__getattr__`: each name is imported from its
submodule on first use and kept in the package, so the package always hands out the object it handed out
first (discord.py's `reload_extension` replaces the submodules, not what callers hold). A library that is
missing is said in one line (`needs`: the library's import name and what to install).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    kept: dict[str, Any], names: Mapping[str, str], *, needs: tuple[str, str] | None = None
) -> Callable[[str], Any]:
    """A module `__getattr__` for the package whose globals are `kept`: `names` maps each exported name to
    its submodule."""
    package = kept["__name__"]

    def find(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if name not in kept:
            try:
                module = importlib.import_module(f".{names[name]}", package)
            except ModuleNotFoundError as err:
                library = needs[0] if needs else None
                if library and (err.name == library or (err.name or "").startswith(library + ".")):
                    raise ImportError(needs[1]) from err  # type: ignore[index]
                raise
            kept[name] = getattr(module, name)
        return kept[name]

    return find
