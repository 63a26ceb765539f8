"""`mneme mood | relate | relations | recalls | profile | subjects`: the people a companion knows."""

from __future__ import annotations

from dataclasses import asdict

import click

from .. import dates
from ..errors import MnemeError
from . import Context, Refused, echo_json, main
from .notes import JSON


@main.command()
@click.argument("subject")
@click.option("--reset", is_flag=True, help="Back to the baseline, timeline cleared.")
@click.option("--limit", type=int, default=5, show_default=True, help="How many of the last changes.")
@JSON
@click.pass_obj
def mood(ctx: Context, subject: str, reset: bool, limit: int, as_json: bool) -> None:
    """How the companion feels about SUBJECT, and the last changes and who judged them."""
    with ctx.open(reads=True) as m:
        try:
            if reset:
                m.reset_mood(subject)
            state, changes = m.mood(subject), m.mood_timeline(subject, limit)
            line = m.describe_mood(subject)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json({"mood": asdict(state), "timeline": [asdict(event) for event in changes]})
            return
        click.echo(line)
        for event in changes:
            feelings = ", ".join(f"{k} {v:g}" for k, v in event.emotions.items())
            click.echo(
                f"  {dates.stamp(event.at, m.settings.zone)} {event.delta:+g} -> {event.value:g}"
                f"{' (' + feelings + ')' if feelings else ''} by {event.judge} ({event.confidence:.2f}): "
                f"{event.reason}"
            )


@main.command()
@click.argument("subject")
@click.argument("role", required=False)
@click.option("--closeness", type=float, default=None)
@click.option("--remove", is_flag=True, help="SUBJECT has no role any more.")
@JSON
@click.pass_obj
def relate(
    ctx: Context, subject: str, role: str | None, closeness: float | None, remove: bool, as_json: bool
) -> None:
    """Say who SUBJECT is to the companion (creator, family, friend, acquaintance or one of your own)."""
    with ctx.open(reads=role is None or remove) as m:
        try:
            if remove:
                click.echo("removed" if m.unrelate(subject) else "had no role")
                return
            found = m.relate(subject, role, closeness=closeness) if role else m.relationship(subject)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json(asdict(found) if found else None)
        elif found is None:
            click.echo(f"{subject} has no role")
        else:
            click.echo(f"{found.subject}: {found.role}, closeness {found.closeness:g}")


@main.command()
@JSON
@click.pass_obj
def relations(ctx: Context, as_json: bool) -> None:
    """Everyone with a role, closest first."""
    with ctx.open(reads=True) as m:
        found = m.relationships()
        if as_json:
            echo_json([asdict(r) for r in found])
            return
        for r in found:
            click.echo(f"{r.subject}: {r.role}, closeness {r.closeness:g}")


@main.command()
@click.argument("subject")
@click.option("--limit", type=int, default=10, show_default=True)
@JSON
@click.pass_obj
def recalls(ctx: Context, subject: str, limit: int, as_json: bool) -> None:
    """What was recalled for SUBJECT lately, and why."""
    with ctx.open(reads=True) as m:
        try:
            found = m.recalls(subject, limit)
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json(found)
            return
        for entry in found:
            chosen = ", ".join(f"#{note_id} {why}" for note_id, why in entry["chosen"])
            click.echo(f"{dates.stamp(entry['at'], m.settings.zone)} {entry['query']!r}: {chosen}")


@main.command()
@click.argument("subject")
@click.argument("card", required=False)
@click.option("--clear", is_flag=True, help="Remove the profile card.")
@click.pass_obj
def profile(ctx: Context, subject: str, card: str | None, clear: bool) -> None:
    """Show (or, with CARD, set) the short profile card shown above SUBJECT's notes."""
    with ctx.open(reads=card is None) as m:
        try:
            if clear or card is not None:
                m.set_profile(subject, None if clear else card)
            click.echo(m.profile(subject) or f"{subject} has no profile card")
        except MnemeError as err:
            raise Refused(str(err)) from err


@main.command()
@JSON
@click.pass_obj
def subjects(ctx: Context, as_json: bool) -> None:
    """Everyone the companion has a live note about."""
    with ctx.open(reads=True) as m:
        found = m.subjects()
        if as_json:
            echo_json(found)
        else:
            for subject in found:
                click.echo(subject)
