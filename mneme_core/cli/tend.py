"""`mneme tend`: the work between conversations, now (`Mneme.atend`, see `mneme_core.tending`).

Lessons of faded episodes (asked of `--model NAME`, a provider `mneme plugins` lists; without one nothing
is asked), faded notes into the archive, faded links dropped, and the day's journal entry with
`journal.daily`. Refused in one line while another run tends the same space.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

import click

from ..bot.models import close_model, completer, model_from_config
from ..errors import MnemeError
from ..tending import TendResult
from . import Context, Refused, echo_json, main
from .notes import JSON


@main.command("tend")
@click.option("--model", default=None, help="A model provider to ask lessons of (see `mneme plugins`).")
@JSON
@click.pass_obj
def tend(ctx: Context, model: str | None, as_json: bool) -> None:
    """Tend the memory: lessons, the archive, link decay, the journal (bounded batches)."""
    with ctx.open(embed="") as m:
        try:
            result = asyncio.run(_tended(m, model))
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json(asdict(result))
            return
        if not result.enabled:
            click.echo("lifecycle.enabled is false: nothing tended")
            return
        click.echo(
            f"archived {result.archived} notes, dropped {result.links_dropped} faded links, "
            f"asked {result.lessons_asked} lessons ({result.lessons_kept} kept, "
            f"{result.lessons_failed} failed), "
            f"wrote {result.journal} journal entries"
            + ("; more is left for the next run" if result.more else "")
        )


async def _tended(m: Any, model: str | None) -> TendResult:
    provider = model_from_config(m, model) if model is not None else None
    try:
        return await m.atend(complete=completer(provider) if provider is not None else None)
    finally:
        if provider is not None:
            await close_model(provider)
