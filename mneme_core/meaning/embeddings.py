"""Embedders: any function that turns texts into vectors, behind one interface, and the registry of them.

`Embeddings(fn, name="ollama:nomic-embed-text")` wraps a function `fn(texts: list[str])` that returns one
vector per text (a list of lists, or a numpy array), sync or async. Its `name` is what the file stores the
vectors under: two embedders never see each other's vectors, so changing the model never compares two
models' vectors; give a new name whenever the vectors would change (another model, other dimensions).

Every result is checked before it is used: one row per text, one dimension for every row (the first good
answer fixes it, unless `dimensions=` says it up front), finite numbers. Rows are L2-normalised float32, so
similarity is one dot product. A result that fails a check raises `EmbeddingError`, which the meaning tier
treats like an unreachable provider (the query falls through to words).

`floor`: the similarity under which this model's vectors say nothing. None (the default) has it measured
for each file (see `calibrate`).

`query`: the function that places a query, when the model embeds a question otherwise than a note (E5's
"query: " and "passage: "); `function` embeds notes, and queries too when `query` is not given.

`weight`: how much this model's similarity may count in recall, stated by whoever ships the model after
measuring it on the retrieval benchmark (`benchmarks/retrieval.py`): recall then fuses the notes' places
among the word matches and among the similar notes, the query's most similar note counting that share of
the best word match (see `mneme_core.memory.recall`). None (the default) is the cautious rule:
a model nobody measured must never make recall worse than words alone, and a weak one, or one that does not
know the language, would.

Registries: `register_embedder(embedder)` makes an embedder known to the whole process by name; the
`register_embedders(register)` hook fills each `Mneme`'s own plugin manager's registry
(`mneme.plugins.embedders`). A name is registered once in each; a second registration under the same name is
refused, naming who registered it first. An entry is an `Embeddings`, or a factory returning one that is
called on first use, so registering never loads a model or opens a connection.

Choosing by name (`choose_embedder`): `Mneme(embed="local")`, the config key `memory.embed` and
`mneme recall --meaning NAME` all name an embedder. The companion's plugin registry is asked first, then
the process's; "" means words only; an unknown name is refused, listing the names that are registered. A
factory may take two keywords, each passed only if it names them:
- `spec`: the registered name is then a family: "openai" also answers "openai:bge-m3@1024", and the
  factory gets spec="bge-m3@1024" (so one registration serves every model of an endpoint);
- `settings`: the factory gets its `[plugins.<registered name>]` table (secrets still as references).
Choosing is split from making so that `Mneme` refuses a bad name before it opens the file, and makes the
embedder with its settings once the config is read. A made embedder is kept per factory, spec and
settings, so two companions of one process that name the same model share one loaded copy of it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidType, InvalidValue, MnemeError, describe
from ..memory.note import count_of

__all__ = [
    "Choice",
    "EmbeddingError",
    "Embeddings",
    "as_embedder",
    "choose_embedder",
    "embedder_named",
    "register_embedder",
    "registered_embedders",
    "unregister_embedder",
]

TIMEOUT = 2.0
BATCH = 64
MAX_WEIGHT = 2.0


class EmbeddingError(MnemeError, RuntimeError):
    """An embedder failed, was too slow, or answered with vectors that cannot be used."""


def numpy() -> Any:
    """numpy, which the meaning tier needs (the `embed` and `openai` extras bring it)."""
    try:
        import numpy as np
    except ImportError as err:  # pragma: no cover - numpy is there wherever an embedder is
        raise MnemeError("embeddings need numpy: pip install numpy (or mneme-bots[embed])") from err
    return np


class Embeddings:
    """An embedder: a function from texts to vectors, a name to store them under, and the checks."""

    def __init__(
        self,
        function: Callable[[list[str]], Any],
        name: str | None = None,
        *,
        floor: float | None = None,
        weight: float | None = None,
        dimensions: int | None = None,
        timeout: float = TIMEOUT,
        batch: int = BATCH,
        query: Callable[[list[str]], Any] | None = None,
    ) -> None:
        if not callable(function):
            raise InvalidType(f"an embedder is a function texts -> vectors, not {type(function).__name__}")
        if query is not None and not callable(query):
            raise InvalidType(f"query is a function texts -> vectors, not {type(query).__name__}")
        if name is None:
            name = f"custom:{getattr(function, '__qualname__', type(function).__name__)}"
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise InvalidValue(
                f"an embedder's name is a short string like 'ollama:bge-m3', not {describe(name)}"
            )
        if floor is not None and not (isinstance(floor, int | float) and -1.0 < floor < 1.0):
            raise InvalidValue(f"floor is a similarity between -1 and 1, not {describe(floor)}")
        if weight is not None and (
            isinstance(weight, bool) or not isinstance(weight, int | float) or not 0.0 < weight <= MAX_WEIGHT
        ):
            raise InvalidValue(
                f"an embedder's weight is above 0 and at most {MAX_WEIGHT}, not {describe(weight)}"
            )
        if dimensions is not None and (isinstance(dimensions, bool) or not isinstance(dimensions, int)):
            raise InvalidValue(f"dimensions is a whole number, not {describe(dimensions)}")
        if not (isinstance(timeout, int | float) and timeout > 0):
            raise InvalidValue(f"timeout is a number of seconds above 0, not {describe(timeout)}")
        count_of("batch", batch, 1)
        self.function = function
        self.query = function if query is None else query
        self.name = name.strip()
        self.floor = None if floor is None else float(floor)
        self.weight = None if weight is None else float(weight)
        self.dimensions = dimensions
        self.timeout = float(timeout)
        self.batch = batch

    def __repr__(self) -> str:
        return f"Embeddings({self.name!r})"

    async def embed(self, texts: Sequence[str]) -> Any:
        """Vectors for `texts`, checked and normalised, within `timeout` (a query, on the caller's loop)."""
        texts = list(texts)
        try:
            async with asyncio.timeout(self.timeout):  # no task of its own, as wait_for makes: every query
                if inspect.iscoroutinefunction(self.query):
                    result = await self.query(texts)
                else:
                    result = await asyncio.to_thread(self.query, texts)
                    if inspect.isawaitable(result):
                        result = await result
        except TimeoutError as err:
            raise EmbeddingError(f"{self.name} took longer than {self.timeout:g} s") from err
        return self.check(texts, result)

    def embed_sync(self, texts: Sequence[str], loop: asyncio.AbstractEventLoop | None = None) -> Any:
        """Vectors for `texts` from plain code (the background writer's thread).

        An async function runs on `loop` when one is given and running (the loop the companion's async
        calls come from, where the function's own client lives), else on a loop of its own.
        """
        texts = list(texts)
        result = self.function(texts)
        if inspect.isawaitable(result):
            if loop is not None and loop.is_running() and not _on_loop(loop):
                future = asyncio.run_coroutine_threadsafe(_awaited(result), loop)
                try:
                    result = future.result(self.timeout * 4)
                except TimeoutError as err:
                    future.cancel()
                    raise EmbeddingError(f"{self.name} took longer than {self.timeout * 4:g} s") from err
            elif _running_here():  # plain code called from async code: a loop of its own, on a thread
                with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mneme-embed-run") as pool:
                    result = pool.submit(asyncio.run, _awaited(result)).result()
            else:
                result = asyncio.run(_awaited(result))
        return self.check(texts, result)

    def check(self, texts: list[str], result: Any) -> Any:
        """The vectors as an L2-normalised float32 matrix, one row per text; EmbeddingError when unusable."""
        np = numpy()
        try:
            matrix = np.asarray(result, dtype=np.float32)
        except (TypeError, ValueError) as err:
            raise EmbeddingError(f"{self.name} returned something that is not vectors") from err
        if matrix.ndim == 1 and len(texts) == 1:
            matrix = matrix[None, :]
        if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] == 0:
            raise EmbeddingError(
                f"{self.name} returned vectors of shape {matrix.shape} for {len(texts)} texts"
            )
        if self.dimensions is None:
            self.dimensions = int(matrix.shape[1])
        elif matrix.shape[1] != self.dimensions:
            raise EmbeddingError(
                f"{self.name} returned {matrix.shape[1]} dimensions where it had {self.dimensions}"
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingError(f"{self.name} returned vectors with NaN or infinite numbers")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms > 0, norms, 1.0)


