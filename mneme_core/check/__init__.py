"""The health check: duplicates, contradictions, broken notes and prompt injection among the notes, found
and (when asked) fixed, every fix reversible from the history.

The note writer consolidates as it writes (`memory.consolidate`); this is the sweep behind it, for what came
in another way (imports, tools, two processes, a model that missed it) and for what only shows across many
notes. It runs in phases, in this order, because under a budget of model calls the earlier ones take it
first and the later ones catch up on the next run:

1. `injection`: notes that look like prompt injection, by patterns, confirmed by the model;
2. `duplicates`: the same text folded, then near-duplicates by words and (with an embedder) meaning, the
   model judging each cluster;
3. `contradictions`: a person's lasting notes that cannot both be true now (the model only);
4. `broken`: broken or meaningless notes;
5. `kinds`: notes of the wrong kind or importance.

Without a model the word-level parts still run. Each `Finding` names the notes, the problem and a `Fix`;
`Mneme.acheck(fix=True)` applies the ones above a confidence, each recorded (`Mneme.fixes()`) and undone by
`Mneme.undo_fix(id)`. Incremental runs look only at notes written since each phase's mark (kept per space).
`benchmarks/check.py` measures what each phase finds on a planted set.
"""

from .findings import BY, FIXES, PHASES, Finding, Fix
from .run import CheckBusy, CheckOptions, CheckResult, PhaseReport

__all__ = [
    "BY",
    "FIXES",
    "PHASES",
    "CheckBusy",
    "CheckOptions",
    "CheckResult",
    "Finding",
    "Fix",
    "PhaseReport",
]
