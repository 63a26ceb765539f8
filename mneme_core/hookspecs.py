"""The hook catalogue: every hook a plugin can implement, with what it is given and what it returns.

One project name everywhere: the markers below, the plugin manager (`mneme_core.plugins`) and the entry-point
group are all `mneme`. A plugin is a module or an object with functions marked `@hookimpl`, named like the
specs here and taking any subset of their arguments:

    from mneme_core.hookspecs import hookimpl

    @hookimpl
    def extra_prompt_sections(subject, query):
        return "Answer in one short paragraph."

Each spec's docstring starts with what to return and whether it may be awaitable. pluggy does not await, so
an `async def` implementation gives the core a coroutine, which `mneme_core.calling` awaits; that is why no
spec here is `firstresult` (pluggy would stop at the first coroutine, whatever it later returns) and why
hook wrappers are refused: they would see coroutines, not results. The families, as in datasette and llm:

- `register_*(register)`: the plugin calls `register(...)` once per thing it adds; the core's registry
  checks each, refuses a second thing of the same name (naming both plugins) and remembers who added what.
- `extra_*`: each plugin contributes items, all of which are used, in call order.
- `resolve_*`: the first answer wins, in call order (`tryfirst`/`trylast` move a plugin); `filter_*`:
  each plugin in call order sees what the one before let through, and may veto or rewrite it.
- events (`startup`, `shutdown`, `track_event`): every plugin is told; what they return is ignored.

Call order is pluggy's: the plugin registered last is called first, `tryfirst` before and `trylast` after
the rest. Built-in behaviour is registered the same way from `mneme_core.bot.default_plugins`, its fallbacks
`trylast`, so any plugin can go before them. A plugin that raises is named in the log and skipped; it never
takes the reply down with it. `docs/plugin_hooks.md` describes each hook at length.
"""

from __future__ import annotations

from pluggy import HookimplMarker, HookspecMarker

__all__ = ["hookimpl", "hookspec"]

hookspec = HookspecMarker("mneme")
hookimpl = HookimplMarker("mneme")


# -- lifetime ------------------------------------------------------------------------------------------


@hookspec
def startup(mneme):
    """Return None (may be awaitable). Called once when a `Mneme` starts serving (before the first message):
    open connections, warm caches. A plugin that raises is logged and skipped."""


@hookspec
def shutdown(mneme):
    """Return None (may be awaitable). Called once when a `Mneme` that was started closes: release what
    `startup` took. A plugin that raises is logged and skipped."""


# -- registries -----------------------------------------------------------------------------------------


@hookspec
def register_adapters(register):
    """Return None (sync only). Call `register(factory, name=None)` for each chat platform adapter: a
    subclass of `mneme_core.bot.Adapter` or any `factory(settings) -> Adapter`; the name defaults to
    `factory.name`. `settings` is the `[adapters.<name>]` table, secrets still as references."""


@hookspec
def register_providers(register):
    """Return None (sync only). Call `register(factory, name=None)` for each model provider: a
    `factory(settings) -> provider` whose provider has `complete(system, user) -> str` (may be awaitable)
    and optionally `judge(system, user)`, `embed(texts)` and `aclose()`; the name defaults to `factory.name`.
    `settings` is the `[plugins.<name>]` table, secrets still as references."""


@hookspec
def register_embedders(register):
    """Return None (sync only). Call `register(embedder, name=None)` for each embedding model the meaning
    tier may use: a `mneme_core.meaning.Embeddings`, or a factory returning one (called on first use, so
    registering never loads a model); the name defaults to `embedder.name`. A factory may take two
    keywords: `spec=` makes it a family ("openai" also answers "openai:bge-m3@1024", called with
    spec="bge-m3@1024"), and `settings=` hands it its `[plugins.<name>]` table from the config."""


@hookspec
def register_tiers(register):
    """Return None (sync only). Call `register(factory, name=None)` for each meaning tier the plugin adds to
    the fall-through (embeddings -> your tiers by `order` -> words): `factory(mneme)` is called once per
    `Mneme` and returns the tier, or None when it cannot work there (no model, no embedder). A tier has a
    `name` (what `Recall.tier` says when it placed a query), an `order` (a number; the built-in embeddings
    tier is 100, words come last) and `async place(query)` with `query` a `mneme_core.meaning.Query`; it
    returns a `Placed` (a vector to search), a `Reworded` (words to match besides the query's own) or None
    to pass the query on. One that raises or is slow is rested; the name defaults to `factory.name`."""


@hookspec
def register_emotions(register):
    """Return None (sync only). Call `register(emotion)` with a `mneme_core.mood.Emotion` for each feeling
    the plugin adds to those of the companion's config."""


@hookspec
def register_roles(register):
    """Return None (sync only). Call `register(role)` with a `mneme_core.relations.Role` for each
    relationship role the plugin adds to those of the companion's config."""


@hookspec
def register_tools(register):
    """Return None (sync only). Call `register(function, name=None, description=None)` for each tool a model
    may call; the name defaults to the function's, the description to its docstring's first line."""


@hookspec
def register_commands(cli):
    """Return None (sync only). Add commands to `cli`, the `mneme` click group (`@cli.command()`). A plugin
    may not replace a command that is already there."""


@hookspec
def register_migrations(register):
    """Return None (sync only). Call `register(name, apply)` for each step of the plugin's own tables, in
    order: `apply` is SQL (one or more statements) or a function of a `sqlite3.Connection`. Each runs once per
    file, inside the write transaction that records it as `<plugin>:<name>`."""


@hookspec
def register_settings(register):
    """Return None (sync only). Call `register(key, check, rule, default=MISSING, example=MISSING)` for each
    setting the plugin reads from its own table: `key` is `adapters.<name>.<setting>` or
    `plugins.<name>.<setting>`; `check(key, value)` returns the value as kept or raises `InvalidValue` /
    `InvalidType` naming the key; `rule` is one line saying what it allows; `default` is what the plugin
    uses when the key is not given, `example` (for a key without one) what the template shows. Once a table
    has a registered key, the config holds no other key there: `config set`, `config apply`, a config file
    and `config check` refuse what the plugin would, and `config template` lists every key.
    `mneme_core.config.declared.Table` declares a whole table and reads it back for the plugin."""


# -- a message -----------------------------------------------------------------------------------------


@hookspec
def resolve_subject(platform, user_id):
    """Return the subject (a string) for this platform user, or None to leave it to the next plugin (may be
    awaitable). The first answer wins; the built-in fallback (`trylast`) gives `platform:user_id`. Map
    several platform ids to one person here."""


@hookspec
def extra_prompt_sections(mneme, subject, query):
    """Return a string, a list of strings or None (may be awaitable): sections added to the system prompt
    after the persona and the memory block, in call order. Blank ones are left out."""


@hookspec
def filter_note(mneme, subject, note):
    """Return None to let the note through as it is, a `NoteFields` to write instead (a rewrite, such as a
    redaction), or False to veto it (may be awaitable). Plugins are asked in call order, each seeing the note
    as the one before left it; the first veto ends it. A plugin that raises vetoes the note (fail closed)."""


@hookspec
def track_event(mneme, event):
    """Return None (may be awaitable). Told of each step of a message (`mneme_core.plugins.Event`:
    received, prompted, replied, sent, observed, ...) to log, meter or react; awaited on the message's path,
    so return quickly and start a task of your own for slow work."""