async def _awaited(result: Any) -> Any:
    return await result


def _running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def as_embedder(value: object) -> Embeddings:
    """An `Embeddings` from what a caller gave: one already, a registered name, an object with `embed`
    and `name`, or a bare function (named "custom:<its qualified name>")."""
    if isinstance(value, Embeddings):
        return value
    if isinstance(value, str):
        return embedder_named(value)
    embed = getattr(value, "embed", None)
    if callable(embed) and isinstance(getattr(value, "name", None), str):
        return Embeddings(
            embed, name=value.name, floor=getattr(value, "floor", None), weight=getattr(value, "weight", None)
        )
    if callable(value):
        return Embeddings(value)
    raise InvalidType(
        f"embed is an Embeddings, a registered embedder's name or a function texts -> vectors, "
        f"not {type(value).__name__}"
    )


# -- the registry -----------------------------------------------------------------------------------------

_registry: dict[str, tuple[Embeddings | Callable[[], Embeddings], str]] = {}
_registry_lock = threading.Lock()


def register_embedder(
    embedder: Embeddings | Callable[[], Embeddings], *, name: str | None = None, plugin: str = "unknown"
) -> None:
    """Make an embedder known by name. A factory (a function of no arguments returning `Embeddings`) is
    called on first use, so a plugin can register a model without loading it."""
    key = name or getattr(embedder, "name", None)
    if not isinstance(key, str) or not key.strip():
        raise InvalidValue("an embedder is registered under a name: pass name= with a factory")
    with _registry_lock:
        if key in _registry:
            raise InvalidValue(f"an embedder named {key!r} is already registered by {_registry[key][1]}")
        _registry[key] = (embedder, plugin)


