"""The shapes the API takes and gives, as its OpenAPI document describes them.

Bodies are strict (a number is not a string, no field the route does not know): a body of the wrong shape
is refused with one line naming the field before any verb runs. What a value may be (a kind, a key, an
importance from 1 to 5, a config value) is the engine's to say, so those rules are not repeated here: the
verb refuses with the same sentence the CLI prints. Answers reuse the engine's own values (`Note`,
`MoodState`, `Relationship`, ...) where one exists.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..memory.note import Note
from ..mood import MoodEvent, MoodState
from ..people import Key, Person, Space
from ..relations import Closeness, Relationship


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewNote(Body):
    """A note to keep, as `mneme remember` takes it (source "web": never under the daily quota)."""

    subject: str
    text: str
    kind: str = "fact"
    key: str | None = None
    importance: int = 3
    feeling: float = 0.0
    date: str | None = Field(None, description="The day it happened or will, YYYY-MM-DD (noon, local).")
    happened_at: float | None = Field(None, description="When it happened, in seconds (instead of date).")


class NoteChange(Body):
    """A note's correction: the new text, and the kind, importance or time if they change too."""

    text: str
    kind: str | None = None
    importance: int | None = None
    date: str | None = None
    happened_at: float | None = None


class Card(Body):
    subject: str
    card: str | None = Field(None, description="The profile card; null or blank removes it.")


class Whom(Body):
    subject: str


class Purge(Body):
    subject: str | None = Field(None, description="Whose hidden and replaced notes; everyone's when null.")


class RoleGiven(Body):
    subject: str
    role: str
    closeness: float | None = None


class Setting(Body):
    """One config key: `value` as JSON, or `text` as `mneme config set KEY VALUE` reads it."""

    key: str
    value: Any = None
    text: str | None = None


class CheckRun(Body):
    fix: bool = False
    subject: str | None = None


# -- answers ---------------------------------------------------------------------------------------------


class Problem(BaseModel):
    """Every refusal: one line saying what was wrong and what is allowed."""

    error: str


class Kept(BaseModel):
    """What a write did: kept, replaced, known, over quota, vetoed, updated, unchanged."""

    outcome: str
    note: Note | None


class Count(BaseModel):
    count: int


class NotesPage(BaseModel):
    notes: list[Note]
    next_offset: int | None = Field(None, description="The offset of the next page; null at the end.")


class Chosen(BaseModel):
    note: Note
    score: float
    why: str
    matched: list[str]


class Skipped(BaseModel):
    id: int
    text: str
    reason: str


class Recalled(BaseModel):
    """What recall would choose for the query and why (nothing is logged), with `explain()`'s lines."""

    query: str
    tier: str
    overview: bool
    chosen: list[Chosen]
    skipped: list[Skipped]
    explain: str


class Block(BaseModel):
    block: str


class Mood(BaseModel):
    now: MoodState
    line: str
    timeline: list[MoodEvent]


class RoleInfo(BaseModel):
    key: str
    label: str
    floor: float
    ceiling: float
    start: float


class Relation(BaseModel):
    relationship: Relationship | None
    history: list[Closeness]


class Looked(BaseModel):
    """A note the recall log names: why it was chosen or skipped, and its text if it is still there."""

    id: int
    why: str
    text: str | None


class LogEntry(BaseModel):
    at: float
    query: str
    chosen: list[Looked]
    skipped: list[Looked]


class Someone(BaseModel):
    person: Person
    profile: str | None
    mood: str
    relationship: Relationship | None
    keys: list[Key]


class PeoplePage(BaseModel):
    total: int
    people: list[Person]


class Features(BaseModel):
    """What this engine has: the health check (`Mneme.acheck`), archived notes, an MCP server mounted."""

    check: bool
    archive: bool
    mcp: bool


class About(BaseModel):
    space: str
    companion: str
    display_language: str
    zone: str
    now: float = Field(description="The companion's clock, in seconds: what 'now' is on the page.")
    version: str
    kinds: list[str]
    roles: list[RoleInfo]
    spaces: list[Space]
    features: Features
    words: dict[str, str]


class ConfigRow(BaseModel):
    key: str
    value: Any
    origin: str
    updated_at: float | None


class ConfigShown(BaseModel):
    rows: list[ConfigRow]
    toml: str


class Stored(BaseModel):
    """A key as stored; the running companion takes it when it next starts, as after `mneme config set`."""

    key: str
    value: Any


class Checked(BaseModel):
    """The health check's answer as the engine gave it: its findings, and the fixes made when asked."""

    fixed: bool
    findings: list[dict[str, Any]]
    summary: dict[str, Any]
