"""`mneme remember | notes | recall | context | history | forget | purge | erase | export | import`: notes by
hand."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

import click

from .. import dates, files, text
from ..errors import MnemeError
from ..meaning.embeddings import registered_embedders
from ..memory.note import KINDS
from ..memory.recall import Recall
from ..mneme import Mneme
from . import Context, Refused, echo_json, main, one_line

JSON = click.option("--json", "as_json", is_flag=True, help="As JSON, for scripts.")
CONFIGURED = ":memory.embed:"
"""What a bare `--meaning` stands for: the embedder `memory.embed` names (no embedder is called this)."""


@main.command()
@click.argument("subject")
@click.argument("text")
@click.option("--kind", type=click.Choice(KINDS), default="fact", show_default=True)
@click.option("--key", default=None, help="What the note is about, like user.city.")
@click.option("--importance", type=int, default=3, show_default=True)
@click.option("--date", "day", default=None, help="The day it happened or will, YYYY-MM-DD.")
@JSON
@click.pass_obj
def remember(
    ctx: Context,
    subject: str,
    text: str,
    kind: str,
    key: str | None,
    importance: int,
    day: str | None,
    as_json: bool,
) -> None:
    """Keep one note about SUBJECT."""
    with ctx.open() as m:
        happened = None
        if day is not None:
            happened = dates.noon(day, m.settings.zone)
            if happened is None:
                raise Refused(f"--date is a day like 2026-09-17, not {day!r}")
        try:
            outcome, note = m.keep(
                subject, text, kind=kind, key=key, importance=importance, happened_at=happened, source="cli"
            )
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json({"outcome": outcome, "note": asdict(note) if note else None})
        else:
            click.echo(f"{outcome} #{note.id}" if note else outcome)


@main.command(name="notes")
@click.argument("subject")
@click.option("--kind", "kinds", type=click.Choice(KINDS), multiple=True, help="Only these kinds.")
@click.option("--archived", is_flag=True, help="Only the archive: notes that faded or the cap let go.")
@JSON
@click.pass_obj
def list_notes(ctx: Context, subject: str, kinds: tuple[str, ...], archived: bool, as_json: bool) -> None:
    """SUBJECT's live notes, newest first (archived ones marked); --archived: only the archive."""
    with ctx.open(reads=True) as m:
        try:
            found = m.notes(subject, kinds=kinds or None, archived=True if archived else None)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json([asdict(note) for note in found])
            return
        for note in found:
            key = f" [{note.key}]" if note.key else ""
            stamp = dates.stamp(note.happened_at, m.settings.zone)
            quiet = " (archived)" if note.archived_at is not None else ""
            click.echo(f"#{note.id} {stamp} {note.kind} {note.importance}{key}{quiet} {note.text}")


def meaning_option(about: str) -> Any:
    """`--meaning [EMBEDDER]`: the embedder named, or `CONFIGURED` (memory.embed's) when bare."""
    return click.option(
        "--meaning", is_flag=False, flag_value=CONFIGURED, default=None, metavar="[EMBEDDER]", help=about
    )