def unregister_embedder(name: str) -> None:
    with _registry_lock:
        _registry.pop(name, None)


def registered_embedders() -> dict[str, str]:
    """Each registered embedder's name, and the plugin that registered it."""
    with _registry_lock:
        return {name: plugin for name, (_e, plugin) in _registry.items()}


def embedder_named(name: str) -> Embeddings:
    """The embedder registered in this process under `name` (a family's member included), made now."""
    made = choose_embedder(name).make()
    if made is None:
        raise InvalidValue(f"an embedder's name is not blank: {describe(name)}")
    return made


# -- choosing by name ---------------------------------------------------------------------------------------

Tables = Callable[[str], Mapping[str, Any]]
"""The `[plugins.<name>]` table of a registered name (what `Config.table("plugins.<name>")` gives)."""

_made: dict[tuple[Any, str | None, str], Embeddings] = {}
_made_lock = threading.Lock()


def _takes(factory: Any, keyword: str) -> bool:
    """Whether `factory` can be called with `keyword=`."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: called with no arguments
        return False
    return any(
        (p.name == keyword and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)) or p.kind == p.VAR_KEYWORD
        for p in parameters
    )


def _is_factory(entry: Any) -> bool:
    return not isinstance(entry, Embeddings) and callable(entry)


@dataclass(frozen=True)
class Choice:
    """An embedder chosen by name (or given as one), checked but not made yet.

    `entry` is None for words only. `registered` is the registry name that answered (the name itself, or
    its family, "openai" for "openai:bge-m3@1024"), `spec` what followed the family's colon."""

    name: str
    entry: Any = None
    registered: str = ""
    spec: str | None = None

    @property
    def words_only(self) -> bool:
        return self.entry is None

    def make(self, tables: Tables | None = None) -> Embeddings | None:
        """The `Embeddings` (None for words only), the factory called now with what it takes."""
        if self.entry is None:
            return None
        if not _is_factory(self.entry):
            return as_embedder(self.entry)
        settings: Mapping[str, Any] = {}
        if tables is not None and _takes(self.entry, "settings"):
            try:
                settings = tables(self.registered)
            except InvalidValue:  # a name that cannot have a [plugins.<name>] table has no settings
                settings = {}
        try:
            key: tuple[Any, str | None, str] | None = (
                self.entry,
                self.spec,
                json.dumps(settings, sort_keys=True, default=repr),
            )
            hash(key)
        except TypeError:  # an unhashable factory object: made afresh each time
            key = None
        if key is not None:
            with _made_lock:
                found = _made.get(key)
            if found is not None:
                return found
        made = self._call(settings)
        if key is not None:
            with _made_lock:
                made = _made.setdefault(key, made)
        return made

    def check(self) -> None:
        """Call a family's factory with the spec alone (factories are cheap by contract: they load and
        connect on first use), so a bad spec is refused naming it before anything is opened."""
        if self.spec is not None and _is_factory(self.entry):
            self._call({})

    def _call(self, settings: Mapping[str, Any]) -> Embeddings:
        given: dict[str, Any] = {}
        if self.spec is not None:
            given["spec"] = self.spec
        if _takes(self.entry, "settings"):
            given["settings"] = dict(settings)
        try:
            made = self.entry(**given)
        except (MnemeError, ValueError, TypeError):
            raise  # the factory's own refusal names the value already
        except Exception as err:  # a plugin's factory: name the embedder rather than show its internals
            raise MnemeError(
                f"the embedder {self.name!r} could not be made: {type(err).__name__}: {err}"
            ) from err
        return as_embedder(made)


def _entries() -> dict[str, Any]:
    with _registry_lock:
        return {name: entry for name, (entry, _plugin) in _registry.items()}


def choose_embedder(value: object, plugins: Mapping[str, Any] | None = None, *, key: str = "embed") -> Choice:
    """What `value` names: an embedder given as one (`as_embedder`), "" for words only, or a registered
    name looked up in `plugins` (a companion's `mneme.plugins.embedders`), then in this process's registry.

    Refuses, naming `key` and the value, a name that nothing registered, listing the names that are."""
    if not isinstance(value, str):
        embedder = as_embedder(value)
        return Choice(embedder.name, embedder, embedder.name)
    name = value.strip()
    if not name:
        return Choice("")
    registries = [r for r in (plugins, _entries()) if r is not None]
    for registry in registries:
        if name in registry:
            return Choice(name, registry[name], name)
    family, colon, spec = name.partition(":")
    if colon and spec:
        for registry in registries:
            entry = registry.get(family)
            if entry is not None and _is_factory(entry) and _takes(entry, "spec"):
                found = Choice(name, entry, family, spec)
                found.check()
                return found
    known: list[str] = []
    for registry in registries:
        for registered, entry in registry.items():
            family_too = _is_factory(entry) and _takes(entry, "spec")
            known += [registered, f"{registered}:<model>"] if family_too else [registered]
    listed = ", ".join(sorted(set(known))) or "none"
    raise InvalidValue(
        f'{key}: no embedder is registered as {name!r} (registered: {listed}; "" keeps recall to words)'
    )
