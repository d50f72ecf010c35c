"""helpers.retrieval and SQLite full-text search: in step with notes, erased with them, ranked."""

import sqlite3
from datetime import timedelta

import pytest

from helpers.retrieval import (
    LEFT_OUT_BELOW_THRESHOLD,
    LEFT_OUT_BEYOND_LIMIT,
    LEFT_OUT_DUPLICATE,
    WEIGHTS,
    RankWeights,
    bm25,
    latest_user_message,
    query_terms,
    rank,
    recency,
    render_retrieved_line,
    should_retrieve,
)
from helpers.state import fixed_clock, parse_time
from helpers.store import MemoryStore, _INSERT_NOTE
from helpers.store_schema import MIGRATIONS, owner_token
from helpers.store_base import note_row
from tests.conftest import NOW, note


def texts(scored):
    return [s.note.text for s in scored]


def index_size(store):
    """Rows the full-text index would find for this word in anyone's notes."""
    return store._conn.execute("SELECT count(*) FROM notes_search_key").fetchone()[0]


# -- the index follows the notes table, whoever writes it -----------------------------------------


def test_search_finds_words_in_any_form_and_only_live_notes(store):
    u = store.for_user("acme", "maya")
    u.add_notes(
        [
            note("Prefers aisle seats on long flights", keywords=["seat"], source_ref="s1#turn2"),
            note("Vegetarian meals only", "2026-01-01"),
            note("Old promo code for flights", expires_at="2026-05-02"),
            note("Lives in Brisbane", "2025-11-02", id="mem_b"),
        ]
    )
    u.commit_consolidation("s2", [note("Lives in Sydney", "2026-05-20", supersedes="mem_b")])
    [hit] = u.search("Which seat on my flight?")
    assert hit.note.text == "Prefers aisle seats on long flights" and hit.source_ref == "s1#turn2"
    assert texts(u.search("where do I live?")) == ["Lives in Sydney"]  # superseded Brisbane is out
    assert u.search("promo code") == []  # expired
    assert u.search("") == [] and u.search("the and of") == []


def test_upserts_edits_and_imports_keep_the_index_in_step(store):
    u = store.for_user("acme", "maya")
    u.add_notes([note("Prefers aisle seats", id="mem_1")])
    u.add_notes([note("Prefers vegan meals", id="mem_1")])  # same id: replaces
    assert texts(u.search("vegan")) == ["Prefers vegan meals"] and u.search("aisle") == []
    store._conn.execute("UPDATE notes SET text = 'Prefers trains' WHERE id = 'mem_1'")  # any writer
    assert texts(u.search("train")) == ["Prefers trains"] and u.search("vegan") == []
    other = store.for_user("globex", "sam")
    other.import_json(u.export_json())
    u.import_json(other.export_json())  # replaces maya's notes with the same ones
    assert texts(u.search("train")) == ["Prefers trains"] == texts(other.search("trains"))
    assert index_size(store) == 2


def test_kinds_filter_the_recall(store):
    u = store.for_user("acme", "maya")
    u.add_notes(
        [
            note("Hotel near the station", kind="preference"),
            note("Hotel in Berlin booked", kind="event"),
        ]
    )
    assert texts(u.search("hotel", kinds=["event"])) == ["Hotel in Berlin booked"]
    assert len(u.search("hotel")) == 2 and u.search("hotel", kinds=[]) == []


def test_query_syntax_in_the_message_is_just_words(store):
    u = store.for_user("acme", "maya")
    u.add_notes([note("Prefers aisle seats")])
    for message in [
        'seat" OR owner : *',
        "NEAR(seat aisle)",
        "seat*",
        "{text}: aisle",
        "-aisle ^seat",
    ]:
        assert texts(u.search(message)) == ["Prefers aisle seats"], message
    assert all(t.isalnum() for t in query_terms('a "b" OR c* : {d} (e) NEAR f-g ^h'))


def test_the_owner_token_is_the_same_in_python_and_sql(store):
    for tenant, user in [("acme", "maya"), ("ümlaut", "x y"), ("a'b", "%_"), ("t", "userx1")]:
        sql = store._conn.execute(
            "SELECT 'o' || hex(?) || 'x' || hex(?) || 'x'", (tenant, user)
        ).fetchone()[0]
        assert sql == owner_token(tenant, user)
    assert owner_token("ab", "c") != owner_token("a", "bc")


def test_a_store_from_before_search_is_indexed_when_migrated(tmp_path):
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in MIGRATIONS[0] + MIGRATIONS[1]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 2")
    conn.execute(_INSERT_NOTE, note_row("acme", "maya", note("Prefers aisle seats"), None, None))
    conn.close()
    with MemoryStore.open(path, clock=fixed_clock(NOW)) as s:
        assert texts(s.for_user("acme", "maya").search("seat")) == ["Prefers aisle seats"]


