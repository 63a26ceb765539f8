"""Vectors on PostgreSQL: in pgvector's `vector` type, searched by the server, where the server has the
extension; otherwise float32 arrays in `bytea`, searched in this process as the SQLite file's are
(`meaning.vectors.VectorIndex`).

Which path a database takes is decided at open, after the migrations and under the same advisory lock
(`choose`): a database whose `vector` extension is there already, or can be made (`create extension`, when
this role may), keeps its vectors in a `vector` column; one whose server has no pgvector, or whose role may
not create it, keeps them as arrays. One log line says which, and why. Once a database has the extension
its vectors stay in pgvector: a database that kept arrays is converted in the same transaction (its rows
read and written back as `vector`s) the first time it is opened where pgvector can be had.

The column is `vector` without a fixed dimension: one table holds the vectors of every embedder, and the
engine keeps each embedder's dimensions itself (`embedders.dimensions`; a changed dimension is refused as
on SQLite). The engine's transaction functions keep handing float32 bytes in and out (`Connection` turns
them into `vector`s and back, `Floats`), so export, the floor's sample and `mneme move` read the same
bytes on every backend.

Search (`ServerVectors`): the same scores as the file's, worked out by the server. A person with
`CENTER_MIN` vectors or more is searched with their mean direction taken out: the mean is pgvector's
`avg`, the floor measured on the same sample of rows the file's search takes (every `n // 300`th by id), and
each similarity the cosine of the centred vectors, as the file's `centered @ q`, from three inner products
(`<#>`) a row. Fewer vectors: the plain inner product (`<#>`; vectors are unit length). The mean and floor
are kept per person and worked out again only when the person's vectors changed (`vector_sets.changes`,
one indexed row). Every similarity comes back, packed into one `bytea` (not one row each), because recall
needs them all: its floor is raised to the mean plus z standard deviations of the person's similarities
(`memory.recall.nearest`). That is also why no HNSW or IVFFlat index is made: an approximate index gives a
few nearest rows by plain cosine, not every row's centred similarity, so its results differ from the file's
(`benchmarks/postgres.py --index`, 10,000 vectors of one person on the loaded 2-core machine: an HNSW
index took 12.5 s to build, gave its 10 nearest in 30 ms against 106 ms for the exact scan, and found 34%
of the exact search's 10 best).

What it costs (`benchmarks/postgres.py --vectors`, same machine, load 7-12, recall's whole time): the
server's scan is linear, so a recall over 100,000 vectors of one person takes 193 ms median on pgvector
against 73 ms on a file's matrix in memory and 129 ms on the arrays path; at 10,000, 74 / 53 / 85 ms. What
pgvector saves is this process's memory and time: none of the person's vectors is read into it (the first
recall after open 1.5 s against 6.0 s on the file at 100,000; 20 ms of this process's CPU a recall against
31 ms). The matrix in memory stays the faster choice for one very large person; pgvector the lighter one
for many processes and many people.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...meaning.embeddings import numpy
from ...meaning.vectors import CENTER_MIN, FLOOR_SAMPLE, NOTES, PerPerson, Shelf, centred_floor

ARRAYS, PGVECTOR = "arrays", "pgvector"


@dataclass(frozen=True)
class Kept:
    """How a database keeps its vectors: `PGVECTOR` (with the extension's schema and the type's oid) or
    `ARRAYS`, and why."""

    path: str
    why: str
    schema: str | None = None
    oid: int | None = None
    tables: frozenset[str] = frozenset()  # whose `vector` column is pgvector's

    def op(self, symbol: str) -> str:
        """pgvector's operator, named by its schema (which need not be on the search path)."""
        return f"operator({quoted(self.schema or '')}.{symbol})"


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _extension(conn: Any) -> tuple[str, str, int] | None:
    row = conn.raw.execute(
        "select n.nspname, e.extversion, t.oid from pg_extension e "
        "join pg_namespace n on n.oid = e.extnamespace "
        "join pg_type t on t.typname = 'vector' and t.typnamespace = e.extnamespace "
        "where e.extname = 'vector'"
    ).fetchone()
    return (row[0], row[1], int(row[2])) if row else None


