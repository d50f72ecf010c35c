"""Stage 7 — consolidation (notebook 07), steps 2 and 3: the model's plan, checked before it is applied.

`propose_plan` asks a consolidator agent (structured output, `ConsolidationPlan`) to decide per
note id: keep, merge (paraphrases become one note written in their words), supersede or conflict.
`apply_plan` checks the plan first: every written note names existing source ids, uses only its
sources' words and numbers (`helpers.consolidation_claims.unsupported_claims`) and passes the
write policy again; every input id gets exactly one decision. A broken plan raises
`PlanRejected` and nothing of it is applied.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Literal

from agents import Agent, ModelSettings, Runner
from agents.models.interface import Model
from pydantic import BaseModel

from helpers.attributes import attributes_of, others_in, qualifiers, unshared_facts
from helpers.caseless import caseless
from helpers.consolidation_claims import dropped_words, is_near_duplicate, mentions, related, unsupported_claims
from helpers.consolidation_report import (ConsolidationReport, MergedAChange, MergeDecision, PlanRejected,
                                          ask_user, resolve_conflict, supersede)
from helpers.consolidation_rules import policy_or_default
from helpers.state import MemoryNote, note_id, parse_time
from helpers.text import content_words, stem, topic_words
from helpers.write_policy import WritePolicy


class PlanDecision(BaseModel):
    id: str
    action: Literal["keep", "merge", "supersede", "conflict"]
    other_id: str  # the newer note (supersede) or the contradicting note (conflict); "" otherwise
    reason: str


class PlanNote(BaseModel):
    text: str
    keywords: list[str]
    kind: Literal["fact", "preference", "event", "procedure"]
    source_ids: list[str]


class ConsolidationPlan(BaseModel):
    """The consolidator's structured output. Decisions first: the model decides, then writes."""

    decisions: list[PlanDecision]
    notes: list[PlanNote]


CONSOLIDATOR_INSTRUCTIONS = """\
You tidy one user's memory notes. Each input line is: id | date | text.
Return one decision for every id, in input order:
- "keep": the note stays as it is. This is the usual answer.
- "merge": two or more notes say the same thing in other words. Mark each of them "merge" and
  write ONE note for them in "notes", reusing only their words, with all their ids in "source_ids".
- "supersede": a newer note replaces this one (for example a new home city).
  "other_id" is the newer note's id.
- "conflict": the note contradicts another note and the dates do not tell which is true.
  "other_id" is that note's id.
Never add a fact, word or number that is not in the notes. "other_id" is "" for keep and merge.
"reason" is at most five words. "notes" is [] unless something merges.

Example input:
n1 | 2026-01-05 | Lives in Perth
n2 | 2026-03-10 | Prefers window seats
n3 | 2026-06-01 | Moved to Darwin
n4 | 2026-06-01 | Likes a seat by the window
Example output:
{"decisions": [{"id": "n1", "action": "supersede", "other_id": "n3", "reason": "moved city"},
{"id": "n2", "action": "merge", "other_id": "", "reason": "same preference"},
{"id": "n3", "action": "keep", "other_id": "", "reason": "current home"},
{"id": "n4", "action": "merge", "other_id": "", "reason": "same preference"}],
"notes": [{"text": "Prefers window seats", "keywords": ["seat"], "kind": "preference", "source_ids": ["n2", "n4"]}]}"""


def consolidator_agent(model: Model | str, *, max_tokens: int | None = None) -> Agent:
    return Agent(name="consolidator", instructions=CONSOLIDATOR_INSTRUCTIONS, output_type=ConsolidationPlan,
                 model=model, model_settings=ModelSettings(temperature=0.0, max_tokens=max_tokens))


def render_for_model(inputs: list[MemoryNote]) -> str:
    # The count helps a small model give a decision for every note.
    lines = [f"{n.id} | {n.observed_at} | {n.text}" for n in inputs]
    return "\n".join([f"{len(inputs)} notes, so {len(inputs)} decisions:", *lines])


async def propose_plan(inputs: list[MemoryNote], model: Model | str) -> ConsolidationPlan:
    """Ask the consolidator agent for a plan; the SDK validates the JSON against the schema."""
    # Room for one decision per note plus a merged note or two; a cut-off plan is invalid JSON.
    agent = consolidator_agent(model, max_tokens=128 + 96 * len(inputs))
    result = await Runner.run(agent, render_for_model(inputs), max_turns=1)
    return result.final_output_as(ConsolidationPlan, raise_if_incorrect_type=True)


# ---- step 3: check the plan, then apply it ---------------------------------------------------