@main.command()
@click.argument("subject")
@click.argument("query")
@click.option("--explain", is_flag=True, help="Say what was chosen and skipped, and why.")
@click.option("--limit", type=int, default=6, show_default=True)
@meaning_option(
    "Find by meaning too, with the embedder named (like local) or else memory.embed's; notes "
    "without a vector are embedded first."
)
@JSON
@click.pass_obj
def recall(
    ctx: Context,
    subject: str,
    query: str,
    explain: bool,
    limit: int,
    meaning: str | None,
    as_json: bool,
) -> None:
    """What would be recalled for QUERY (nothing is logged). With --meaning (after QUERY, since it takes an
    optional name), by meaning too, saying which tier placed the query."""
    if meaning is None:
        with ctx.open(reads=True) as m:
            show(_recalled(m, subject, query, limit), explain=explain, as_json=as_json)
        return
    ctx.exists()
    with said_here("mneme_core.meaning"), ctx.open(embed=None if meaning == CONFIGURED else meaning) as m:
        if m.meaning is None:  # nothing to find meaning with: by words, and saying so
            known = ", ".join(sorted({*m.plugins.embedders, *registered_embedders()})) or "none"
            click.echo(
                'mneme: memory.embed is "" (words only), so this recall is by words: name an embedder, like '
                f"--meaning local (registered: {known}), or set memory.embed",
                err=True,
            )
            show(_recalled(m, subject, query, limit), explain=explain, as_json=as_json, embedder="")
            return
        embedder = m.meaning.name
        try:
            m.embed_pending()
        except Exception as err:  # the embedder's own failure (a hub out of reach): recall goes on by words
            why = text.clip(one_line(err), 300)
            click.echo(f"mneme: embedding notes with {embedder} failed: {why}", err=True)
        try:
            found = asyncio.run(m.arecall(subject, query, limit=limit, log=False))
        except MnemeError as err:
            raise Refused(str(err)) from err
        show(found, explain=explain, as_json=as_json, embedder=embedder)


def _recalled(m: Mneme, subject: str, query: str, limit: int) -> Recall:
    try:
        return m.recall(subject, query, limit=limit, log=False)
    except MnemeError as err:
        raise Refused(str(err)) from err


@contextmanager
def said_here(name: str) -> Iterator[None]:
    """Keep the log lines of logger `name` off the terminal while a command says the same itself: an
    embedder out of reach fails to embed the notes and then to place the query, and a person should read
    that once, as one line."""
    quiet = logging.Filter(name)
    handlers = logging.getLogger().handlers

    def elsewhere(record: logging.LogRecord) -> bool:
        return not quiet.filter(record)

    for handler in handlers:
        handler.addFilter(elsewhere)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(elsewhere)


def show(found: Recall, *, explain: bool, as_json: bool, embedder: str | None = None) -> None:
    """A recall as JSON, as `explain()` says it, or as its chosen notes (under the tier's line when meaning
    was asked for, so the person sees whether the embedder or words placed the query)."""
    if as_json:
        echo_json(
            {
                "query": found.query,
                "tier": found.tier,
                "embedder": embedder or None,
                "chosen": [{"note": asdict(r.note), "score": r.score, "why": r.why} for r in found.chosen],
                "skipped": [{"id": note.id, "reason": reason} for note, reason in found.skipped],
            }
        )
        return
    if explain:
        click.echo(found.explain())
        return
    if embedder:
        click.echo(f"recall for {found.query!r} ({found.tier}; embedder {embedder}):")
    for chosen in found.chosen:
        click.echo(f"#{chosen.note.id} {chosen.note.text}")


@main.command()
@click.argument("subject")
@click.argument("key")
@JSON
@click.pass_obj
def history(ctx: Context, subject: str, key: str, as_json: bool) -> None:
    """Every version of KEY, oldest first."""
    with ctx.open(reads=True) as m:
        try:
            versions = m.history(subject, key)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json([asdict(note) for note in versions])
            return
        for note in versions:
            state = "live" if note.live else ("replaced" if note.superseded_by else "forgotten")
            click.echo(f"#{note.id} {dates.stamp(note.created_at, m.settings.zone)} {state}: {note.text}")


@main.command()
@click.argument("subject")
@click.option("--id", "note_id", type=int, default=None)
@click.option("--key", default=None)
@click.pass_obj
def forget(ctx: Context, subject: str, note_id: int | None, key: str | None) -> None:
    """Hide one note, by --id or --key (it stays in the key's history until purge)."""
    with ctx.open(reads=True) as m:
        try:
            click.echo(f"forgot {m.forget(subject, id=note_id, key=key)}")
        except MnemeError as err:
            raise Refused(str(err)) from err


