"""Mutation testing of the evals: do the checks catch a memory agent that is subtly broken?

A mutant is the correct configuration with ONE promise broken the way a developer might break
it: memory rendered but never sent, another tenant's notes loaded, the precedence rules
reversed, a one-off saved as a default, the tool output passed through whole... Each is built
by INJECTION: a different policy, write policy, instructions object, model wrapper or state is
handed to the runner (`RunOptions.wrap_model`, `RunOptions.rewire`, `policy=`); no module is
patched. The agent underneath is the adversary replay (each scenario's scripted model, which
passes every scenario with the real configuration), so a run needs no model and takes seconds.

    python -m helpers.evals --mutants        the kill matrix: which scenario kills which mutant

A mutant is killed when at least one must-check (or invariant) of some scenario fails on it.
A mutant no scenario kills is a promise the evals cannot see being broken; one that a single
scenario kills is a promise one wrong or flaky scenario can hide, so the tests ask for two.
Precedence is checked as behaviour: the replay's searches leave the remembered arguments out and
memory fills them in code (`helpers.arguments`, by `Policy.precedence`), as in the notebooks'
concierge; the checks read what was searched, so a mutant that changes the order, or the notes
the state holds, changes the search.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from agents.items import ModelResponse
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from helpers.evals.agents import _shown_notes
from helpers.evals.checks import evaluate
from helpers.evals.guards import RunOptions, options_without
from helpers.evals.runner import run_scenario
from helpers.evals.scenarios import Scenario, load_scenarios
from helpers.evals.suite import SuiteResult, run_suite
from helpers.hooks import MemoryInstructions
from helpers.policy import DEFAULT_POLICY, MEMORY_POLICY, PRECEDENCE, Policy
from helpers.state import MemoryNote
from helpers.tools import MEMORY_TOOL
from helpers.travel import as_given

# ---- broken instructions (handed to the agent in place of MemoryInstructions) -------------------


class _Instructions(MemoryInstructions):
    """Built from the session's own MemoryInstructions, so only the broken step differs."""

    def __init__(self, inner: MemoryInstructions):
        super().__init__(
            policy=inner.policy,
            base=inner.base,
            budget=inner.budget,
            counter=inner.counter,
            memory=inner.memory,
        )


class RenderedNotSent(_Instructions):
    """Renders memory (the inspector shows it), but hands the model the role text alone."""

    async def __call__(self, ctx, agent) -> str:
        await super().__call__(ctx, agent)
        return self.base


class FirstTurnOnly(_Instructions):
    """Memory in the prompt on the session's first turn; later turns get the role text alone."""

    async def __call__(self, ctx, agent) -> str:
        text = await super().__call__(ctx, agent)
        return text if ctx.context.turn_index <= 1 else self.base


class RenderedOnce(_Instructions):
    """Renders at the first model call and reuses that string: notes saved later never show."""

    cached: str | None = None

    async def __call__(self, ctx, agent) -> str:
        if self.cached is None:
            self.cached = await super().__call__(ctx, agent)
        return self.cached


class MemoryTwice(_Instructions):
    """Appends the memory sections again after the prompt (a second injection point)."""

    async def __call__(self, ctx, agent) -> str:
        text = await super().__call__(ctx, agent)
        last = self.last
        again = [v for k, v in (last.sections.items() if last else []) if k.endswith("_memory")]
        return "\n\n".join([text, *again])


class IgnoresExpiry(_Instructions):
    """Renders from copies of the notes with their expiry dropped: expired events look live."""

    async def __call__(self, ctx, agent) -> str:
        state = ctx.context
        kept = state.global_notes
        state.global_notes = [replace(n, expires_at=None) for n in kept]
        try:
            return await super().__call__(ctx, agent)
        finally:
            state.global_notes = kept


class OldestKept(_Instructions):
    """Keeps the first k notes of the store's oldest-first list: the newest facts fall off."""

    async def __call__(self, ctx, agent) -> str:
        state = ctx.context
        kept = state.global_notes
        k = self.policy.k if self.policy.k is not None else len(kept)
        state.global_notes = sorted(kept, key=lambda n: n.observed_at)[:k]
        try:
            return await super().__call__(ctx, agent)
        finally:
            state.global_notes = kept


