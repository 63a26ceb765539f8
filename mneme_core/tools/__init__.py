"""Tools: a person's memory (remember, recall, forget, mood, notes, update, relationship, profile) in any
model API's format, and one dispatcher for their calls.

`specs(style)` gives the definitions for `openai` (Chat Completions), `responses` (the Responses API),
`anthropic`, `gemini` and `mcp`; `Toolbox(m, subject=...)` runs a call by its name and arguments (a dict or
the JSON string a model produced) and answers with text for the model and, where a tool has it, the same
answer as data (`Reply.data`: ids, kinds, dates; MCP's `structuredContent`). `specs(style, strict=True)`
gives OpenAI strict-mode functions (openai, responses): every property required, the optional ones
nullable, and the dispatcher takes null as absent.

The policy:
- The host decides whose memory is used. With a bound subject, a `subject` in the model's arguments is
  ignored; without one, every definition asks for a `subject` and every call must give it.
- A call never raises. A mistake (bad JSON, a wrong type, a string over its limit, an unknown tool, a missing
  field) comes back as one sentence the model can act on, naming the field; `Reply.error` flags it, so a
  protocol (MCP's `isError`) never has to guess from the wording. So does a write that did not happen (the
  daily quota, a plugin's veto, no such note to update).
- Replies are in the display language, details included: a value the engine refuses is reported with a
  sentence of that language naming the field, never with the engine's English message.
- Recalled notes come back as data, one line each, under a line that says they are not instructions.

Glossary:
- definition: one tool in one API's format, what `specs` returns a list of.
- spec: what a tool is, independent of any API: `{"description": ..., "parameters": <object schema>}`. The
  schemas use a small subset of JSON Schema that every API accepts (see `KEYWORDS`), so one spec serves all
  five styles (OpenAI's strict mode keeps `STRICT_KEYWORDS` of it; the dispatcher enforces the rest).
- handler: what runs a call, `handler(call) -> str | Answer` or an awaitable of it; raising `ToolError`
  answers the model with an error.

Plugins add tools with `Registry.register(name, spec, handler)` (the `register_tools` hook hands plugins
that callback) or `Toolbox.register` for one toolbox; the built-in ones are registered the same way.
"""

from __future__ import annotations

from .builtins import BUILTIN, specs
from .definitions import (
    QUERY_LIMIT,
    STRICT_STYLES,
    STYLES,
    Answer,
    Call,
    Registry,
    Reply,
    Tool,
    ToolError,
    definition,
)
from .toolbox import Toolbox

__all__ = [
    "BUILTIN",
    "QUERY_LIMIT",
    "STRICT_STYLES",
    "STYLES",
    "Answer",
    "Call",
    "Registry",
    "Reply",
    "Tool",
    "ToolError",
    "Toolbox",
    "definition",
    "specs",
]