def apply_plan(notes: list[MemoryNote], report: ConsolidationReport, plan: ConsolidationPlan,
               inputs: list[MemoryNote], *, write_policy: WritePolicy | None = None,
               recency: bool = True) -> tuple[list[MemoryNote], ConsolidationReport]:
    """Apply the model's plan to the deterministic result (`inputs`: the notes the model saw).

    A broken plan raises PlanRejected and nothing of it is applied: an unknown id, a missing or
    doubled decision, a written note that invents (see `unsupported_claims`), fails the write
    policy (`write_policy`, default DEFAULT_WRITE_POLICY), or merges a note it also
    supersedes. A written note's source_ids are what it merged, even where the model said "keep";
    a written note that only restates its one source changes nothing. Decisions the rules
    overrule leave their notes as they are (see report.overruled): a "merge" in no written note,
    a source the written note says nothing about (it would vanish into it), a supersede or
    conflict between notes on different subjects.
    """
    shown = {n.id: n for n in inputs}
    decided = {}
    for d in plan.decisions:
        if d.id not in shown:
            raise PlanRejected(f"decision for unknown note {d.id!r}")
        if d.id in decided:
            raise PlanRejected(f"two decisions for note {d.id}")
        if d.action in ("supersede", "conflict") and (d.other_id not in shown or d.other_id == d.id):
            raise PlanRejected(f"{d.action} of {d.id} names no other shown note ({d.other_id!r})")
        decided[d.id] = d
    missing = sorted(set(shown) - set(decided))
    if missing:
        raise PlanRejected(f"dropped note(s) with no decision: {', '.join(missing)}")

    notes = copy.deepcopy(notes)
    by_id = {n.id: n for n in notes}
    report = replace(report, decisions=dict(report.decisions), created=[], needs_user=list(report.needs_user),
                     overruled=[],
                     model_used=True, fallback_reason=None)
    merged_into: dict[str, str] = {}
    restated: set[str] = set()
    left_out: set[str] = set()
    new_notes = []
    for written in plan.notes:
        # A source the written note says nothing about would vanish into it: it stays as it is.
        unrelated = [i for i in written.source_ids if i in shown and not mentions(written.text, shown[i])]
        source_ids = [i for i in written.source_ids if i not in unrelated]
        if source_ids:  # checked against every source it names first: a recombination is refused
            _checked_note(written, [by_id[i] for i in source_ids if i in shown], source_ids,
                          policy_or_default(write_policy))
        # A source with a fact the written note drops ("Melbourne" merged into "Prefers aisle
        # seats") would lose it: that source stays as it is, and so does the note if none is left.
        losing = {i: dropped_words(written.text, shown[i].text) for i in source_ids if i in shown}
        losing = {i: words for i, words in losing.items() if words}
        for i, words in losing.items():
            report.overruled.append(f"merge {shown[i].text!r} into {written.text!r}: the written note "
                                    f"drops {', '.join(sorted(words))}, so kept as it is")
        left_out.update(losing)
        source_ids = [i for i in source_ids if i not in losing]
        if not source_ids and losing:
            left_out.update(unrelated)
            continue
        if not source_ids:  # it matches none of its sources: an invention, or nothing at all
            problems = unsupported_claims(written.text, [shown[i].text for i in unrelated])
            raise PlanRejected(f"invented: {written.text!r}: "
                               f"{'; '.join(problems) or 'it says nothing of its sources'}")
        for i in unrelated:
            report.overruled.append(f"merge {shown[i].text!r} into {written.text!r}: "
                                    "the written note says nothing of it, so kept as it is")
        left_out.update(unrelated)
        only = shown.get(source_ids[0]) if len(source_ids) == 1 else None
        if only is not None and is_near_duplicate(written.text, only.text):
            restated.add(only.id)  # the model copied a note out: nothing merged, nothing to check
            continue
        new = _checked_note(written, [by_id[i] for i in source_ids if i in shown], source_ids,
                            policy_or_default(write_policy))
        for source_id in source_ids:
            if source_id in merged_into:
                raise PlanRejected(f"note {source_id} is a source of two written notes")
            if decided[source_id].action not in ("keep", "merge"):
                raise PlanRejected(f"note {source_id} is both merged and {decided[source_id].action}")
            merged_into[source_id] = new.id
        new_notes.append(new)
    for i, d in decided.items():
        if d.action == "merge" and i not in merged_into.keys() | restated | left_out:
            report.overruled.append(f"merge {shown[i].text!r}: in no written note, so kept as it is")

    for new in new_notes:  # a written note identical to a source keeps that source's id
        if new.id in by_id:
            existing = by_id[new.id]
            if existing.status != "active" and new.id not in merged_into:
                # Its sources would be retired into a note that is itself retired: all of them lost.
                raise PlanRejected(f"written note {new.text!r} is note {new.id}, which is {existing.status}: "
                                   "it would revive it, or retire its sources into it")
            continue
        notes.append(new)
        by_id[new.id] = new
        report.created.append(new.id)
    for source_id, new_id in merged_into.items():
        if source_id != new_id:
            supersede(by_id[source_id], by_id[new_id])
            report.decisions[source_id] = MergeDecision(source_id, "merged", decided[source_id].reason, new_id)
    for d in decided.values():
        if d.action not in ("supersede", "conflict"):
            continue
        note, other = by_id[d.id], by_id[merged_into.get(d.other_id, d.other_id)]
        if related(note, other) and d.action == "supersede" and (extra := _not_replaced(note, other)):
            # "Likes peanut butter cookies" shares a subject with "Is allergic to peanuts" but
            # replaces nothing of it: retiring it would lose the allergy. The user decides.
            ask_user(note, other, f"the model said one replaces the other, but they differ in {extra}; "
                      f"{d.reason}", report)
        elif related(note, other):
            resolve_conflict(note, other, d.action, d.reason, report, recency=recency)
        else:
            report.overruled.append(f"{d.action} {note.text!r} / {other.text!r}: different subjects, both kept")
    return notes, report