def test_erased_words_are_gone_from_the_index_and_the_file(tmp_path):
    path = tmp_path / "m.db"
    secret = "Takes zolpidrexa before overnight flights"
    on_disk = lambda: b"".join(p.read_bytes() for p in tmp_path.iterdir()).lower()  # noqa: E731
    with MemoryStore.open(path, clock=fixed_clock(NOW)) as s:
        u = s.for_user("acme", "maya")
        u.add_notes([note(secret, keywords=["medication"]), note("Prefers aisle seats")])
        u.add_notes(
            [note(f"Filler note {i} about hotels") for i in range(50)]
        )  # several index segments
        s._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        assert b"zolpidrexa" in on_disk()  # the scan can see the word while it is stored
        assert texts(u.search("zolpidrexa")) == [secret]
        assert u.forget(matching="zolpidrexa", reason="health data") == 1
        assert u.search("zolpidrexa") == [] and u.search("medication") == []
        assert b"zolpidrexa" not in on_disk() and b"medication" not in on_disk()
        vocab = s._conn.execute(
            "CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, notes_search, 'row')"
        )
        assert vocab is not None
        terms = {r[0] for r in s._conn.execute("SELECT term FROM temp.v")}
        assert "zolpidrexa" not in terms and "aisl" in terms
    assert b"zolpidrexa" not in on_disk()


# -- ranking ---------------------------------------------------------------------------------------


def test_weights_live_in_one_place_and_must_sum_to_one():
    assert (WEIGHTS.relevance, WEIGHTS.recency, WEIGHTS.confidence) == (0.6, 0.2, 0.2)
    with pytest.raises(ValueError):
        RankWeights(0.5, 0.5, 0.5)
    with pytest.raises(ValueError):
        RankWeights(1.2, -0.2, 0.0)


def test_score_parts_add_up_and_are_explained():
    now = parse_time(NOW)
    notes = [
        note("Prefers aisle seats on flights", "2026-06-01", confidence=0.5),
        note("Likes a window seat", "2025-06-01"),
    ]
    ranking = rank(notes, "which seat on the flight", now, total_notes=10, threshold=0.0)
    for s in ranking.kept:
        assert s.score == pytest.approx(0.6 * s.relevance + 0.2 * s.recency + 0.2 * s.confidence)
        assert s.explain().startswith(f"{s.score:.2f} = 0.6×relevance")
    best = ranking.kept[0]
    assert best.note.text == "Prefers aisle seats on flights" and best.relevance == 1.0
    assert recency(NOW, now) == 1.0
    assert recency("2025-12-03", now) == pytest.approx(0.5, abs=0.01)  # one half-life


def test_threshold_limit_and_duplicates_drop_with_a_reason():
    now = parse_time(NOW)
    notes = [
        note("Prefers aisle seats", "2026-05-01"),
        note("prefers AISLE seats!", "2026-05-02"),
        note("Aisle seat near the front", "2026-05-01"),
        note("Seats with extra legroom", "2024-01-01", confidence=0.1),
    ]
    ranking = rank(notes, "aisle seat", now, total_notes=4, limit=1, threshold=0.7)
    assert texts(ranking.kept) == ["prefers AISLE seats!"]
    reasons = {s.note.text: why for s, why in ranking.dropped}
    assert reasons["Prefers aisle seats"] == LEFT_OUT_DUPLICATE
    assert reasons["Aisle seat near the front"] == LEFT_OUT_BEYOND_LIMIT
    assert reasons["Seats with extra legroom"] == LEFT_OUT_BELOW_THRESHOLD


def test_bm25_prefers_rare_words_of_this_user():
    notes = [note("Hotel with a gym"), note("Hotel near the beach"), note("Hotel in the old town")]
    scores = bm25({"hotel": 1.0, "gym": 1.0}, notes, total_notes=3)
    assert scores[0] > scores[1] == scores[2] > 0


def test_small_memories_take_the_simple_path():
    assert not should_retrieve([note("a")] * 30, tokens=800)
    assert should_retrieve([note("a")] * 31, tokens=10)
    assert should_retrieve([note("a")], tokens=801)


def test_retrieved_lines_carry_their_source_and_the_message_is_found():
    line = render_retrieved_line(note("Prefers aisle seats", source_ref="s1#turn2"))
    assert line == "- [2026-05-01] Prefers aisle seats [source: s1#turn2]"
    items = [
        {"role": "user", "content": "old"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": [{"type": "input_text", "text": "new one"}]},
    ]
    assert latest_user_message(items) == "new one" and latest_user_message([]) == ""


def test_recency_uses_the_store_clock():
    clock = fixed_clock(NOW)
    later = lambda: clock() + timedelta(days=360)  # noqa: E731
    with MemoryStore.open(clock=later) as s:
        u = s.for_user("acme", "maya")
        u.add_notes([note("Prefers aisle seats", "2026-06-01")])
        [hit] = u.search("seat", threshold=0.0)
        assert hit.recency == pytest.approx(0.25, abs=0.01)


# -- the labelled set ------------------------------------------------------------------------------


def test_precision_at_5_on_the_labelled_set_meets_the_target():
    from helpers.retrieval_eval import evaluate

    report = evaluate(5)
    assert report.pairs >= 200 and len(report.results) >= 30
    assert report.precision >= 0.8, str(report)
    assert report.recall >= 0.7, str(report)
    # Empty retrieval is right when nothing is relevant: those queries inject nothing.
    assert all(r.returned == [] for r in report.results if not r.relevant)


def test_the_held_out_queries_written_after_tuning_also_meet_it():
    from helpers.paths import data_dir
    from helpers.retrieval_eval import HELD_OUT_SET, evaluate, load_labelled_set

    report = evaluate(5, labelled=load_labelled_set(data_dir() / HELD_OUT_SET))
    assert report.pairs >= 200 and report.precision >= 0.8, str(report)
