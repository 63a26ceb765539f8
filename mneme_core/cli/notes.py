"""`mneme remember | notes | recall | history | forget | erase | export | import`: notes by hand."""

from __future__ import annotations

import json
import sys

import click

from .. import dates
from ..errors import MnemeError
from ..memory.note import KINDS
from . import Context, main


def _fail(err: Exception) -> click.ClickException:
    return click.ClickException(str(err))


@main.command()
@click.argument("subject")
@click.argument("text")
@click.option("--kind", type=click.Choice(KINDS), default="fact", show_default=True)
@click.option("--key", default=None, help="What the note is about, like user.city.")
@click.option("--importance", type=int, default=3, show_default=True)
@click.pass_obj
def remember(ctx: Context, subject: str, text: str, kind: str, key: str | None, importance: int) -> None:
    """Keep one note about SUBJECT."""
    with ctx.open() as m:
        try:
            outcome, note = m.keep(subject, text, kind=kind, key=key, importance=importance, source="cli")
        except MnemeError as err:
            raise _fail(err) from err
        click.echo(f"{outcome} #{note.id}" if note else outcome)


@main.command(name="notes")
@click.argument("subject")
@click.pass_obj
def list_notes(ctx: Context, subject: str) -> None:
    """SUBJECT's live notes, newest first."""
    with ctx.open() as m:
        for note in m.notes(subject):
            key = f" [{note.key}]" if note.key else ""
            click.echo(
                f"#{note.id} {dates.stamp(note.happened_at)} {note.kind} {note.importance}{key} {note.text}"
            )


@main.command()
@click.argument("subject")
@click.argument("query")
@click.option("--explain", is_flag=True, help="Say what was chosen and skipped, and why.")
@click.pass_obj
def recall(ctx: Context, subject: str, query: str, explain: bool) -> None:
    """What would be recalled for QUERY."""
    with ctx.open() as m:
        found = m.recall(subject, query, log=False)
        if explain:
            click.echo(found.explain())
        else:
            for chosen in found.chosen:
                click.echo(f"#{chosen.note.id} {chosen.note.text}")


@main.command()
@click.argument("subject")
@click.argument("key")
@click.pass_obj
def history(ctx: Context, subject: str, key: str) -> None:
    """Every version of KEY, oldest first."""
    with ctx.open() as m:
        try:
            versions = m.history(subject, key)
        except MnemeError as err:
            raise _fail(err) from err
        for note in versions:
            state = "live" if note.live else ("replaced" if note.superseded_by else "forgotten")
            click.echo(f"#{note.id} {dates.stamp(note.created_at)} {state}: {note.text}")


@main.command()
@click.argument("subject")
@click.option("--id", "note_id", type=int, default=None)
@click.option("--key", default=None)
@click.pass_obj
def forget(ctx: Context, subject: str, note_id: int | None, key: str | None) -> None:
    """Hide one note, by --id or --key."""
    with ctx.open() as m:
        try:
            click.echo(f"forgot {m.forget(subject, id=note_id, key=key)}")
        except MnemeError as err:
            raise _fail(err) from err


@main.command()
@click.argument("subject")
@click.option("--yes", is_flag=True, help="Really erase everything about SUBJECT.")
@click.pass_obj
def erase(ctx: Context, subject: str, yes: bool) -> None:
    """Everything about SUBJECT, for good."""
    if not yes:
        raise click.UsageError("erase removes everything about a person for good: add --yes")
    with ctx.open() as m:
        click.echo(f"erased {m.erase(subject)} notes")


@main.command(name="export")
@click.option("--out", type=click.Path(dir_okay=False), default=None)
@click.pass_obj
def export_(ctx: Context, out: str | None) -> None:
    """This companion's memory as JSON."""
    with ctx.open() as m:
        data = json.dumps(m.export_data(), ensure_ascii=False, indent=1)
    if out:
        with open(out, "w", encoding="utf-8") as file:
            file.write(data)
    else:
        sys.stdout.write(data + "\n")


@main.command(name="import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--with-config", is_flag=True, help="Also take the export's config (its prompts included).")
@click.pass_obj
def import_(ctx: Context, file, with_config: bool) -> None:
    """Bring in an export of Mneme or mneme-llm."""
    try:
        data = json.load(file)
    except json.JSONDecodeError as err:
        raise click.ClickException(f"{file.name} is not JSON: {err}") from err
    with ctx.open() as m:
        try:
            click.echo(f"added {m.import_data(data, config=with_config)} notes")
        except MnemeError as err:
            raise _fail(err) from err