class SupersededAsHistory(_Instructions):
    """Adds the notes consolidation retired, in a section of their own ("earlier notes, replaced
    since"): the renderer leaves them out of the memory lists, this puts them back beside them."""

    handle: Any = None  # the user's store handle (set by the rewire)

    async def __call__(self, ctx, agent) -> str:
        text = await super().__call__(ctx, agent)
        exported = json.loads(self.handle.export_json()) if self.handle is not None else {}
        old = [n for n in exported.get("notes", []) if n.get("status") == "superseded"]
        if not old:
            return text
        lines = "\n".join(f"- [{n['observed_at'][:10]}] {n['text']}" for n in old)
        return f"{text}\n\n<earlier_notes>\nEarlier notes, replaced since:\n{lines}\n</earlier_notes>"


def _instructions(kind: type[_Instructions]):
    def rewire(session: Any, store: Any, scenario: Scenario) -> None:
        session.agent = session.agent.clone(instructions=kind(session.agent.instructions))

    return rewire


# ---- broken loading (the state handed to the session) ------------------------------------------


def _load_same_user_id_everywhere(session: Any, store: Any, scenario: Scenario) -> None:
    """Loads the notes of every user with this user id, whichever tenant: a lookup by user id."""
    for n in scenario.neighbours:
        if n["user"] == scenario.user and n["tenant"] != scenario.tenant:
            other = store.for_user(n["tenant"], n["user"]).load_state()
            session.state.global_notes += other.global_notes


def _load_by_display_name(session: Any, store: Any, scenario: Scenario) -> None:
    """Loads the notes of every user in the tenant with this user's name: a lookup by name."""
    name = session.state.profile.get("name")
    for n in scenario.neighbours:
        same_user = (n["tenant"], n["user"]) == (scenario.tenant, scenario.user)
        if n["tenant"] == scenario.tenant and not same_user and name:
            other = store.for_user(n["tenant"], n["user"]).load_state()
            if other.profile.get("name") == name:
                session.state.global_notes += other.global_notes


def _load_superseded_too(session: Any, store: Any, scenario: Scenario) -> None:
    """Loads every stored note, superseded ones included, as if each were still current."""
    exported = json.loads(session.memory.export_json())
    loaded = {n.id for n in session.state.global_notes}
    for n in exported["notes"]:
        if n["id"] not in loaded and n.get("status") == "superseded":
            data = {k: v for k, v in n.items() if k not in ("session_id", "superseded_at")}
            note = MemoryNote.from_dict({**data, "status": "active", "superseded_by": None})
            session.state.global_notes.append(note)


def _superseded_beside_memory(session: Any, store: Any, scenario: Scenario) -> None:
    instructions = SupersededAsHistory(session.agent.instructions)
    instructions.handle = session.memory
    session.agent = session.agent.clone(instructions=instructions)


def _starter_memory_when_empty(session: Any, store: Any, scenario: Scenario) -> None:
    """A user with no notes gets the course's example notes as "starter memory": empty memory
    is filled with someone else's defaults instead of shown as empty."""
    if not session.state.global_notes:
        from helpers.state import load_example_state

        session.state.global_notes = list(load_example_state().global_notes)


def _notes_loaded_twice(session: Any, store: Any, scenario: Scenario) -> None:
    """Loads the long-term notes twice (a reload that appends instead of replacing): each note
    takes two of the top-k places, and the budget holds half the notes it should."""
    session.state.global_notes += [replace(n) for n in session.state.global_notes]


# What the first session of a run loaded, per store: a cache that is never invalidated. Keyed by
# the store object itself, weakly: an id() key is reused once a store is freed, and a later
# scenario's store then got an earlier one's notes (the kill matrix changed from run to run).
_FIRST_LOAD: weakref.WeakKeyDictionary[Any, list[MemoryNote]] = weakref.WeakKeyDictionary()