@main.command()
@click.argument("subject", required=False)
@click.pass_obj
def purge(ctx: Context, subject: str | None) -> None:
    """Erase hidden and replaced notes for good (everyone's, without SUBJECT)."""
    with ctx.open(reads=True) as m:
        try:
            click.echo(f"purged {m.purge(subject)} notes")
        except MnemeError as err:
            raise Refused(str(err)) from err


@main.command()
@click.argument("subject")
@click.option("--yes", is_flag=True, help="Really erase everything about SUBJECT.")
@click.pass_obj
def erase(ctx: Context, subject: str, yes: bool) -> None:
    """Everything about SUBJECT, for good: notes, history, mood, relationship, recall log."""
    if not yes:
        raise Refused("erase removes everything about a person for good: add --yes")
    with ctx.open(reads=True) as m:
        try:
            click.echo(f"erased {m.erase(subject)} notes")
        except MnemeError as err:
            raise Refused(str(err)) from err


@main.command()
@click.argument("subject")
@click.argument("query", default="")
@click.option("--user-name", default=None, help="How the block names the person.")
@click.pass_obj
def context(ctx: Context, subject: str, query: str, user_name: str | None) -> None:
    """The block a bot puts in its system prompt for SUBJECT (and QUERY, the message it answers): who they
    are, what is remembered of them, how the companion feels. Nothing is logged or marked as told."""
    with ctx.open(reads=True) as m:
        try:
            block = m.prompt(subject, query, user_name=user_name, mark=False, log=False)
        except MnemeError as err:
            raise Refused(str(err)) from err
    if not block.strip():  # a script reads the (empty) block on stdout; a person reads why
        click.echo(f"mneme: the block is empty: nothing is known of {subject} yet", err=True)
    click.echo(block)


@main.command(name="export")
@click.option("--out", metavar="FILE", default=None, help="Write it to this file.")
@click.pass_obj
def export_(ctx: Context, out: str | None) -> None:
    """This companion's memory as JSON (on stdout, or in --out's file, saying what was written there)."""
    with ctx.open(reads=True) as m:
        data = m.export_data()
    written = json.dumps(data, ensure_ascii=False, indent=1)
    if not out:
        sys.stdout.write(written + "\n")
        return
    try:
        size = files.write_text(out, written)
    except files.FileRefused as err:
        raise Refused(str(err)) from err
    click.echo(
        f"wrote {out}: space {data['space']}, {len(data['notes'])} notes (their history included), "
        f"{len(data['lines'])} conversation lines, {len(data['relationships'])} relationships, "
        f"{len(data['moods'])} moods and {len(data['config'])} config keys ({size:,} bytes)"
    )


@main.command(name="import")
@click.argument("file")
@click.option("--into", default=None, help="A space other than the export's own.")
@click.option("--with-config", is_flag=True, help="Also take the export's config (its prompts included).")
@click.pass_obj
def import_(ctx: Context, file: str, into: str | None, with_config: bool) -> None:
    """Bring in an export of Mneme or mneme-llm, into the space it came from unless told otherwise
    (--into, or --space written on the command line; MNEME_SPACE does not move an export)."""
    try:
        data = json.loads(files.read_text(file, "export"))
    except files.FileRefused as err:
        raise Refused(str(err)) from err
    except json.JSONDecodeError as err:
        raise Refused(f"{file} is not JSON: {err}") from err
    space = into or (ctx.space if ctx.space_given else _own_space(data)) or ctx.space
    with ctx.open(space=space) as m:
        try:
            click.echo(f"added {m.import_data(data, config=with_config)} notes into {m.space}")
        except MnemeError as err:
            raise Refused(str(err)) from err


def _own_space(data: object) -> str | None:
    """The space an export came from, when it names one that can be opened."""
    space = data.get("space") if isinstance(data, dict) else None
    if isinstance(space, str) and space.strip() and text.clean(space) == space:
        return space
    return None
