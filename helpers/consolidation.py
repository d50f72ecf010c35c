"""Stage 7 — consolidation (notebook 07): merge a session's notes into global memory, inventing nothing, losing nothing.

After a session ends, its notes join global memory in three steps:

1. `deterministic_merge`: rules only. Notes already merged are skipped (so a rerun changes
   nothing); session-scoped notes ("this time") and notes the write gate now refuses are
   dropped, with a reason; exact and near duplicates are folded: the newest copy stays active
   and the older one is kept as superseded. The model never sees a dropped note, so it
   cannot drop one either.
2. `propose_plan`: a consolidator agent (structured output, `ConsolidationPlan`) reads the new
   notes and the global notes they touch, and decides per note id: keep, merge (paraphrases
   become one note written in their words), supersede (a newer note replaces it) or conflict.
3. `apply_plan`: the plan is checked before anything changes. Every note written by the model
   names existing source ids, uses only its sources' words and numbers, and passes the write
   gate again; every input id gets exactly one decision. Recency, not the model, decides
   which side of a conflict wins; a same-day or model-flagged conflict goes to the user, and
   a "conflict" between notes on different subjects is overruled (both stay).

`merge_notes` runs all three, then the attribute rules (`helpers.attributes`: a changed home
city, diet, seat... retires the older value by recency). Without a model, or if the model fails
in any way (invalid JSON, a schema violation, an invented or dropped note, a timeout, an
exception), it returns `rules_only_merge`: step 1 and the attribute rules, nothing else, and
says why in `report.fallback_reason`. Nothing is deleted: a note that loses stays in global
memory with status "superseded" and a `superseded_by` pointer, so the chain can be replayed.

The steps have a module each: `helpers.consolidation_claims` (what a note claims),
`helpers.consolidation_report` (the decisions), `helpers.consolidation_rules` (step 1),
`helpers.consolidation_plan` (steps 2 and 3); this module runs the whole pass and re-exports
their public names, so `from helpers.consolidation import ...` is the stage's one entry point.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import replace

from agents.models.interface import Model

from helpers.attributes import confirm_attribute_changes
from helpers.consolidation_claims import (FREQUENCY_WORDS, NEAR_DUPLICATE_THRESHOLD, carries, hedges,
                                          is_near_duplicate, normalize, related, similarity, unsupported_claims)
from helpers.consolidation_plan import (CONSOLIDATOR_INSTRUCTIONS, ConsolidationPlan, PlanDecision, PlanNote,
                                        apply_plan, consolidator_agent, propose_plan, render_for_model)
from helpers.consolidation_report import (Conflict, ConsolidationReport, MergedAChange, MergeDecision, Outcome,
                                          PlanRejected)
from helpers.consolidation_rules import deterministic_merge, notes_for_model, rules_only_merge, split_keywords
from helpers.state import Clock, MemoryNote, MemoryState
from helpers.write_policy import WritePolicy

# Seconds to wait for the model's plan. The embedded 1.5B model took 130-500 s for four notes
# on a busy 2-core machine; past the timeout the deterministic result is used.
DEFAULT_TIMEOUT = 300.0


async def merge_notes(global_notes: list[MemoryNote], session_notes: list[MemoryNote],
                      model: Model | str | None = None, *, clock: Clock,
                      timeout: float = DEFAULT_TIMEOUT, write_policy: WritePolicy | None = None,
                      recency: bool = True) -> tuple[list[MemoryNote], ConsolidationReport]:
    """Pure form: (new global notes, report). The inputs are not modified, so a store can commit
    the result atomically. Without a model only the deterministic pass runs, and the model is not
    asked when no two of the notes it would see share a subject (nothing to merge or resolve)."""
    notes, report = deterministic_merge(global_notes, session_notes, clock=clock, write_policy=write_policy)
    # The model sees the fold; without it (none given, nothing for it to do, or any failure) the
    # result is exactly the rules-only merge, attribute rules included.
    rules_only = confirm_attribute_changes(copy.deepcopy(notes), replace(
        report, decisions=dict(report.decisions), needs_user=list(report.needs_user)), clock=clock, recency=recency)
    inputs = notes_for_model(notes, report, clock=clock)
    if model is None or not inputs:
        return rules_only
    if not any(related(a, b) for i, a in enumerate(inputs) for b in inputs[i + 1:]):
        why = "one new note, nothing related" if len(inputs) == 1 else "no two notes share a subject"
        return rules_only[0], replace(rules_only[1], model_skipped=why)  # nothing to merge or resolve
    try:
        plan = await _bounded(propose_plan(inputs, model), timeout)
    except TimeoutError:
        reason = f"timeout: no plan within {timeout:g} s"
    except Exception as error:  # noqa: BLE001 - whatever the model does, fall back and lose nothing
        reason = f"model error: {type(error).__name__}: {_short(str(error))}"
    else:
        try:
            # The plan, then the attribute rules for a changed home city, diet, seat... it left alone.
            merged = apply_plan(notes, report, plan, inputs, write_policy=write_policy, recency=recency)
            return confirm_attribute_changes(*merged, clock=clock, recency=recency)
        except PlanRejected as error:  # MergedAChange too: the rules retire the older value
            reason = f"plan rejected: {error}"
    return rules_only[0], replace(rules_only[1], fallback_reason=reason)  # exactly the rules-only merge


async def _bounded(coro, timeout: float):
    """Await `coro` for at most `timeout` seconds, then cancel it and return at once.

    Unlike `asyncio.wait_for`, this does not wait for the cancelled call to finish: a model
    that ignores the cancellation is abandoned (its result and errors are discarded) instead
    of holding up the consolidation and every turn queued behind it.
    """
    task = asyncio.ensure_future(coro)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if task in done:
        return task.result()
    task.cancel()
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # retrieved: no warning
    raise TimeoutError


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


async def consolidate(state: MemoryState, model: Model | str | None = None, *, clock: Clock | None = None,
                      timeout: float = DEFAULT_TIMEOUT, write_policy: WritePolicy | None = None,
                      recency: bool = True) -> ConsolidationReport:
    """Merge `state.session_notes` into `state.global_notes`; clear the merged session notes after.

    Every note that joins global memory passes `write_policy` (default: `state.write_policy`).

    The state changes only once the merge has succeeded (a model failure is a success: it falls
    back). Session notes written after the call (it may run in the background) stay for next time.
    """
    return await _consolidate(state, list(state.session_notes), model, clock, timeout,
                              write_policy=write_policy, recency=recency)


def consolidate_in_background(state: MemoryState, model: Model | str | None = None, *,
                              clock: Clock | None = None, timeout: float = DEFAULT_TIMEOUT) -> asyncio.Task:
    """Start `consolidate` on the running event loop and return at once; await the task for the report.

    The session notes are taken now, so notes the conversation writes meanwhile are not cleared.
    """
    session = list(state.session_notes)
    return asyncio.get_running_loop().create_task(_consolidate(state, session, model, clock, timeout),
                                                  name="consolidation")


async def _consolidate(state: MemoryState, session: list[MemoryNote], model: Model | str | None,
                       clock: Clock | None, timeout: float, *,
                       write_policy: WritePolicy | None = None, recency: bool = True) -> ConsolidationReport:
    clock = clock or state.clock
    write_policy = write_policy or state.write_policy
    snapshot = copy.deepcopy(state.global_notes)  # what the run sees; the live state may move on
    session = copy.deepcopy(session)
    notes, report = await merge_notes(snapshot, session, model, clock=clock, timeout=timeout,
                                      write_policy=write_policy, recency=recency)
    # Back on the live state, with no await below: nothing can change it while we merge.
    moved = _moved_on(state, snapshot, session, notes)
    if moved:
        # What changed meanwhile wins: re-run the rules on the memory as it is now.
        still_there = {n.id: n for n in state.session_notes}
        session = [still_there[n.id] for n in session if n.id in still_there]
        notes, report = rules_only_merge(state.global_notes, session, clock=clock,
                                         write_policy=write_policy, recency=recency)
        report = replace(report, fallback_reason=f"memory changed during consolidation ({moved}); "
                                                 "the rules re-ran on the current memory")
        state.global_notes = notes
    else:
        state.global_notes = _apply_changes(state.global_notes, snapshot, notes)
    consumed = {n.id for n in session}
    state.session_notes = [n for n in state.session_notes if n.id not in consumed]
    return report


def _moved_on(state: MemoryState, snapshot: list[MemoryNote], session: list[MemoryNote],
              result: list[MemoryNote]) -> str:
    """Did the live state change a note this run changed, or drop a session note it used?"""
    before = {n.id: n for n in snapshot}
    live = {n.id: n for n in state.global_notes}
    problems = [f"{i} {'deleted' if i not in live else 'edited'}" for i, n in
                ((n.id, n) for n in result if n.id in before and n != before[n.id])
                if live.get(i) != before[i]]
    live_session = {n.id: n for n in state.session_notes}
    problems += [f"session note {n.id} {'deleted' if n.id not in live_session else 'edited'}"
                 for n in session if live_session.get(n.id) != n]
    return ", ".join(problems)


def _apply_changes(live: list[MemoryNote], snapshot: list[MemoryNote],
                   result: list[MemoryNote]) -> list[MemoryNote]:
    """The live notes with this run's changes applied: notes written, edited or deleted
    meanwhile stay as they are now; notes the run changed (unchanged meanwhile) take its
    version; notes it created are added."""
    before = {n.id: n for n in snapshot}
    changed = {n.id: n for n in result if n.id not in before or n != before[n.id]}
    merged = [changed.pop(n.id) if n.id in changed and n.id in before else n for n in live]
    present = {n.id for n in merged}
    return merged + [n for n in changed.values() if n.id not in present and n.id not in before]


__all__ = [
    "CONSOLIDATOR_INSTRUCTIONS", "DEFAULT_TIMEOUT", "FREQUENCY_WORDS", "NEAR_DUPLICATE_THRESHOLD", "Conflict",
    "ConsolidationPlan", "ConsolidationReport", "MergeDecision", "MergedAChange", "Outcome", "PlanDecision",
    "PlanNote", "PlanRejected", "apply_plan", "carries", "consolidate", "consolidate_in_background", "consolidator_agent",
    "deterministic_merge", "hedges", "is_near_duplicate", "merge_notes", "normalize", "notes_for_model",
    "propose_plan", "related", "render_for_model", "rules_only_merge", "similarity", "split_keywords",
    "unsupported_claims",
]
