"""The plugin manager: one per `Mneme`, holding the installed plugins and their registries.

`make_manager()` builds it in a fixed order, as tox and datasette do: the hook specs (`hookspecs`), the
installed plugins (entry points of group `mneme`), any plugin objects the caller passes, then the checks.
The bot layer registers its own built-in behaviour (the console adapter, the offline stand-in, the fallback
subject) on the same manager when a bot starts (`mneme_core.bot.hooks.ready`), so the engine loads none of
it. Everything that can be wrong with a plugin is found there, at start-up, and
raised as a `PluginError` naming the plugin and its distribution: an entry point that does not import, a
hook implementation whose arguments the spec does not have, a misspelt hook (`check_pending`), a hook
wrapper (refused: see `hookspecs`), a bad or duplicate registration. At run time a plugin that raises is
named in the log and skipped (`calling`).

There is no module-global manager: each `Mneme` has its own, so two companions in one process (or two
tests) never share registrations.

Switches for operators, read from `environ`:
- `MNEME_LOAD_PLUGINS`: a comma-separated allow-list of installed plugins to load, by entry-point name or
  distribution name; empty loads none of them. The bot layer's built-in plugins always load.
- `MNEME_TRACE_PLUGINS`: any value but empty, 0, false, no or off logs every hook call (plugin, arguments,
  result, time taken) to the `mneme_core.plugins.trace` logger at INFO.

Registries: each `register_*` hook fills one `Registry` (`manager.adapters`, `.providers`, `.embedders`,
`.tiers`, `.emotions`, `.roles`, `.tools`, `.migrations`, `.settings`; see `registries`), which checks what a
plugin registers, refuses a second entry of a name (naming both plugins) and remembers who registered what.
They are collected at start-up (the bot's two, adapters and providers, when a bot starts) and again after a
plugin is registered or unregistered later.

The engine's hooks with a meaning of their own have a method each here (`astartup`, `ashutdown`,
`afilter_note`, `atrack`, `add_commands`), so the policy of each (fail closed, commands never replaced)
lives in one place; the bot layer's (`resolve_subject`, `extra_prompt_sections`) are in `bot.hooks`.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib.metadata
import inspect
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pluggy

from . import calling, hookspecs
from .config.keys import Key
from .decide import run
from .errors import InvalidType, InvalidValue, MnemeError
from .errors import describe as short
from .memory.note import NoteFields
from .mood.feelings import Emotion
from .registries import FAMILIES, MAKERS, PluginError, Registry
from .relations import Role
from .store.schema import Migration
from .tools import Tool

__all__ = [
    "DISTRIBUTION",
    "GROUP",
    "LOAD_PLUGINS",
    "TRACE_PLUGINS",
    "Event",
    "Manager",
    "Origin",
    "PluginError",
    "PluginInfo",
    "Registry",
    "describe",
    "make_manager",
]

log = logging.getLogger(__name__)
trace_log = logging.getLogger(__name__ + ".trace")

GROUP = "mneme"
DISTRIBUTION = "mneme-bots"
LOAD_PLUGINS = "MNEME_LOAD_PLUGINS"
TRACE_PLUGINS = "MNEME_TRACE_PLUGINS"
BOT_FAMILIES = frozenset({"adapters", "providers"})
TRACK_WITHIN = 5.0  # seconds a `track_event` implementation may take before it is left behind
"""The bot layer's registries: collected when a bot starts (`bot.hooks.ready`), never by the engine."""
FALSE = frozenset({"", "0", "false", "no", "off"})

