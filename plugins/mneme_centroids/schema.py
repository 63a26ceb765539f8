"""The tables of word centroids, and the triggers that tell them what changed.

- `centroids`: per (embedder, term) the number of notes learned and the sum of their vectors, each vector
  rounded to a grid of `SCALE` and summed as 64-bit integers. Integer sums undo exactly: a note unlearned
  leaves the sum bit for bit as if it had never been learned, however many notes came and went meanwhile.
  Terms are the term index's (`terms.id`, one vocabulary per person), so a centroid belongs to one person.
- `centroid_lessons`: what each note taught: the term ids its vector was added to and a fingerprint of that
  vector, so unlearning subtracts exactly what was added, from exactly those terms.
- `centroid_sets`: how many notes each person has taught per embedder (the tier answers only past a minimum).
- `centroid_queue`: what happened to vectors, in order, for `learning.drain` to replay: a vector written
  ("learn": read from `vectors` when replayed), a learned vector taken away or about to be replaced
  ("unlearn", with a copy of the vector, which is gone by then), a note whose words changed (its gloss or
  key: unlearn then learn again). The triggers keep it right whoever writes the file, this process or
  another, with or without this plugin loaded; only a learned vector is copied.

Erasing a person takes everything learned from their notes in the same transaction. A tokenizer change
rebuilds the term index person by person, with new ids (`mneme_core.memory.reindex`): each person's
centroids start over from their stored vectors when their index is rebuilt (`0002_reindexed`; 0001 started
everyone's over when `meta.terms_version` changed, while most people's index still had the old ids), as
everyone's do when the plugin is installed on a file that has vectors already. Every statement may run twice
(`if not exists`; a second replay of the queue skips what is learned): a plugin registered by code rather than
by its entry point has another name, and so another name for its migration.
"""

from __future__ import annotations

from mneme_core.store.postgres.schema import trigger

SCALE = 1 << 20  # a vector's components (at most 1 in size) on a grid of about 1e-6

# Every stored vector queued to be learned (a new tokenizer's term ids, or the plugin installed late).
LEARN_ALL = """insert into centroid_queue(op, note_id, embedder_id, subject_id)
    select 'learn', note_id, embedder_id, subject_id from vectors;"""
START_OVER = f"""    delete from centroids;
    delete from centroid_lessons;
    delete from centroid_sets;
    delete from centroid_queue;
    {LEARN_ALL}"""

CENTROIDS_0001 = f"""
create table if not exists centroids(
    embedder_id integer not null,
    term_id integer not null,
    subject_id integer not null,
    notes integer not null,
    total blob not null,
    primary key(embedder_id, term_id)
) without rowid;
create index if not exists centroids_subject on centroids(subject_id);
create table if not exists centroid_lessons(
    embedder_id integer not null,
    note_id integer not null,
    subject_id integer not null,
    terms text not null,
    print integer not null,
    primary key(note_id, embedder_id)
) without rowid;
create index if not exists centroid_lessons_subject on centroid_lessons(subject_id);
create table if not exists centroid_sets(
    embedder_id integer not null,
    subject_id integer not null,
    learned integer not null,
    primary key(embedder_id, subject_id)
) without rowid;
create table if not exists centroid_queue(
    id integer primary key,
    op text not null,
    note_id integer not null,
    embedder_id integer not null,
    subject_id integer not null,
    vector blob
);
create index if not exists centroid_queue_subject on centroid_queue(subject_id);
create trigger if not exists centroids_vector_added after insert on vectors begin
    insert into centroid_queue(op, note_id, embedder_id, subject_id)
    values ('learn', new.note_id, new.embedder_id, new.subject_id);
end;
create trigger if not exists centroids_vector_replaced before insert on vectors
when exists (select 1 from centroid_lessons l
    where l.note_id = new.note_id and l.embedder_id = new.embedder_id)
begin
    insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)
    select 'unlearn', v.note_id, v.embedder_id, v.subject_id, v.vector from vectors v
    where v.note_id = new.note_id and v.embedder_id = new.embedder_id;
end;
create trigger if not exists centroids_vector_removed after delete on vectors
when exists (select 1 from centroid_lessons l
    where l.note_id = old.note_id and l.embedder_id = old.embedder_id)
begin
    insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)
    values ('unlearn', old.note_id, old.embedder_id, old.subject_id, old.vector);
end;
create trigger if not exists centroids_words_changed after update of text, key, gloss on notes
when old.text is not new.text or old.key is not new.key or old.gloss is not new.gloss begin
    insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)
    select 'unlearn', v.note_id, v.embedder_id, v.subject_id, v.vector from vectors v
    join centroid_lessons l on l.note_id = v.note_id and l.embedder_id = v.embedder_id
    where v.note_id = new.id;
    insert into centroid_queue(op, note_id, embedder_id, subject_id)
    select 'learn', v.note_id, v.embedder_id, v.subject_id from vectors v where v.note_id = new.id;
end;
create trigger if not exists centroids_subject_erased after delete on subjects begin
    delete from centroids where subject_id = old.id;
    delete from centroid_lessons where subject_id = old.id;
    delete from centroid_sets where subject_id = old.id;
    delete from centroid_queue where subject_id = old.id;
end;
create trigger if not exists centroids_terms_inserted after insert on meta
when new.key = 'terms_version' begin
{START_OVER}
end;
create trigger if not exists centroids_terms_changed after update on meta
when new.key = 'terms_version' and old.value is not new.value begin
{START_OVER}
end;
{LEARN_ALL}
"""