def _memory_cached_across_sessions(session: Any, store: Any, scenario: Scenario) -> None:
    """Caches each user's long-term notes at their first session and serves that copy ever
    after: what later sessions consolidated never reaches a prompt."""
    cached = _FIRST_LOAD.setdefault(store, list(session.state.global_notes))
    session.state.global_notes = list(cached)


def _resume_staged_by_session_id(session: Any, store: Any, scenario: Scenario) -> None:
    """Resumes the session's unfinished notes by session id alone, whoever staged them: the
    notes another user staged under the same id (two sessions opened in the same second) join
    this user's session."""
    for n in scenario.neighbours:
        if (n["tenant"], n["user"]) != (scenario.tenant, scenario.user):
            other = store.for_user(n["tenant"], n["user"])
            session.state.session_notes += other.staged_notes(session.session_id)


def _memory_in_the_input_too(session: Any, store: Any, scenario: Scenario) -> None:
    """Sends the memory lists twice: in the system prompt, and again as a system message at the
    head of every model call's input (a second injection point, the prompt left as it was)."""
    instructions, inner = session.agent.instructions, session.run_config.call_model_input_filter

    def filter_(data):
        filtered = inner(data) if inner is not None else data.model_data
        last = instructions.last
        memory = [v for k, v in (last.sections.items() if last else []) if k.endswith("_memory")]
        extra = [{"role": "system", "content": "\n\n".join(memory)}] if memory else []
        return replace(filtered, input=extra + list(filtered.input))

    session.run_config = replace(session.run_config, call_model_input_filter=filter_)


async def _forget_keeps_history(session: Any, matching: str) -> None:
    """Erases from the store and from the session's memory lists, but not from its history: the
    turns that named what was forgotten are still sent to the model."""
    session.memory.forget(matching=matching)
    await session._drop_erased()


async def _forget_in_store_only(session: Any, matching: str) -> None:
    """Erases from the store, as asked, but leaves the conversation as it was: the history still
    names what was forgotten, and the next model call is sent it."""
    session.memory.forget(matching=matching)


# ---- broken models (wrapped around the scripted agent) ------------------------------------------


class _Wrapped(Model):
    """Passes every call to the wrapped model, then changes its response."""

    def __init__(self, inner: Model):
        self.inner = inner
        self.name = getattr(inner, "name", type(inner).__name__)

    async def get_response(self, system_instructions, input, model_settings, tools, output_schema,
                           handoffs, tracing, **kwargs) -> ModelResponse:
        response = await self.inner.get_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
            **kwargs,
        )
        return self.change(response, output_schema, input)

    def change(self, response: ModelResponse, output_schema: Any, model_input: Any = None):
        return response

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} does not stream")


def _with_calls(response: ModelResponse, edit) -> ModelResponse:
    output = []
    for item in response.output:
        if isinstance(item, ResponseFunctionToolCall):
            arguments = edit(item.name, json.loads(item.arguments or "{}"))
            item = item.model_copy(update={"arguments": json.dumps(arguments)})
        output.append(item)
    return replace(response, output=output)