def choose(conn: Any) -> Kept:
    """The path this database takes (see the module docstring), inside the migrations' transaction."""
    found = _extension(conn)
    if found is None:
        offered = conn.raw.execute(
            "select default_version from pg_available_extensions where name = 'vector'"
        ).fetchone()
        if offered is None:
            return Kept(ARRAYS, "the server has no pgvector extension (pg_available_extensions)")
        conn.raw.execute("savepoint mneme_vector")
        try:
            conn.raw.execute("create extension if not exists vector")
        except Exception as err:  # psycopg's error: this role may not create it, most often
            conn.raw.execute("rollback to savepoint mneme_vector")
            said = (str(err).strip().splitlines() or [type(err).__name__])[0]
            return Kept(ARRAYS, f"pgvector {offered[0]} is on the server, but not made here: {said}")
        conn.raw.execute("release savepoint mneme_vector")
        found = _extension(conn)
        if found is None:  # pragma: no cover - created, yet not there
            return Kept(ARRAYS, "create extension vector left no vector type")
        why = f"pgvector {found[1]} created in schema {found[0]}"
    else:
        why = f"pgvector {found[1]} is in the database (schema {found[0]})"
    schema, _version, oid = found
    converted = _convert(conn, schema, oid)
    if converted:
        why = f"{why}; {converted} vectors kept as arrays until now converted"
    return Kept(PGVECTOR, why, schema, oid, frozenset(tables_of(conn)))


def adapted(conn: Any) -> Any:
    """`conn` (a `Connection`) taking and giving vectors as float32 bytes if its database keeps them in
    pgvector's type; for a connection opened outside a store (tools, tests)."""
    tables = tables_of(conn)
    found = _extension(conn) if tables else None
    if found is not None:
        conn.use_pgvector(found[2], frozenset(tables))
    return conn


def _convert(conn: Any, schema: str, oid: int) -> int:
    """Every `vector` column still `bytea` (the shelves', and a plugin's copy of them, as the centroids'
    queue keeps) becomes a `vector` column, its rows carried over."""
    adapt(conn.raw, oid)
    moved = 0
    for (table,) in conn.raw.execute(
        "select table_name from information_schema.columns where table_schema = current_schema() "
        "and column_name = 'vector' and udt_name = 'bytea' order by table_name"
    ).fetchall():
        conn.raw.execute(f"alter table {quoted(table)} rename column vector to vector_bytes")
        conn.raw.execute(f"alter table {quoted(table)} add column vector {quoted(schema)}.vector")
        rows = conn.raw.execute(
            f"select ctid::text, vector_bytes from {quoted(table)} where vector_bytes is not null"
        ).fetchall()
        with conn.raw.cursor() as cursor:
            cursor.executemany(
                f"update {quoted(table)} set vector = %s where ctid = %s::tid",
                [(Floats(bytes(blob)), at) for at, blob in rows],
            )
        (required,) = conn.raw.execute(
            "select is_nullable = 'NO' from information_schema.columns where table_schema = current_schema() "
            "and table_name = %s and column_name = 'vector_bytes'",
            (table,),
        ).fetchone()
        conn.raw.execute(f"alter table {quoted(table)} drop column vector_bytes")
        if required:
            conn.raw.execute(f"alter table {quoted(table)} alter column vector set not null")
        moved += len(rows)
    return moved


def tables_of(conn: Any) -> tuple[str, ...]:
    """The tables whose `vector` column is pgvector's."""
    return tuple(
        row[0]
        for row in conn.raw.execute(
            "select table_name from information_schema.columns where table_schema = current_schema() "
            "and column_name = 'vector' and udt_name = 'vector' order by table_name"
        )
    )


# -- float32 bytes in and out -------------------------------------------------------------------------------


class Floats:
    """Float32 bytes (little-endian, as the engine keeps a vector) sent to the server as a `vector`."""

    __slots__ = ("blob",)

    def __init__(self, blob: bytes) -> None:
        self.blob = blob


def adapt(raw: Any, oid: int) -> None:
    """Teach a psycopg connection pgvector's type: `Floats` go out as `vector`s (binary: a 2-byte
    dimension, 2 unused bytes, big-endian float32s) and `vector`s come back as float32 bytes."""
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format

    np = numpy()

    class _Dumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: Floats) -> bytes:
            values = np.frombuffer(obj.blob, dtype="<f4")
            return struct.pack(">HH", len(values), 0) + values.astype(">f4").tobytes()

    class _Loader(Loader):
        def load(self, data: Any) -> bytes:
            text = bytes(data)
            return np.fromstring(text[1:-1], dtype="<f4", sep=",").tobytes()

    _Dumper.oid = oid
    raw.adapters.register_dumper(Floats, _Dumper)
    raw.adapters.register_loader(oid, _Loader)


_WRITES = re.compile(r"\binto\s+(\w+)\s*\(([^)]*)\)\s*values\s*\(([^)]*)\)", re.I)


@lru_cache(maxsize=256)
def vector_param(sql: str) -> tuple[str, int] | None:
    """(table, where the vector is among the parameters) of a statement writing a `vector` column."""
    found = _WRITES.search(sql)
    if found is None:
        return None
    columns = [c.strip().lower() for c in found.group(2).split(",")]
    values = [v.strip() for v in found.group(3).split(",")]
    if "vector" not in columns or any(v != "?" for v in values):
        return None
    return found.group(1).lower(), columns.index("vector")


