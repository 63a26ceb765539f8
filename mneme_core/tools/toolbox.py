"""`Toolbox`: runs a model's tool calls against one companion's memory, never raising."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .. import text
from ..decide import run
from ..errors import InvalidType, InvalidValue, describe
from ..memory.note import subject_of
from ..messages import Words

if TYPE_CHECKING:
    from ..mneme import Mneme

from .builtins import BUILTIN, specs
from .checking import check, parse
from .definitions import NAME, SUBJECT, Answer, Call, Handler, Registry, Reply, Tool, ToolError, _name

log = logging.getLogger(__name__)


# -- dispatching ------------------------------------------------------------------------------------------


def source_of(value: object) -> str:
    """What the notes a toolbox keeps say wrote them: a short word like 'auto' or 'mcp'."""
    if not isinstance(value, str) or text.is_blank(value):
        raise InvalidValue(f"source is a short word like 'auto', not {describe(value)}")
    return value


class Toolbox:
    """Runs a model's tool calls against one companion's memory.

    `Toolbox(m, subject="discord:42")` binds every call to that person; without a subject, each call must
    name one. `prefix` namespaces the tools (`memory_recall`); a call is found with or without it. `source`
    is written on remembered notes: "auto" (the default) puts them under the daily quota for model notes.
    """

    def __init__(
        self,
        m: Mneme,
        subject: str | None = None,
        *,
        prefix: str = "",
        source: str = "auto",
        tools: Registry | None = None,
    ) -> None:
        self.mneme = m
        self.subject = None if subject is None else subject_of(subject)
        self.source = source_of(source)
        # The companion's tools (built-ins and what plugins registered), unless the host gives its own.
        self.tools = (getattr(m, "tools", BUILTIN) if tools is None else tools).copy()
        for tool in self.tools:
            _name(prefix, tool.name)
        self.prefix = prefix

    def register(
        self, name: str, spec: Mapping[str, Any], handler: Handler, *, plugin: str | None = None
    ) -> Tool:
        """Add a tool to this toolbox only (see `Registry.register`)."""
        if isinstance(name, str) and NAME.fullmatch(name):
            _name(self.prefix, name)
        return self.tools.register(name, spec, handler, plugin=plugin)

    def specs(self, style: str = "openai", *, strict: bool = False) -> list[dict[str, Any]]:
        """This toolbox's definitions: its prefix, its plugins' tools, and `subject` when none is bound;
        `strict` for OpenAI's strict mode (the toolbox takes null for an argument left out)."""
        return specs(
            style, prefix=self.prefix, with_subject=self.subject is None, strict=strict, tools=self.tools
        )

    def _find(self, name: object, words: Words) -> Tool:
        if isinstance(name, str):
            bare = name[len(self.prefix) :] if self.prefix and name.startswith(self.prefix) else name
            found = self.tools.get(bare) or self.tools.get(name)
            if found is not None:
                return found
        names = [self.prefix + t.name for t in self.tools]
        shown = text.one_line(name, 64) if isinstance(name, str) else describe(name, 64)
        raise ToolError(key="tool.unknown", name=shown or "''", names=words.say("tool.comma").join(names))

    def _subject(self, arguments: Mapping[str, Any]) -> str:
        if self.subject is not None:
            return self.subject
        given = arguments.get(SUBJECT)
        if given is None or (isinstance(given, str) and not given.strip()):
            raise ToolError(key="tool.no_subject")
        try:
            return subject_of(given)
        except (InvalidValue, InvalidType):
            raise ToolError(key="tool.rule.subject", field=SUBJECT) from None

    async def areply(self, name: str, arguments: object = None) -> Reply:
        """Run one call; the reply says whether it is an error. Never raises (but for cancellation)."""
        words = self.mneme.words
        tool: Tool | None = None
        try:
            tool = self._find(name, words)
            given = parse(arguments)
            call = Call(self.mneme, self._subject(given), check(tool, given, words), words, self.source)
            answer = tool.handler(call)
            if inspect.isawaitable(answer):
                answer = await answer
            if isinstance(answer, Answer) and isinstance(answer.text, str):
                data = None if answer.data is None else dict(answer.data)
                return Reply(answer.text, False, tool.name, data)
            if not isinstance(answer, str):
                raise TypeError(f"tool {tool.name} answered {type(answer).__name__}, not text")
            return Reply(answer, False, tool.name)
        except ToolError as err:
            return Reply(words.say("tool.error", problem=err.problem(words)), True, tool and tool.name)
        except (InvalidValue, InvalidType) as err:
            # A value the engine refused that the checks above let through: its message is English and
            # names no field the model knows, so the model gets the display language's general sentence.
            log.info("tool %s refused its arguments: %s", tool and tool.name, err)
            return Reply(words.say("tool.error", problem=words.say("tool.refused")), True, tool and tool.name)
        except Exception:  # the boundary between a model's call and the host: answer, never raise
            log.exception("tool %s failed", tool and tool.name)
            failed = words.say("tool.failed", name=tool.name if tool else "?")
            return Reply(words.say("tool.error", problem=failed), True, tool and tool.name)

    def reply(self, name: str, arguments: object = None) -> Reply:
        return run(lambda: self.areply(name, arguments))

    async def acall(self, name: str, arguments: object = None) -> str:
        """Run one call and return the text for the model (an error is text too)."""
        return (await self.areply(name, arguments)).text

    def call(self, name: str, arguments: object = None) -> str:
        return self.reply(name, arguments).text
