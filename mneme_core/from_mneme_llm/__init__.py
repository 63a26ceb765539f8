"""What a project moving from mneme-llm 0.1.0 brings with it, read with the meanings mneme-llm documents.

- `switches`: the constructor's switches of the tiers (`luna`, `micro`, `embed`, `meaning_micro`,
  `memory_language`), so `Mneme(..., luna=False, micro=False, meaning_micro=False, embed=False,
  memory_language=None)`, its "keep everything local" call, works here as it does there.
- `database`: a mneme-llm database file, converted in place to Mneme's schema the first time Mneme opens
  it, after a backup copy of it is made beside it.
- Its config file (TOML, or the copy its database keeps) is read by `config.mneme_llm`; its export by
  `transfer`.

`docs/switching_from_mneme_llm.md` lists every documented mneme-llm call and command with its Mneme form.
"""

from __future__ import annotations

from .switches import STORED, Switches, switches

__all__ = ["STORED", "Switches", "switches"]