# A person's index rebuilt (their row of `reindexing` goes; erased, they are gone already): what they taught
# starts over from their stored vectors, one embedder at a time (`vectors_subject` leads with it).
_PERSON_OVER = """    delete from centroids where subject_id = old.subject_id;
    delete from centroid_lessons where subject_id = old.subject_id;
    delete from centroid_sets where subject_id = old.subject_id;
    delete from centroid_queue where subject_id = old.subject_id;
    insert into centroid_queue(op, note_id, embedder_id, subject_id)
    select 'learn', note_id, embedder_id, subject_id from vectors
    where embedder_id in (select id from embedders) and subject_id = old.subject_id;"""
_REBUILT = "exists (select 1 from subjects where id = old.subject_id)"
REINDEXED_0002 = f"""
drop trigger if exists centroids_terms_inserted;
drop trigger if exists centroids_terms_changed;
create trigger if not exists centroids_person_reindexed after delete on reindexing
when {_REBUILT} begin
{_PERSON_OVER}
end
"""
_PERSON_OVER_PG = _PERSON_OVER.replace("    ", "        ")
REINDEXED_0002_POSTGRES = "drop trigger if exists centroids_terms_changed on meta;\n" + trigger(
    "centroids_person_reindexed", "after delete", "reindexing", _PERSON_OVER_PG, _REBUILT
)


# The same tables and triggers in PostgreSQL's words (`mneme_core.store.postgres`). A vector written again is
# an upsert there: the old vector is unlearned before the insert (as on SQLite) and the new one learned after
# the insert or after the update the conflict turned it into (SQLite's REPLACE fires only the insert's).
_LESSON = (
    "exists (select 1 from centroid_lessons l "
    "where l.note_id = {0}.note_id and l.embedder_id = {0}.embedder_id)"
)
_START_OVER_PG = START_OVER.replace("    ", "        ")
CENTROIDS_0001_POSTGRES = "\n".join(
    [
        """create table if not exists centroids(
    embedder_id bigint not null,
    term_id bigint not null,
    subject_id bigint not null,
    notes bigint not null,
    total bytea not null,
    primary key(embedder_id, term_id)
);
create index if not exists centroids_subject on centroids(subject_id);
create table if not exists centroid_lessons(
    embedder_id bigint not null,
    note_id bigint not null,
    subject_id bigint not null,
    terms text not null,
    print bigint not null,
    primary key(note_id, embedder_id)
);
create index if not exists centroid_lessons_subject on centroid_lessons(subject_id);
create table if not exists centroid_sets(
    embedder_id bigint not null,
    subject_id bigint not null,
    learned bigint not null,
    primary key(embedder_id, subject_id)
);
create table if not exists centroid_queue(
    id bigint generated by default as identity primary key,
    op text not null,
    note_id bigint not null,
    embedder_id bigint not null,
    subject_id bigint not null,
    vector bytea
);
create index if not exists centroid_queue_subject on centroid_queue(subject_id);""",
        trigger(
            "centroids_vector_added",
            "after insert or update",
            "vectors",
            "        insert into centroid_queue(op, note_id, embedder_id, subject_id)\n"
            "        values ('learn', new.note_id, new.embedder_id, new.subject_id);",
        ),
        trigger(
            "centroids_vector_replaced",
            "before insert",
            "vectors",
            "        insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)\n"
            "        select 'unlearn', v.note_id, v.embedder_id, v.subject_id, v.vector from vectors v\n"
            "        where v.note_id = new.note_id and v.embedder_id = new.embedder_id;",
            _LESSON.format("new"),
            returns="new",
        ),
        trigger(
            "centroids_vector_removed",
            "after delete",
            "vectors",
            "        insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)\n"
            "        values ('unlearn', old.note_id, old.embedder_id, old.subject_id, old.vector);",
            _LESSON.format("old"),
        ),
        trigger(
            "centroids_words_changed",
            "after update of text, key, gloss",
            "notes",
            "        insert into centroid_queue(op, note_id, embedder_id, subject_id, vector)\n"
            "        select 'unlearn', v.note_id, v.embedder_id, v.subject_id, v.vector from vectors v\n"
            "        join centroid_lessons l on l.note_id = v.note_id and l.embedder_id = v.embedder_id\n"
            "        where v.note_id = new.id;\n"
            "        insert into centroid_queue(op, note_id, embedder_id, subject_id)\n"
            "        select 'learn', v.note_id, v.embedder_id, v.subject_id from vectors v\n"
            "        where v.note_id = new.id;",
            "old.text is distinct from new.text or old.key is distinct from new.key "
            "or old.gloss is distinct from new.gloss",
        ),
        trigger(
            "centroids_subject_erased",
            "after delete",
            "subjects",
            "        delete from centroids where subject_id = old.id;\n"
            "        delete from centroid_lessons where subject_id = old.id;\n"
            "        delete from centroid_sets where subject_id = old.id;\n"
            "        delete from centroid_queue where subject_id = old.id;",
        ),
        trigger(
            "centroids_terms_changed",
            "after insert or update",
            "meta",
            _START_OVER_PG,
            "new.key = 'terms_version' and (tg_op = 'INSERT' or old.value is distinct from new.value)",
        ),
        LEARN_ALL,
    ]
)
