"""`mneme move --from A --to B`: every space of one database copied into another (`mneme_core.move`)."""

from __future__ import annotations

import click

from ..errors import MnemeError
from ..move import move as move_all
from ..move import where
from . import Refused, echo_json, main
from .notes import JSON


@main.command()
@click.option(
    "--from", "source", required=True, help="The database to copy: a file's path or a postgresql:// URL."
)
@click.option("--to", "target", required=True, help="Where it goes: a file's path or a postgresql:// URL.")
@JSON
def move(source: str, target: str, as_json: bool) -> None:
    """Copy every companion's memory from one database to another; moving again adds nothing twice."""
    try:
        moved = move_all(source, target)
    except MnemeError as err:
        raise Refused(str(err)) from err
    if as_json:
        echo_json([vars(m) for m in moved])
        return
    if not moved:
        click.echo(f"{where(source)} holds no companion: nothing to move")
    for m in moved:
        click.echo(
            f"{m.space}: {m.added} of {m.notes} notes added to {where(target)} "
            f"({m.notes - m.added} there already), {m.config} config keys written"
        )