def _not_replaced(a: MemoryNote, b: MemoryNote) -> str:
    """Why the newer of two notes does not simply replace the older one (empty if it does): the
    older says something the newer does not (beyond how an attribute is stated and its value),
    they hold in different circumstances, or only one is about someone else."""
    older, newer = sorted((a, b), key=lambda n: parse_time(n.observed_at))
    lost = unshared_facts(older, newer)
    if lost:
        return ", ".join(sorted(lost))
    # The older note's attribute (diet, home city...) must be one the newer note gives a value
    # for: "Mi hermano come carne" says nothing the rules can read about the user's diet.
    unsaid = set(attributes_of(older.text)) - set(attributes_of(newer.text))
    if unsaid and not topic_words(caseless(older.text)) <= topic_words(caseless(newer.text)):
        return "what the newer note says of " + ", ".join(sorted(a.replace("_", " ") for a in unsaid))
    qa, qb = qualifiers(older.text), qualifiers(newer.text)
    if qa != qb:
        return "circumstances (" + ", ".join(sorted(qa ^ qb)) + ")"
    whom = [others_in(n.text) for n in (older, newer)]
    if bool(whom[0]) != bool(whom[1]):
        return "whom it is about (" + ", ".join(sorted(whom[0] | whom[1])) + ")"
    return ""


def _checked_note(written: PlanNote, sources: list[MemoryNote], source_ids: list[str],
                  write_policy: WritePolicy) -> MemoryNote:
    if not source_ids or len(sources) != len(source_ids) or len(set(source_ids)) != len(source_ids):
        raise PlanRejected(f"written note {written.text!r} names missing or unknown sources {source_ids}")
    if not written.text.strip():
        raise PlanRejected("written note with empty text")
    gate = write_policy.check(written.text, written.keywords, kind=written.kind)
    if not gate.allowed or gate.scope != "global":
        raise PlanRejected(f"written note {written.text!r} fails the write policy "
                           f"({gate.rule or 'session-scoped'})")
    problems = unsupported_claims(written.text, [s.text for s in sources])
    if problems:
        raise PlanRejected(f"invented: {written.text!r}: {'; '.join(problems)}")
    # A merge joins paraphrases: sources that give one attribute (seat, home city, diet...) two
    # values are a change or a conflict, and a note written from them could pair any value with
    # any circumstance ("aisle on flights, window on trains" from the opposite two notes).
    stated: dict[str, set[str]] = {}
    for source in sources:
        for attribute, value in attributes_of(source.text).items():
            stated.setdefault(attribute, set()).add(value)
    for attribute, values in stated.items():
        if len(values) > 1:
            raise MergedAChange(f"written note {written.text!r} merges notes that give "
                               f"{attribute.replace('_', ' ')} different values ({', '.join(sorted(values))}): "
                               "a change or a conflict, not a paraphrase")
    for attribute, value in attributes_of(written.text).items():
        if attribute in stated and value not in stated[attribute]:
            raise PlanRejected(f"invented: {written.text!r}: {attribute.replace('_', ' ')} {value!r} "
                               f"is not its sources' ({', '.join(sorted(stated[attribute]))})")
    # Keywords are tags, not claims: keep the grounded ones, else the sources' own.
    grounded = content_words(" ".join(s.text for s in sources))[0] | {k.lower() for s in sources for k in s.keywords}
    keywords = [k.lower() for k in written.keywords if stem(k.lower()) in grounded or k.lower() in grounded]
    keywords = list(dict.fromkeys(keywords or [k for s in sources for k in s.keywords]))[:3]
    newest = max(sources, key=lambda s: parse_time(s.observed_at))
    expiries = [s.expires_at for s in sources]
    return MemoryNote(
        text=written.text.strip(), observed_at=newest.observed_at, keywords=keywords, kind=written.kind,
        scope="global", source_ref=" + ".join(dict.fromkeys(s.source_ref for s in sources if s.source_ref)),
        expires_at=None if None in expiries else max((e for e in expiries if e is not None), key=parse_time),
        sensitivity=max((s.sensitivity for s in sources), key=_SENSITIVITY_ORDER.index),
        confidence=min(s.confidence for s in sources),
        id=note_id(written.text.strip(), newest.observed_at, "global"),
    )


_SENSITIVITY_ORDER = ["public", "internal", "personal", "restricted"]


__all__ = [
    "CONSOLIDATOR_INSTRUCTIONS", "ConsolidationPlan", "PlanDecision", "PlanNote", "apply_plan", "consolidator_agent",
    "propose_plan", "render_for_model",
]
