"""Stage 10 — retrieval (notebook 10): precision and recall at k on the labelled set in data/retrieval/.

    python -m helpers.retrieval_eval            # k = 5, the default search settings
    python -m helpers.retrieval_eval --k 3
    python -m helpers.retrieval_eval --held-out  # queries written after tuning (run once)

Each query is judged against every note of its user (relevant or not), so the set holds
queries x notes labelled pairs. The notes go into a fresh in-memory SQLite store and each query
runs through `UserMemory.search`, the same path the injection step takes.

precision@k: of the notes search returns (at most k), the share that are relevant. A query with
  nothing relevant scores 1 if search returns nothing (empty retrieval is right) and 0 otherwise.
recall@k: of the relevant notes, the share among those returned (queries with none are skipped).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers.paths import data_dir
from helpers.retrieval import SEARCH_LIMIT, THRESHOLD
from helpers.state import MemoryNote, fixed_clock
from helpers.store import MemoryStore

LABELLED_SET = "retrieval/labelled_set.json"
HELD_OUT_SET = "retrieval/held_out.json"  # written after tuning, run once: the honest number


@dataclass
class QueryResult:
    user: str
    query: str
    relevant: list[str]
    returned: list[str]

    @property
    def hits(self) -> int:
        return len(set(self.relevant) & set(self.returned))

    @property
    def precision(self) -> float:
        if not self.returned:
            return 0.0 if self.relevant else 1.0
        return self.hits / len(self.returned)

    @property
    def recall(self) -> float | None:
        return self.hits / len(self.relevant) if self.relevant else None


@dataclass
class RetrievalReport:
    k: int
    pairs: int  # labelled (query, note) pairs
    results: list[QueryResult]

    @property
    def precision(self) -> float:
        return sum(r.precision for r in self.results) / len(self.results)

    @property
    def recall(self) -> float:
        recalls = [r.recall for r in self.results if r.recall is not None]
        return sum(recalls) / len(recalls)

    def __str__(self) -> str:
        lines = [f"{'P':>4} {'R':>4}  query -> returned (relevant)"]
        for r in self.results:
            recall = "   -" if r.recall is None else f"{r.recall:4.2f}"
            lines.append(f"{r.precision:4.2f} {recall}  {r.query} -> {r.returned} ({r.relevant})")
        lines.append(
            f"{len(self.results)} queries, {self.pairs} labelled pairs: "
            f"precision@{self.k} {self.precision:.3f}, recall@{self.k} {self.recall:.3f}"
        )
        return "\n".join(lines)


def load_labelled_set(path: Path | None = None) -> dict[str, Any]:
    """A labelled set; one that names `notes_from` borrows that set's clock and users' notes."""
    path = path or data_dir() / LABELLED_SET
    labelled = json.loads(path.read_text(encoding="utf-8"))
    if "notes_from" in labelled:
        source = load_labelled_set(path.parent / labelled["notes_from"])
        notes = {(u["tenant_id"], u["user_id"]): u["notes"] for u in source["users"]}
        labelled["now"] = source["now"]
        for user in labelled["users"]:
            user["notes"] = notes[(user["tenant_id"], user["user_id"])]
    return labelled


def evaluate(
    k: int = 5,
    *,
    threshold: float = THRESHOLD,
    labelled: dict[str, Any] | None = None,
    store: Any = None,
) -> RetrievalReport:
    """`store`: an empty store whose clock reads the set's "now" (default: a fresh SQLite one)."""
    labelled = labelled or load_labelled_set()
    results, pairs = [], 0
    with store or MemoryStore.open(clock=fixed_clock(labelled["now"])) as store:
        for user in labelled["users"]:
            memory = store.for_user(user["tenant_id"], user["user_id"])
            notes = [MemoryNote(source_ref=f"labelled:{n['id']}", **n) for n in user["notes"]]
            memory.add_notes(notes)
            for q in user["queries"]:
                found = memory.search(q["query"], limit=min(k, SEARCH_LIMIT), threshold=threshold)
                results.append(
                    QueryResult(
                        user["user_id"], q["query"], q["relevant"], [s.note.id for s in found]
                    )
                )
                pairs += len(notes)
    return RetrievalReport(k, pairs, results)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--threshold", type=float, default=THRESHOLD)
    parser.add_argument("--held-out", action="store_true", help=f"use {HELD_OUT_SET} instead")
    args = parser.parse_args()
    labelled = load_labelled_set(data_dir() / HELD_OUT_SET) if args.held_out else None
    print(evaluate(args.k, threshold=args.threshold, labelled=labelled))


if __name__ == "__main__":
    main()