# -- values ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One step of a message or of the engine, as `track_event` sees it.

    Names used by the runner: received, ignored, busy, prompted, replied, model_failed, sent, send_failed,
    observed, observe_failed. `data` holds small JSON-ready details (lengths, counts, an error's text);
    never a secret, and the person's text only where the step is about it.
    """

    name: str
    subject: str | None = None
    platform: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict, hash=False)
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class Origin:
    """Where a plugin came from: built in, an entry point of a distribution, or registered by code."""

    kind: str
    distribution: str | None = None
    version: str | None = None

    def says(self) -> str:
        if self.distribution:
            return f"{self.distribution} {self.version or ''}".strip()
        return self.kind


@dataclass(frozen=True)
class PluginInfo:
    """One loaded plugin, for `mneme plugins`: its name, origin and the hooks it implements."""

    name: str
    kind: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "hooks": list(self.hooks)}

    def line(self) -> str:
        where = f"{self.distribution} {self.version or ''}".strip() if self.distribution else "-"
        return f"{self.name}  [{self.kind}; {where}]  {', '.join(self.hooks) or '(no hooks)'}"


# -- the manager ----------------------------------------------------------------------------------------


def _traced(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    """`function`, logging each call to the trace logger (an awaitable result once it settles)."""

    def report(args: tuple[Any, ...], outcome: str, started: float) -> None:
        shown = ", ".join(short(a, 80) for a in args)
        took = (time.perf_counter() - started) * 1000
        trace_log.info("%s: plugin %s(%s) %s in %.1f ms", hook, plugin, shown, outcome, took)

    async def settle(awaitable: Any, args: tuple[Any, ...], started: float) -> Any:
        try:
            value = await awaitable
        except Exception as err:
            report(args, f"raised {type(err).__name__}: {err}", started)
            raise
        report(args, f"-> {short(value, 120)} (awaited)", started)
        return value

    @functools.wraps(function)
    def traced(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            value = function(*args)
        except Exception as err:
            report(args, f"raised {type(err).__name__}: {err}", started)
            raise
        if inspect.isawaitable(value):
            return settle(value, args, started)
        report(args, f"-> {short(value, 120)}", started)
        return value

    return traced


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())


class Manager(pluggy.PluginManager):
    """pluggy's manager for project `mneme`, with origins, registries and the core's hook policies."""

    def __init__(self, *, tracing: bool = False) -> None:
        super().__init__(GROUP)
        self.tracing = tracing
        self.origins: dict[str, Origin] = {}
        self.command_owners: dict[str, str] = {}
        self._registries: dict[str, Registry[Any]] = {}
        self._started = False

    # -- registering -----------------------------------------------------------------------------------

    def register(self, plugin: object, name: str | None = None) -> str | None:
        """Register a plugin; a bad one raises `PluginError` naming it and is left out."""
        try:
            registered = super().register(plugin, name)
        except pluggy.PluginValidationError as err:
            raise PluginError(_one_line(err)) from err
        except ValueError as err:  # pluggy: the name or the object is registered already
            raise PluginError(f"plugin {name or self.get_canonical_name(plugin)}: {err}") from err
        if registered is None:  # blocked
            return None
        wrappers = [
            caller.name
            for caller in self.get_hookcallers(plugin) or []
            for impl in caller.get_hookimpls()
            if impl.plugin is plugin and (impl.wrapper or impl.hookwrapper)
        ]
        if wrappers:
            super().unregister(plugin)
            raise PluginError(
                f"plugin {registered} wraps {', '.join(wrappers)}: mneme hooks take no wrappers, since "
                "an implementation may be async and a wrapper would see a coroutine, not its result"
            )
        if self.tracing:
            for caller in self.get_hookcallers(plugin) or []:
                for impl in caller.get_hookimpls():
                    if impl.plugin is plugin:
                        impl.function = _traced(impl.function, registered, caller.name)
        self.origins.setdefault(registered, Origin("registered"))
        self._registries.clear()
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any:
        gone = name if name is not None else self.get_name(plugin) if plugin is not None else None
        removed = super().unregister(plugin, name)
        if gone is not None:
            self.origins.pop(gone, None)
        self._registries.clear()
        return removed

    def check_pending(self) -> None:
        """Refuse an implementation of a hook that does not exist (a misspelt one), naming the plugin."""
        known = [name for name, caller in vars(self.hook).items() if caller.has_spec()]
        for name, caller in vars(self.hook).items():
            if caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if impl.optionalhook:
                    continue
                origin = self.origins.get(impl.plugin_name)
                where = f" (from {origin.says()})" if origin and origin.distribution else ""
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                raise PluginError(
                    f"plugin {impl.plugin_name}{where} implements {name}, which is not a mneme hook{hint} "
                    "(the hooks are listed in docs/plugin_hooks.md)"
                )
        super().check_pending()

    # -- registries ------------------------------------------------------------------------------------

    def registry(self, family: str) -> Registry[Any]:
        """The registry of a `register_*` family, collected from the plugins now registered."""
        if family not in MAKERS:
            raise InvalidValue(f"the registries are {', '.join(FAMILIES)}, not {short(family)}")
        found = self._registries.get(family)
        if found is None:
            found = self._registries[family] = self._collect(family)
        return found

    def _collect(self, family: str) -> Registry[Any]:
        registry: Registry[Any] = Registry(family)
        hook = getattr(self.hook, f"register_{family}")
        make = MAKERS[family]
        for impl in calling.impls(hook):
            plugin = impl.plugin_name

            def register(*args: Any, _plugin: str = plugin, **kwargs: Any) -> None:
                try:
                    name, value = make(_plugin, *args, **kwargs)
                except (MnemeError, TypeError, ValueError) as err:
                    raise PluginError(f"plugin {_plugin}, register_{family}: {err}") from err
                registry.add(_plugin, name, value)

            try:
                result = calling.invoke(impl, {"register": register})
            except PluginError:
                raise
            except Exception as err:  # start-up: a plugin that cannot register is refused by name
                raise PluginError(
                    f"plugin {plugin} failed in register_{family}: {type(err).__name__}: {err}"
                ) from err
            if inspect.isawaitable(result):
                getattr(result, "close", lambda: None)()
                raise PluginError(f"plugin {plugin}: register_{family} is called synchronously; not async")
        return registry

    def collect_all(self) -> None:
        """Collect the engine's registries now, so a bad registration fails at start-up (the bot layer
        collects its own, adapters and providers, when a bot starts)."""
        for family in FAMILIES:
            if family not in BOT_FAMILIES:
                self.registry(family)

    @property
    def adapters(self) -> Registry[Callable[..., Any]]:
        return self.registry("adapters")

    @property
    def providers(self) -> Registry[Callable[..., Any]]:
        return self.registry("providers")

    @property
    def embedders(self) -> Registry[Any]:
        return self.registry("embedders")

    @property
    def tiers(self) -> Registry[Callable[..., Any]]:
        """Factories of the meaning tiers plugins add, `factory(mneme) -> tier or None`."""
        return self.registry("tiers")

    @property
    def emotions(self) -> Registry[Emotion]:
        return self.registry("emotions")

    @property
    def roles(self) -> Registry[Role]:
        return self.registry("roles")

    @property
    def tools(self) -> Registry[Tool]:
        return self.registry("tools")

    @property
    def migrations(self) -> Registry[Migration]:
        return self.registry("migrations")

    @property
    def settings(self) -> Registry[Key]:
        """The keys adapters and plugins read from their own tables, by key (`adapters.discord.token`)."""
        return self.registry("settings")

    # -- the core's hook calls -------------------------------------------------------------------------

    async def astartup(self, mneme: Any) -> None:
        """`startup` once (until `ashutdown`); a plugin that raises is logged and skipped."""
        if not self._started:
            self._started = True
            await calling.acall(self.hook.startup, mneme=mneme)

    async def ashutdown(self, mneme: Any) -> None:
        """`shutdown`, if `startup` ran."""
        if self._started:
            self._started = False
            await calling.acall(self.hook.shutdown, mneme=mneme)

    def startup(self, mneme: Any) -> None:
        """`astartup` for plain code (async plugins run on a private event loop: prefer `astartup`)."""
        run(lambda: self.astartup(mneme))

    def shutdown(self, mneme: Any) -> None:
        run(lambda: self.ashutdown(mneme))

    async def afilter_note(self, mneme: Any, subject: str, note: NoteFields) -> NoteFields | None:
        """The note as plugins let it through (maybe rewritten), or None when one vetoed it."""
        hook = self.hook.filter_note
        for impl in calling.impls(hook):
            try:
                verdict = await calling.await_me_maybe(
                    calling.invoke(impl, {"mneme": mneme, "subject": subject, "note": note})
                )
                note_or_none = _verdict(impl.plugin_name, verdict, note)
            except Exception as err:  # fail closed: a redaction plugin that breaks must not let text through
                calling.failed(hook, impl, err, "note vetoed")
                return None
            if note_or_none is None:
                return None
            note = note_or_none
        return note

    def filter_note(self, mneme: Any, subject: str, note: NoteFields) -> NoteFields | None:
        """`afilter_note` for plain code (on a private event loop, as the facade's plain twins)."""
        return run(lambda: self.afilter_note(mneme, subject, note))

    async def atrack(self, mneme: Any, event: Event) -> None:
        """Tell every plugin of an event; what they return is ignored, what they raise is logged, and one
        that takes over `TRACK_WITHIN` seconds is logged and left behind (an event must not hold up the
        write or the message it is about)."""
        await calling.acall(self.hook.track_event, within=TRACK_WITHIN, mneme=mneme, event=event)

    def track(self, mneme: Any, event: Event) -> None:
        """`atrack` for plain code (the facade's plain twins): sync plugins are called as they are."""
        calling.call(self.hook.track_event, mneme=mneme, event=event)

    def add_commands(self, cli: Any) -> None:
        """Let plugins add commands to the `mneme` click group. A plugin that fails is logged and left out
        (the rest of the CLI keeps working, `mneme plugins` included); one may add, never replace."""
        hook = self.hook.register_commands
        for impl in calling.impls(hook):
            before = dict(cli.commands)
            try:
                result = calling.invoke(impl, {"cli": cli})
                if inspect.isawaitable(result):
                    getattr(result, "close", lambda: None)()
                    raise PluginError("register_commands is called synchronously; it may not be async")
            except Exception as err:  # a plugin boundary: the CLI stays usable without its commands
                cli.commands.clear()
                cli.commands.update(before)
                calling.failed(hook, impl, err, "its commands left out")
                continue
            for name, command in list(cli.commands.items()):
                if name in before and before[name] is not command:
                    log.error(
                        "plugin %s tried to replace the command %s (of %s); the original is kept",
                        impl.plugin_name,
                        name,
                        self.command_owners.get(name, "mneme"),
                    )
                    cli.commands[name] = before[name]
                elif name not in before:
                    self.command_owners[name] = impl.plugin_name


def _verdict(plugin: str, verdict: object, note: NoteFields) -> NoteFields | None:
    """What a `filter_note` answer means: None or True keep the note, False vetoes it, a `NoteFields`
    replaces it (checked like any note); anything else is refused (and so, by the caller, vetoes it)."""
    if verdict is None or verdict is True:
        return note
    if verdict is False:
        log.info("plugin %s vetoed a note", plugin)
        return None
    if isinstance(verdict, NoteFields):
        fields = dataclasses.asdict(verdict)
        return NoteFields.strict(fields.pop("text"), **fields)
    raise InvalidType(f"filter_note answers None, False or a NoteFields, not {short(verdict)}")


# -- building one ---------------------------------------------------------------------------------------


def _normal(name: str | None) -> str:
    return re.sub(r"[-_.]+", "-", name or "").lower()


def allowed(environ: Mapping[str, str]) -> frozenset[str] | None:
    """The allow-list of `MNEME_LOAD_PLUGINS` (normalised names), or None when every plugin may load."""
    value = environ.get(LOAD_PLUGINS)
    if value is None:
        return None
    return frozenset(_normal(name.strip()) for name in value.split(",") if name.strip())


def _load_entry_points(manager: Manager, allow: frozenset[str] | None) -> None:
    matched: set[str] = set()
    for point in importlib.metadata.entry_points(group=GROUP):
        dist = point.dist
        dist_name = dist.metadata["Name"] if dist is not None else None
        version = dist.version if dist is not None else None
        names = {_normal(point.name), _normal(dist_name)} - {""}
        if allow is not None and not names & allow:
            log.debug("plugin %s (from %s) is not in %s; not loaded", point.name, dist_name, LOAD_PLUGINS)
            continue
        matched |= names
        taken = manager.origins.get(point.name)
        if manager.has_plugin(point.name) or manager.is_blocked(point.name):
            if taken is None or _normal(taken.distribution) != _normal(dist_name):
                log.warning(
                    "plugin %s of %s is not loaded: the name is taken by %s",
                    point.name,
                    dist_name,
                    taken.says() if taken else "a blocked plugin",
                )
            continue
        try:
            plugin = point.load()
        except Exception as err:  # start-up: name the plugin, and how to leave it out
            raise PluginError(
                f"plugin {point.name} (from {dist_name} {version}) could not be loaded: "
                f"{type(err).__name__}: {err}; fix it, uninstall it or leave it out with {LOAD_PLUGINS}"
            ) from err
        if manager.is_registered(plugin):
            log.warning("plugin %s of %s is already registered under another name", point.name, dist_name)
            continue
        manager.origins[point.name] = Origin("entry point", dist_name, version)
        try:
            manager.register(plugin, name=point.name)
        except PluginError as err:
            manager.origins.pop(point.name, None)
            raise PluginError(f"{err} (plugin {point.name} is from {dist_name} {version})") from err
    for name in sorted((allow or frozenset()) - matched):
        log.warning("%s names %s, which no installed plugin is called", LOAD_PLUGINS, name)


def make_manager(
    *,
    load_entry_points: bool = True,
    environ: Mapping[str, str] = os.environ,
    plugins: Iterable[object] = (),
) -> Manager:
    """A plugin manager with the specs, the built-in plugins, the installed ones (unless
    `load_entry_points` is False, or `MNEME_LOAD_PLUGINS` leaves them out) and `plugins`, checked."""
    tracing = environ.get(TRACE_PLUGINS, "").strip().lower() not in FALSE
    manager = Manager(tracing=tracing)
    manager.add_hookspecs(hookspecs)
    allow = allowed(environ)
    if load_entry_points and allow != frozenset():  # an empty allow-list need not look at what is installed
        _load_entry_points(manager, allow)
    for plugin in plugins:
        manager.register(plugin)
    manager.check_pending()
    manager.collect_all()
    return manager


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def describe(manager: Manager, *, builtin: bool = True) -> list[PluginInfo]:
    """What is loaded: each plugin's name, where it came from and the hooks it implements, by name."""
    found = []
    for name, plugin in sorted(manager.list_name_plugin(), key=lambda pair: pair[0]):
        if plugin is None:
            continue
        origin = manager.origins.get(name, Origin("registered"))
        if origin.kind == "built in" and not builtin:
            continue
        version = origin.version
        if origin.kind == "built in" and version is None:
            version = _version(DISTRIBUTION)
        hooks = tuple(sorted(caller.name for caller in manager.get_hookcallers(plugin) or []))
        found.append(PluginInfo(name, origin.kind, origin.distribution, version, hooks))
    return found
