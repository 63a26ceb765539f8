"""Word centroids (`plugins/mneme_centroids`): learned from the stored vectors, and unlearned, exactly.

The check of exactness recomputes every centroid from scratch: for each live note with a vector, its terms as
the term index has them, and the mean of those notes' stored vectors. The centroids kept by the plugin must
count the same notes and hold the same means; after a note leaves, they must be bit for bit what they were
before it came.
"""

from __future__ import annotations

from collections import defaultdict

import mneme_centroids
import numpy as np
import pytest
from conftest import raw_connection
from mneme_centroids import learning
from tier_fakes import CAT_NOTE, Fake, S, teach

from mneme_core import ConfigError, Mneme
from mneme_core.meaning import Embeddings
from mneme_core.memory import index
from mneme_core.plugins import make_manager


def with_centroids():
    manager = make_manager(load_entry_points=False, environ={})
    manager.register(mneme_centroids, name="centroids")
    return manager


@pytest.fixture
def fake() -> Fake:
    return Fake()


@pytest.fixture
def m(db_path, clock, fake):
    found = Mneme(
        db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake"), plugins=with_centroids()
    )
    try:
        yield found
    finally:
        found.close()


def kept(db_path) -> dict[int, tuple[int, bytes]]:
    with raw_connection(db_path) as conn:
        return {t: (n, total) for t, n, total in conn.execute("select term_id, notes, total from centroids")}


def recomputed(db_path) -> dict[int, tuple[int, np.ndarray]]:
    """Every term's (notes, mean vector), from the live notes' stored vectors and their terms."""
    sums: dict[int, list] = defaultdict(list)
    with raw_connection(db_path) as conn:
        rows = conn.execute(
            "select n.subject_id, n.text, n.key, n.gloss, v.vector from notes n "
            "join vectors v on v.note_id = n.id where n.deleted_at is null and n.superseded_by is null"
        ).fetchall()
        for sid, text, key, gloss, blob in rows:
            for term in index.note_terms(text, key, gloss):
                (term_id,) = conn.execute(
                    "select id from terms where subject_id = ? and term = ?", (sid, term)
                ).fetchone()
                sums[term_id].append(np.frombuffer(blob, dtype="<f4").astype(np.float64))
    return {t: (len(vs), np.mean(vs, axis=0)) for t, vs in sums.items()}


def assert_exact(db_path) -> None:
    want = recomputed(db_path)
    have = kept(db_path)
    assert set(have) == set(want)
    for term_id, (notes, total) in have.items():
        assert notes == want[term_id][0]
        mean = np.frombuffer(total, dtype="<i8") / (learning.SCALE * notes)
        assert np.allclose(mean, want[term_id][1], atol=1e-6)


def learned(db_path, subject: str = S) -> int:
    with raw_connection(db_path) as conn:
        row = conn.execute(
            "select c.learned from centroid_sets c join subjects s on s.id = c.subject_id "
            "where s.subject = ?",
            (subject,),
        ).fetchone()
    return row[0] if row else 0


def test_centroids_are_the_means_of_the_notes_holding_each_term(m: Mneme, db_path):
    teach(m, fillers=10)
    m.embed_pending()

    assert learned(db_path) == 14
    assert_exact(db_path)


def test_a_note_that_leaves_is_unlearned_bit_for_bit(m: Mneme, db_path):
    teach(m, fillers=10)
    m.embed_pending()
    before = kept(db_path)

    extra = m.remember(S, "the kitten chased a tabby cat around the garden")
    keyed = m.remember(S, "lives in Portland", key="user.city")
    m.embed_pending()
    assert kept(db_path) != before and learned(db_path) == 16

    m.forget(S, id=extra.id)
    m.remember(S, "lives in Seattle", key="user.city")  # replaces the Portland note
    m.forget(S, key="user.city")
    m.embed_pending()

    assert keyed is not None
    assert kept(db_path) == before
    assert learned(db_path) == 14
    assert_exact(db_path)


def test_notes_pruned_past_the_cap_are_unlearned(db_path, clock, fake):
    embed = Embeddings(fake, name="fake")
    off = {"lifecycle.enabled": False}  # the cap deletes (with the lifecycle, it archives: they stay live)
    with Mneme(
        db_path, space="test", clock=clock, embed=embed, max_notes=10, plugins=with_centroids(), config=off
    ) as m:
        for i in range(10):
            m.remember(S, f"walked the kitten past shop {i}")
            m.embed_pending()
        m.remember(S, "the kitten met a tabby cat")  # the 11th live note: the least worth keeping go
        m.embed_pending()
        live = len(m.notes(S))

    assert live < 11
    assert learned(db_path) == live
    assert_exact(db_path)


