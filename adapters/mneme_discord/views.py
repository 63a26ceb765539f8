"""What the slash commands show: a person's notes as a listing, and the confirmation before forgetting them.

Every answer is ephemeral (only the person who asked sees it) and fits in one Discord message: a listing
too long for 2,000 characters shows the newest notes and says how many more there are.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

import discord

from mneme_core import Note
from mneme_core import text as mtext

__all__ = ["LIMIT", "ForgetMe", "choice_label", "listing"]

log = logging.getLogger(__name__)

LIMIT = 2000
NOTE_LIMIT = 300
CHOICE_LIMIT = 100
ASK = (
    "This erases everything I remember about you: every note, how I feel about you and who you are to me. "
    "It cannot be undone. Forget everything?"
)
KEPT = "Nothing was forgotten."
NOT_YOURS = "This question was not asked of you."


def _line(note: Note) -> str:
    said = discord.utils.escape_markdown(mtext.one_line(note.text, NOTE_LIMIT))
    return f"`#{note.id}` {said} ({note.kind})"


def listing(notes: Sequence[Note], limit: int = LIMIT) -> str:
    """The notes, newest first, one line each with the number `/memory forget` takes."""
    if not notes:
        return "I don't remember anything about you yet."
    head = f"What I remember about you ({len(notes)} note{'s' if len(notes) != 1 else ''}):"
    lines = [head]
    room = limit - len("\n…and 100000 more.")
    size = len(head)
    for shown, note in enumerate(notes):
        line = _line(note)
        last = shown == len(notes) - 1
        if size + 1 + len(line) > (limit if last else room):
            lines.append(f"…and {len(notes) - shown} more.")
            break
        lines.append(line)
        size += 1 + len(line)
    return "\n".join(lines)


def choice_label(note: Note) -> str:
    """A note as an autocomplete choice (Discord allows 100 characters)."""
    return mtext.one_line(f"#{note.id} {note.text}", CHOICE_LIMIT)


class ForgetMe(discord.ui.View):
    """Two buttons under the question: erase everything about the person, or keep it."""

    def __init__(self, user_id: int, erase: Callable[[], Awaitable[int]], *, timeout: float = 180.0) -> None:
        super().__init__(timeout=timeout)
        self.user_id = user_id
        self._erase = erase
        self.erased: int | None = None

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.user.id == self.user_id:
            return True
        await interaction.response.send_message(
            NOT_YOURS, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
        return False

    @discord.ui.button(label="Forget everything", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: discord.Interaction, button: discord.ui.Button[ForgetMe]) -> None:
        self.stop()
        self.erased = await self._erase()
        await interaction.response.edit_message(
            content="Done: I have forgotten everything about you.", view=None
        )

    @discord.ui.button(label="Keep", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: discord.Interaction, button: discord.ui.Button[ForgetMe]) -> None:
        self.stop()
        await interaction.response.edit_message(content=KEPT, view=None)