def as_vectors(sql: str, params: Any, tables: frozenset[str]) -> Any:
    """`params` with the vector's bytes as `Floats`, for a statement writing a pgvector column."""
    found = vector_param(sql)
    if found is None or found[0] not in tables or not isinstance(params, (tuple, list)):
        return params
    at = found[1]
    if not isinstance(params[at], (bytes, bytearray, memoryview)):
        return params
    return (*params[:at], Floats(bytes(params[at])), *params[at + 1 :])


# -- search ------------------------------------------------------------------------------------------------


@dataclass
class _Person:
    changes: int
    mean: Any = None  # float32, once the person has CENTER_MIN vectors
    floor: float | None = None


class ServerVectors(PerPerson):
    """A person's vectors searched by the server (see the module docstring); the same answers as
    `meaning.vectors.VectorIndex`, which keeps them in memory."""

    def __init__(self, dimensions: int, kept: Kept) -> None:
        super().__init__(dimensions)
        self.kept = kept

    def _person(self, conn: Any, eid: int, sid: int, shelf: Shelf) -> _Person:
        changes, held = self.held(conn, eid, sid, shelf)
        if held is not None and held.changes == changes:
            return held
        np = numpy()
        where = f"from {shelf.vectors} where embedder_id = %s and subject_id = %s"
        count, mean = conn.raw.execute(
            f"select count(*), {quoted(self.kept.schema or '')}.avg(vector) {where}", (eid, sid)
        ).fetchone()
        made = _Person(changes)
        if count >= CENTER_MIN:
            made.mean = np.frombuffer(mean, dtype="<f4")
            step = max(1, count // FLOOR_SAMPLE)
            rows = conn.raw.execute(
                f"select vector from (select vector, row_number() over (order by {shelf.item}) - 1 as i "
                f"{where}) s where i %% %s = 0 order by i limit %s",
                (eid, sid, step, FLOOR_SAMPLE),
            ).fetchall()
            sample = np.stack([np.frombuffer(blob, dtype="<f4") for (blob,) in rows])
            made.floor = centred_floor(sample, made.mean)
            self.loaded += 1 + len(rows)
        return self.keep(eid, sid, shelf, made)

    def similar(
        self, conn: Any, eid: int, sid: int, query: Any, floor: float, shelf: Shelf = NOTES
    ) -> tuple[Any, Any, float]:
        """(ids, similarities, floor) of all a person's vectors to the query vector, as
        `VectorIndex.similar` gives them."""
        np = numpy()
        person = self._person(conn, eid, sid, shelf)
        q = np.asarray(query, dtype=np.float32)
        ip = self.kept.op("<#>")  # the negative inner product
        if person.mean is None:
            sim = f"-(vector {ip} %(q)s)"
            args: dict[str, Any] = {"q": Floats(q.astype("<f4").tobytes())}
        else:
            q = q - person.mean
            q = q / (np.linalg.norm(q) or 1.0)
            # cos(v - m, q') = (v.q' - m.q') / |v - m|, with |v - m|^2 = v.v - 2 v.m + m.m: three inner
            # products a row, no vector made per row (40% less time than `(v - m) <=> q'`, and the same
            # scores to 1e-7). A vector equal to the mean has no direction: 0, as the file's search gives.
            sim = (
                f"coalesce((-(vector {ip} %(q)s) - %(mq)s) / nullif(sqrt(greatest(0, -(vector {ip} vector) "
                f"+ 2 * (vector {ip} %(m)s) + %(mm)s)), 0), 0)"
            )
            args = {
                "q": Floats(q.astype("<f4").tobytes()),
                "m": Floats(person.mean.astype("<f4").tobytes()),
                "mq": float(person.mean @ q),
                "mm": float(person.mean @ person.mean),
            }
        # Both aggregates see the rows in the same order; the ids are sorted here (no sort on the server).
        ids, sims = conn.raw.execute(
            f"select string_agg(int8send({shelf.item}), ''), string_agg(float4send(({sim})::real), '') "
            f"from {shelf.vectors} where embedder_id = %(eid)s and subject_id = %(sid)s",
            {**args, "eid": eid, "sid": sid},
        ).fetchone()
        if ids is None:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32), floor
        found = np.frombuffer(bytes(ids), dtype=">i8").astype(np.int64)
        order = np.argsort(found, kind="stable")
        found = found[order]
        sims_ = np.frombuffer(bytes(sims), dtype=">f4").astype(np.float32)[order]
        return (found, sims_, floor) if person.mean is None else (found, sims_, person.floor)