def test_erasing_a_person_removes_what_their_notes_taught(m: Mneme, db_path):
    teach(m, fillers=5)
    m.remember("discord:7", "has a tabby cat called Miso")
    m.embed_pending()
    assert learned(db_path, "discord:7") == 1

    m.erase(S)

    with raw_connection(db_path) as conn:
        owners = {row[0] for row in conn.execute("select distinct subject_id from centroids")}
        lessons = conn.execute("select count(*) from centroid_lessons").fetchone()[0]
        queued = conn.execute("select count(*) from centroid_queue").fetchone()[0]
        (other,) = conn.execute("select id from subjects where subject = 'discord:7'").fetchone()
    assert owners == {other} and lessons == 1 and queued == 0
    assert learned(db_path) == 0
    assert_exact(db_path)


def test_a_new_gloss_moves_the_note_to_its_new_words(m: Mneme, db_path):
    m.remember(S, CAT_NOTE)
    m.embed_pending()
    m.remember(S, CAT_NOTE, gloss="has a cat called Niangao")  # the same note, glossed: indexed again
    m.embed_pending()

    assert_exact(db_path)
    with raw_connection(db_path) as conn:
        (cat,) = conn.execute("select id from terms where term = 'cat'").fetchone()
    assert kept(db_path)[cat][0] == 1


def test_a_file_with_vectors_already_is_learned_when_the_plugin_comes(db_path, clock, fake):
    with Mneme(db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake")) as plain:
        teach(plain, fillers=5)
        plain.embed_pending()
    with Mneme(
        db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake"), plugins=with_centroids()
    ) as m:
        assert learned(db_path) == 0
        m.embed_pending()
    assert learned(db_path) == 9
    assert_exact(db_path)


def test_a_new_tokenizer_starts_the_centroids_over_from_the_stored_vectors(db_path, clock, fake):
    embed = Embeddings(fake, name="fake")
    with Mneme(db_path, space="test", clock=clock, embed=embed, plugins=with_centroids()) as m:
        teach(m, fillers=5)
        m.embed_pending()
    with raw_connection(db_path) as conn:
        conn.execute("update meta set value = 'an older tokenizer' where key = 'terms_version'")
    with Mneme(db_path, space="test", clock=clock, embed=embed, plugins=with_centroids()) as m:
        m.reindex_pending()  # the term index is rebuilt person by person, with new ids
        m.embed_pending()  # the centroids follow it
        assert m.report()["meaning"]["embedded"] == 0  # from the stored vectors: nothing embedded again

    assert learned(db_path) == 9
    assert_exact(db_path)


def test_settings_are_checked_naming_the_key(db_path, clock, fake, caplog):
    config = {"plugins": {"centroids": {"min_notes": 0}}}
    said = "plugins.centroids.min_notes is a whole number from 1 to 1000000, not 0"
    embed = Embeddings(fake, name="fake")
    with pytest.raises(ConfigError, match=said):
        Mneme(db_path, space="test", clock=clock, config=config, embed=embed, plugins=with_centroids())
    Mneme(db_path, space="test", clock=clock, config=config).close()  # without the plugin: kept as given
    with Mneme(db_path, space="test", clock=clock, embed=embed, plugins=with_centroids()) as m:
        assert m.tiers.names == ["embeddings"]  # the stored value is refused when the tier is made
        assert m.config.check().refused == {"plugins.centroids.min_notes": said}
    assert said in caplog.text


def test_a_companion_without_an_embedder_has_no_centroids_tier_and_its_writes_skip_the_queue(
    db_path, clock, fake
):
    with Mneme(db_path, space="test", clock=clock, plugins=with_centroids()) as plain:
        assert "centroids" not in plain.tiers.names
        plain.remember(S, "went hiking")
    with Mneme(
        db_path, space="test", clock=clock, embed=Embeddings(fake, name="fake"), plugins=with_centroids()
    ) as m:
        assert "centroids" in m.tiers.names
        m.remember(S, "养了一只叫年糕的猫")
        m.embed_pending()
        with raw_connection(db_path) as conn:
            taught = conn.execute("select count(*) from centroid_lessons").fetchone()[0]
        assert taught == 2  # the note written without an embedder is learned once it has a vector
