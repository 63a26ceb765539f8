"""The console adapter: talk to the companion in a terminal (`mneme chat`).

It reads lines from `input` and prints replies to `output`, one message at a time: the next line is read
once the reply to the last one was printed, as in any chat. `/quit` or the end of the input (Ctrl-D) ends
the chat; Ctrl-C ends it too; `/help` says so here and goes to no model. Lines are read on a thread of their
own (a daemon, so a chat ended by a signal never waits for a line that will not come), and handed to the
event loop.

The person at the terminal is `console:<user_id>`: the `[adapters.console]` table's `user_id`, else the
login name, the same for `mneme chat` and `mneme run console`, so both talk to the companion as one person.

Without a model, the runner's offline stand-in answers and shows the memory block, so a newcomer sees the
engine work with no key and no network; the first line says that nothing is remembered then, since with no
model there is no judge to choose what to keep (`mneme demo` scripts one).
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import sys
import threading
from collections.abc import Mapping
from typing import IO, Any

from ..config import checks
from ..config.declared import Setting, Table
from .incoming import Adapter, Incoming, subject_for
from .models import close_model, model_from_config
from .offline import OfflineModel
from .runner import Runner
from .settings import BotSettings

__all__ = ["HELP", "OFFLINE", "QUIT", "SETTINGS", "ConsoleAdapter", "achat"]


def _user_id(key: str, value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return checks.text(80)(key, value)


SETTINGS = Table(
    "adapters.console",
    (
        Setting(
            "user_id",
            _user_id,
            "who is at the terminal: console:<user_id> (default: the login name)",
            example="leo",
        ),
        Setting("user_name", checks.text(80), "how the companion calls them", example="Leo"),
    ),
)
"""The `[adapters.console]` table, read by `mneme chat` and `mneme run console` alike."""

QUIT = frozenset({"/quit", "/exit", "/bye"})
HELP = frozenset({"/help", "/?"})
OFFLINE = (
    "Offline: no model is configured, so a stand-in answers (showing what a model would be told) and nothing "
    "new is remembered, since without a model no judge chooses what to keep. `mneme demo` shows remembering "
    "with a scripted judge; name a model in [plugins.openai] for real replies."
)


class ConsoleAdapter(Adapter):
    """One person at a terminal; their subject is `console:<user_id>` (the login name by default)."""

    name = "console"
    limit = 4000

    def __init__(
        self,
        settings: Mapping[str, Any] | None = None,
        *,
        input: IO[str] | None = None,
        output: IO[str] | None = None,
        user_id: str | None = None,
        user_name: str | None = None,
        prompt: str = "> ",
    ) -> None:
        super().__init__(settings)
        table = SETTINGS.read(self.settings)
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.user_id = user_id or table.get("user_id") or _login()
        self.user_name = user_name or table.get("user_name") or None
        self.prompt = prompt
        self._reader: asyncio.Task[None] | None = None

    def incoming(self, event: Any) -> Incoming | None:
        line = str(event).strip()
        if not line:
            return None
        return Incoming(
            platform=self.name, user_id=self.user_id, user_name=self.user_name, text=line, is_direct=True
        )

    @property
    def subject(self) -> str:
        """Who is at the terminal, unless a `resolve_subject` plugin maps them to another."""
        return subject_for(self.name, self.user_id)

    async def start(self, runner: Runner) -> None:
        if isinstance(runner.model, OfflineModel):
            self._show(OFFLINE + "\n")
        self._reader = asyncio.create_task(self._chat(runner), name="mneme console")

    async def stop(self) -> None:
        if self._reader is not None and not self._reader.done():
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)

    async def send(self, incoming: Incoming, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    async def _chat(self, runner: Runner) -> None:
        lines = _lines(self.input)
        line: str | None = ""
        try:
            while True:
                self._show(self.prompt)
                line = await lines.get()
                if line is None or line.strip().lower() in QUIT:
                    break
                if line.strip().lower() in HELP:  # for the person here, not a message to the model
                    self._show(self.help())
                    continue
                incoming = self.incoming(line)
                if incoming is not None:
                    await runner.handle(self, incoming)
        finally:
            self._show("\n" if line is None else "")
            runner.stop_soon()

    def help(self) -> str:
        return (
            f"You talk to the companion as {self.subject}. Type a message and press Enter; /quit (or Ctrl-D) "
            "leaves; /help shows this, and goes to no model.\n"
        )

    def _show(self, text: str) -> None:
        if text:
            self.output.write(text)
            self.output.flush()


def _login() -> str:
    try:
        return getpass.getuser() or "me"
    except (OSError, KeyError):  # no login name in this environment (a container, a service)
        return "me"


def _lines(source: IO[str]) -> asyncio.Queue[str | None]:
    """The lines of `source` as they are typed, read on a daemon thread; None at the end."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        try:
            for line in iter(source.readline, ""):
                loop.call_soon_threadsafe(queue.put_nowait, line)
        except (OSError, ValueError):  # the input was closed under us: the chat ends
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is gone already: nobody waits
                loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="mneme console input", daemon=True).start()
    return queue


async def achat(
    mneme: Any,
    *,
    model: Any = None,
    provider: str | None = None,
    persona: str = "",
    user_id: str | None = None,
    user_name: str | None = None,
    input: IO[str] | None = None,
    output: IO[str] | None = None,
    settings: BotSettings | None = None,
) -> dict[str, Any]:
    """Chat with the companion in the terminal until /quit or the end of the input; returns the runner's
    report. The model is `model` if given, else the provider named (or configured) in the companion's
    config, else the offline stand-in."""
    settings = settings if settings is not None else BotSettings.from_config(mneme.config, persona=persona)
    made = model is None
    if made:
        model = model_from_config(mneme, provider)
    runner = Runner(mneme, model, settings=settings)
    table = mneme.config.table("adapters.console")  # the same person as `mneme run console` is
    adapter = ConsoleAdapter(table, input=input, output=output, user_id=user_id, user_name=user_name)
    try:
        await runner.serve([adapter], signals=input is None)
    finally:
        if made:
            await close_model(model)
    return runner.report()