class ArgumentsNotFilled(_Wrapped):
    """Searches with what the user said only: the remembered seat, cabin, airline left blank."""

    REMEMBERED = ("seat", "cabin", "airline", "origin", "diet", "max_price")

    def change(self, response: ModelResponse, output_schema: Any, model_input: Any = None):
        def edit(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            if name == MEMORY_TOOL:
                return arguments
            return {k: ("" if k in self.REMEMBERED else v) for k, v in arguments.items()}

        return _with_calls(response, edit)


class PlanDropsAFact(_Wrapped):
    """Consolidation that merges the notes it is shown into one, worded as the oldest of them:
    the newer fact is dropped (a summary that "keeps the gist")."""

    def change(self, response: ModelResponse, output_schema: Any, model_input: Any = None):
        shown = _shown_notes(model_input) if output_schema is not None else []
        if len(shown) < 2:
            return response
        oldest = min(shown, key=lambda n: n[1])
        plan = {
            "decisions": [
                {"id": i, "action": "merge", "other_id": "", "reason": "same subject"}
                for i, _, _ in shown
            ],
            "notes": [
                {"text": oldest[2], "keywords": [], "kind": "fact",
                 "source_ids": [i for i, _, _ in shown]}
            ],
        }
        item = response.output[0]
        if not isinstance(item, ResponseOutputMessage):
            return response
        text = ResponseOutputText(type="output_text", text=json.dumps(plan), annotations=[])
        return replace(response, output=[item.model_copy(update={"content": [text]})])


class _GateOffForDocuments:
    """The write policy, except that a note written after a document (a web page, a tool result)
    is let through unchecked: "the user asked us to read it"."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def check(self, text: str, keywords: Any = None, **kwargs: Any) -> Any:
        decision = self.inner.check(text, keywords, **kwargs)
        if kwargs.get("from_document") and not decision.allowed:
            return replace(decision, allowed=True, rule=None, reason="OK: from a document")
        return decision


def _gate_off_for_documents() -> RunOptions:
    from helpers.write_policy import DEFAULT_WRITE_POLICY

    return RunOptions(write_policy=_GateOffForDocuments(DEFAULT_WRITE_POLICY))


# ---- the mutants ---------------------------------------------------------------------------------

REVERSED_POLICY = MEMORY_POLICY.replace(
    "1. The user's latest message wins over all memory.", "1. Memory wins over the user's message."
).replace(
    "2. SESSION memory wins over GLOBAL memory.", "2. GLOBAL memory wins over SESSION memory."
).replace("3. Within one list, the newest note wins.", "3. Within one list, the oldest note wins.")
assert REVERSED_POLICY != MEMORY_POLICY
# The policy with its conflict rules cut out: a model must guess which note wins.
_RULES = MEMORY_POLICY[MEMORY_POLICY.index("When they conflict:"):MEMORY_POLICY.index("Ask ONE")]
UNORDERED_POLICY = MEMORY_POLICY.replace(_RULES, "")
assert UNORDERED_POLICY != MEMORY_POLICY and "newest note wins" not in UNORDERED_POLICY


@dataclass(frozen=True)
class Mutant:
    """One broken promise, as the objects a run is handed instead of the library's."""

    name: str
    breaks: str  # the promise, in a reader's words
    options: RunOptions = field(default_factory=RunOptions)
    policy: Policy = DEFAULT_POLICY
    # Non-empty when the library itself makes the break harmless (an "equivalent" mutant): why.
    # Such a mutant passes every scenario, and that is the right result.
    equivalent: str = ""


def _rewired(rewire) -> RunOptions:
    return RunOptions(rewire=rewire)


MUTANTS: dict[str, Mutant] = {
    m.name: m
    for m in [
        Mutant("rendered-not-sent", "memory is rendered but never reaches the instructions",
               _rewired(_instructions(RenderedNotSent))),
        Mutant("first-turn-only", "memory reaches the prompt on the first turn only",
               _rewired(_instructions(FirstTurnOnly))),
        Mutant("rendered-once", "the prompt is rendered once per session: notes saved later "
               "never reach it", _rewired(_instructions(RenderedOnce))),
        Mutant("other-tenant-loaded", "the notes of the same user id in another tenant are "
               "loaded", _rewired(_load_same_user_id_everywhere)),
        Mutant("loaded-by-name", "the notes of another user in the tenant with the same name "
               "are loaded", _rewired(_load_by_display_name)),
        Mutant("store-keyed-by-user-id", "the store keys memory by user id alone",
               options_without("tenant")),
        Mutant("precedence-reversed", "the policy says memory beats the latest message and the "
               "oldest note wins, and the searches are filled in that order", policy=Policy(
                   text=REVERSED_POLICY, precedence=tuple(reversed(PRECEDENCE)), newest_first=False)),
        Mutant("oldest-kept", "top-k keeps the oldest notes, so the newest facts fall off",
               _rewired(_instructions(OldestKept))),
        Mutant("one-off-saved-as-default", "'this time only' is saved as a lasting note",
               options_without("scope")),
        Mutant("expired-rendered", "the renderer ignores expiry dates",
               _rewired(_instructions(IgnoresExpiry)),
               equivalent="the store never loads an expired note into the state, so the "
               "renderer never sees one (a second, independent guard)"),
        Mutant("expired-served", "the store serves expired notes as live",
               options_without("expiry")),
        Mutant("expiry-ignored", "neither the store nor the renderer reads expiry dates: an "
               "expired wish steers the search", replace(
                   options_without("expiry"), rewire=_instructions(IgnoresExpiry))),
        Mutant("superseded-rendered", "superseded notes are loaded beside the note that "
               "replaced them", _rewired(_load_superseded_too)),
        Mutant("gate-off", "notes are saved without the write policy's safety rules",
               options_without("gate")),
        Mutant("ungrounded-writes", "notes need not come from the user's words (a document "
               "can plant one)", options_without("grounding")),
        Mutant("budget-ignored", "every note is rendered, however many there are",
               policy=Policy(k=None)),
        Mutant("tool-output-untrimmed", "oversized tool output reaches the model whole",
               options_without("truncation")),
        Mutant("arguments-not-filled", "searches are not filled from memory: the model's blanks "
               "go out (no remembered seat)", RunOptions(wrap_model=ArgumentsNotFilled, filler=as_given)),
        Mutant("recency-off", "in a conflict the model's word beats the dates",
               options_without("recency")),
        Mutant("plan-drops-a-fact", "consolidation merges a move into a note worded as the old "
               "city", RunOptions(wrap_model=PlanDropsAFact),
               equivalent="consolidation rejects a merge of notes that give one attribute two "
               "values, and falls back to the rules"),
        Mutant("forget-store-only", "forget erases the store but not the session's history",
               RunOptions(forget=_forget_in_store_only)),
        Mutant("memory-injected-twice", "memory is injected twice (double the token cost)",
               _rewired(_instructions(MemoryTwice))),
        Mutant("memory-in-input-too", "the memory lists are also sent in every call's input "
               "(each turn pays for memory twice)", _rewired(_memory_in_the_input_too)),
        Mutant("precedence-unstated", "the policy states no rule for conflicts (which note "
               "wins is left to the model)", policy=Policy(text=UNORDERED_POLICY)),
        Mutant("session-notes-hidden", "session notes reach the prompt only after trimming: "
               "a one-off said this session is not in the next call", policy=Policy(
                   session_notes="after_trim")),
        Mutant("superseded-beside-memory", "retired notes are rendered in a section of their "
               "own beside the memory lists", _rewired(_superseded_beside_memory)),
        Mutant("session-resumed-by-id", "unfinished session notes are resumed by session id "
               "alone: another user's, staged under the same id, join this session",
               _rewired(_resume_staged_by_session_id)),
        Mutant("empty-memory-filled", "a user with no notes is given starter notes (the course's "
               "example user's) instead of an empty memory", _rewired(_starter_memory_when_empty)),
        Mutant("notes-loaded-twice", "long-term notes are loaded twice: each takes two top-k "
               "places", _rewired(_notes_loaded_twice)),
        Mutant("memory-cached-across-sessions", "the notes loaded at the first session are "
               "served to every later one", _rewired(_memory_cached_across_sessions)),
        Mutant("gate-off-for-documents", "notes written after a document skip the write policy",
               _gate_off_for_documents()),
        Mutant("forget-keeps-history", "forget erases the store and the memory lists, but the "
               "history still names what was forgotten", RunOptions(forget=_forget_keeps_history)),
    ]
}


async def run_mutants(
    mutants: Iterable[Mutant] | None = None, scenarios: Iterable[Scenario] | None = None
) -> dict[str, SuiteResult]:
    """Every scenario on every mutant (the adversary replay underneath): name -> suite result."""
    scenarios = list(scenarios) if scenarios is not None else load_scenarios()
    out = {}
    for mutant in mutants if mutants is not None else MUTANTS.values():
        out[mutant.name] = await run_suite(
            scenarios, adversary=True, options=mutant.options, policy=mutant.policy, judge=False
        )
    return out


async def first_kill(
    mutant: Mutant, scenarios: Iterable[Scenario] | None = None
) -> tuple[str, list[str]] | None:
    """The first scenario whose must-checks fail on the mutant, with the failures; None if
    every scenario passes (the mutant survives). Stops at the first kill: a quick test."""
    for scenario in scenarios if scenarios is not None else load_scenarios():
        outcome = await run_scenario(
            scenario, adversary=True, options=mutant.options, policy=mutant.policy
        )
        result = evaluate(outcome)
        if not result.passed:
            return scenario.name, result.failures
    return None


async def kills(
    mutant: Mutant, scenarios: Iterable[Scenario] | None = None, *, at_least: int = 2
) -> list[str]:
    """The scenarios whose must-checks fail on the mutant, stopping once `at_least` are found:
    a promise checked by one scenario only hides a regression whenever that scenario is
    wrong or flaky."""
    found = []
    for scenario in scenarios if scenarios is not None else load_scenarios():
        outcome = await run_scenario(
            scenario, adversary=True, options=mutant.options, policy=mutant.policy
        )
        if not evaluate(outcome).passed:
            found.append(scenario.name)
            if len(found) >= at_least:
                break
    return found


def _equivalent(name: str) -> bool:
    return name in MUTANTS and bool(MUTANTS[name].equivalent)


def survivors(results: dict[str, SuiteResult]) -> list[str]:
    """Mutants no scenario kills (equivalent ones aside): promises the evals cannot see broken."""
    return [m for m, s in results.items() if not killed_by(s) and not _equivalent(m)]


def killed_by(suite: SuiteResult) -> list[str]:
    """The scenarios whose must-checks or invariants fail on this run."""
    return [r.name for r in suite.results if not r.passed]


def kill_matrix(results: dict[str, SuiteResult], *, reasons: bool = False) -> str:
    """Mutant by scenario: X where the scenario's must-checks catch the mutant."""
    if not results:
        return "(no mutants)"
    scenarios = [r.name for r in next(iter(results.values())).results]
    width = max(len(m) for m in results)
    head = f"{'mutant':<{width}}  " + " ".join(f"{i + 1:>2}" for i in range(len(scenarios)))
    lines = [head + "  killed", "-" * (len(head) + 8)]
    for name, suite in results.items():
        failed = set(killed_by(suite))
        cells = " ".join(f"{'X' if s in failed else '.':>2}" for s in scenarios)
        verdict = "yes" if failed else "no: equivalent" if _equivalent(name) else "NO (survives)"
        lines.append(f"{name:<{width}}  {cells}  {verdict}")
    lines.append("")
    lines += [f"{i + 1:>2} {s}" for i, s in enumerate(scenarios)]
    lines += [f"equivalent {m}: {MUTANTS[m].equivalent}" for m in results if _equivalent(m)]
    survivors = [m for m, s in results.items() if not killed_by(s) and not _equivalent(m)]
    live = [m for m in results if not _equivalent(m)]
    once = [m for m in live if len(killed_by(results[m])) == 1]
    lines.append(
        f"{len(live) - len(survivors)}/{len(live)} mutants killed"
        + ("" if once or survivors or not live else ", each by at least two scenarios")
        + f" ({len(results) - len(live)} equivalent not counted)"
        + (f"; surviving: {', '.join(survivors)}" if survivors else "")
        + (f"; killed by one scenario only: {', '.join(once)}" if once else "")
    )
    if reasons:
        for name, suite in results.items():
            for r in suite.results:
                lines += [f"  {name} / {r.name}: {p}" for p in r.failures[:2]]
    return "\n".join(lines)


__all__ = [
    "MUTANTS",
    "Mutant",
    "first_kill",
    "kills",
    "REVERSED_POLICY",
    "UNORDERED_POLICY",
    "kill_matrix",
    "killed_by",
    "run_mutants",
    "survivors",
]
