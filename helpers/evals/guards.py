"""The guards the scenarios test, and how to run without one: options passed in, nothing patched.

`options_without("gate")` returns `RunOptions` for the runner; each guard is switched off the
way an app would configure it: a write policy without some rules (`WritePolicy.without`), no
tool-output filter, a store keyed by user id alone, a store that serves expired notes, a
consolidation that trusts the model's direction in a conflict, searches sent with the model's
arguments as proposed (no filling from memory).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from helpers.travel import Filler, as_given

# What a run can be handed in place of the library's own objects (see helpers.evals.mutants):
#   wrap_model(model) -> the model the session talks to (and consolidates with)
#   rewire(session, store, scenario) -> None: swap objects in the opened MemorySession
#       (its agent's instructions, its state's notes, its run config), after open_memory.
ModelWrapper = Callable[[Any], Any]
Rewire = Callable[[Any, Any, Any], None]
#   forget(session, matching) -> awaitable: what the app does when the user asks to forget
Forget = Callable[[Any, str], Awaitable[Any]]


@dataclass(frozen=True)
class RunOptions:
    """How the runner builds memory for a scenario. The defaults: every guard on."""

    write_policy: Any = None  # a helpers.write_policy.WritePolicy; None: the library's default
    truncate_tool_output: bool = True  # the tool-output filter before every model call
    tenant_keyed: bool = True  # False keys every user by user id alone (one shared tenant)
    expiry: bool = True  # False: the store serves expired notes as live
    recency: bool = True  # False: consolidation believes the model about which note is newer
    wrap_model: ModelWrapper | None = None  # None: the model as given
    rewire: Rewire | None = None  # None: the session exactly as open_memory built it
    forget: Forget | None = None  # None: MemorySession.forget (the store and the session)
    filler: Filler | None = None  # None: helpers.arguments.fill_arguments completes each search


def _default_write_policy() -> Any:
    try:
        from helpers.write_policy import DEFAULT_WRITE_POLICY
    except ImportError as error:  # the policy object lands with issue 11
        raise RuntimeError("switching write-policy rules off needs helpers.write_policy") from error
    return DEFAULT_WRITE_POLICY


def _write_policy_without(*rule_ids: str) -> Any:
    return _default_write_policy().without(*rule_ids)


def _gate_off(options: RunOptions) -> RunOptions:
    """Every rule but the scope rule: what the note says, and where its words came from."""
    rules = [r for r in _default_write_policy().rule_ids if r != "scope_by_sentence"]
    return replace(options, write_policy=_write_policy_without(*rules))


def _rule_off(rule_id: str) -> Callable[[RunOptions], RunOptions]:
    return lambda options: replace(options, write_policy=_write_policy_without(rule_id))


def _option_off(field: str) -> Callable[[RunOptions], RunOptions]:
    off: dict[str, Any] = {field: False}
    return lambda options: replace(options, **off)


GUARDS: dict[str, tuple[str, Callable[[RunOptions], RunOptions]]] = {
    # name: (what it protects, how the runner switches it off)
    "gate": ("the write policy refuses unsafe notes (injections, contact details, secrets, "
             "words the user never said)", _gate_off),
    "scope": ("'this time' wording in the user's sentence makes a note session-scoped, so it "
              "never reaches long-term memory", _rule_off("scope_by_sentence")),
    "grounding": ("names and numbers in a note must come from the user's own words",
                  _rule_off("ungrounded")),
    "truncation": ("oversized tool output is cut, with a marker, before it reaches the model",
                   _option_off("truncate_tool_output")),
    "tenant": ("the store keys memory by tenant and user, not by user id alone",
               _option_off("tenant_keyed")),
    "expiry": ("expired notes are not served as live by the store", _option_off("expiry")),
    "recency": ("in a conflict the newer note wins, whichever way round the model names them",
                _option_off("recency")),
    "filler": ("memory fills a search's missing arguments in code, by the precedence policy",
               lambda options: replace(options, filler=as_given)),
}


def options_without(*guards: str, options: RunOptions | None = None) -> RunOptions:
    """Run options with the named guards switched off, e.g. `options_without("truncation")`."""
    unknown = [g for g in guards if g not in GUARDS]
    if unknown:
        raise ValueError(f"unknown guard(s) {unknown}; known: {sorted(GUARDS)}")
    options = options or RunOptions()
    for guard in guards:
        options = GUARDS[guard][1](options)
    return options


__all__ = ["GUARDS", "RunOptions", "options_without"]
