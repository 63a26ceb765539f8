"""`mneme check`: the health check of a companion's notes, its fixes, and undoing one.

`mneme check [SUBJECT]` runs the phases (`mneme_core.check`) on what changed since the last run (`--full`:
everything) and prints each finding with its proposed fix; `--fix` applies the ones at or above
`--confidence`; `--model NAME` lets a provider judge (`mneme plugins` lists them), at most `--budget` calls,
else the word-level checks run alone; `--meaning` uses the vectors of the configured embedder. `--fixes`
lists what was applied, `--undo N` puts fix N back.
"""

from __future__ import annotations

import asyncio
from typing import Any

import click

from ..bot.models import close_model, completer, model_from_config
from ..check import PHASES, CheckResult
from ..errors import MnemeError
from . import Context, Refused, echo_json, main
from .notes import JSON


def _fix_line(fix: dict[str, Any]) -> str:
    action, keep, drop = fix["action"], fix["keep"], fix["drop"]
    if action == "replace":
        return f"replace {', '.join(f'#{i}' for i in drop)} by #{keep}"
    if action == "forget":
        return f"forget {', '.join(f'#{i}' for i in drop)}"
    changes = [f"{name} {fix[name]!r}" for name in ("text", "kind", "importance") if name in fix]
    return f"revise #{keep}: {', '.join(changes)}"


def _show(result: CheckResult) -> None:
    data = result.as_dict()
    run = "full" if result.full else "incremental"
    model = f"{result.calls} of {result.budget} model calls" if result.model else "no model"
    click.echo(f"checked {result.people} people, {result.notes} notes ({run}; {model})")
    for phase, report in data["phases"].items():
        if not report["ran"]:
            click.echo(f"  {phase:<15} not run: it needs a model")
            continue
        turned = f", {report['rejected']} turned down by the model" if report["rejected"] else ""
        click.echo(f"  {phase:<15} {report['found']} found{turned}")
    for finding in data["findings"]:
        fixed = f"  [fixed: #{finding['fixed']}]" if finding["fixed"] else ""
        click.echo(
            f"{finding['phase']} {finding['subject']} {finding['confidence']:.2f} ({finding['by']}): "
            f"{finding['problem']} -> {_fix_line(finding['fix'])}{fixed}"
        )
    if result.stale:
        click.echo(f"{result.stale} fixes left alone: their notes changed while the check ran")


@main.command("check")
@click.argument("subject", required=False)
@click.option(
    "--fix", is_flag=True, help="Apply the findings at or above --confidence (--undo takes one back)."
)
@click.option("--confidence", type=float, default=0.9, show_default=True, help="What --fix applies, 0 to 1.")
@click.option("--budget", type=int, default=50, show_default=True, help="Model calls at most.")
@click.option("--full", is_flag=True, help="Every note, not only what changed since the last run.")
@click.option("--phase", "phases", multiple=True, type=click.Choice(PHASES), help="Only these (repeatable).")
@click.option(
    "--model", default=None, help="A model provider to judge (see `mneme plugins`); else words only."
)
@click.option("--meaning", is_flag=True, help="Use the configured embedder's vectors (memory.embed).")
@click.option("--fixes", "list_fixes", is_flag=True, help="List the fixes applied, newest first.")
@click.option("--undo", type=int, default=None, help="Put back the notes fix N changed.")
@JSON
@click.pass_obj
def check(
    ctx: Context,
    subject: str | None,
    fix: bool,
    confidence: float,
    budget: int,
    full: bool,
    phases: tuple[str, ...],
    model: str | None,
    meaning: bool,
    list_fixes: bool,
    undo: int | None,
    as_json: bool,
) -> None:
    """Check the notes (everyone's, or SUBJECT's) for prompt injection, duplicates, contradictions, broken
    notes and wrong kinds; print what was found and the fix proposed for each."""
    with ctx.open(embed=None if meaning else "") as m:
        try:
            if undo is not None:
                done = m.undo_fix(undo)
                if as_json:
                    echo_json(done)
                else:
                    click.echo(
                        f"fix #{undo} undone: {', '.join(f'#{i}' for i in done['restored'])} live again"
                    )
                return
            if list_fixes:
                found = m.fixes(subject)
                if as_json:
                    echo_json(found)
                for record in [] if as_json else found:
                    undone = " (undone)" if record["undone_at"] else ""
                    click.echo(
                        f"#{record['id']} {record['phase']} {record['subject']}: {record['problem']}{undone}"
                    )
                return
            options = {"fix": fix, "confidence": confidence, "budget": budget, "full": full}
            result = asyncio.run(_checked(m, subject, model, phases or PHASES, options))
        except MnemeError as err:
            raise Refused(str(err)) from err
        if as_json:
            echo_json(result.as_dict())
        else:
            _show(result)


async def _checked(
    m: Any, subject: str | None, model: str | None, phases: tuple, options: dict
) -> CheckResult:
    provider = model_from_config(m, model) if model is not None else None
    judge = None
    if provider is not None:
        judge = getattr(provider, "judge", None) or completer(provider)
    try:
        return await m.acheck(subject, complete=judge, phases=phases, **options)
    finally:
        if provider is not None:
            await close_model(provider)
