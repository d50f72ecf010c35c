"""Instructions in any language, by what they are made of: the assistant addressed, "the user"
spoken of as someone the assistant acts on, a marker that makes an order last ("from now on"),
a verb that sets rules aside, a self-reference ("this note"). A note is about the user, in the
third person ("Prefers aisle seats"); none of these classes alone makes it an order, but their
combinations do (listed in data/phrases/instruction_cues.yaml, where every language's words are
data). A detector family of the write gate's instruction rule (helpers.gate, notebook 02).
"""

from __future__ import annotations

from helpers.detectors.phrases import pattern


def _has(cls: str, text: str) -> bool:
    return pattern("instruction_cues", cls).search(text) is not None


def cued_instruction(text: str) -> bool:
    """The combinations of cue classes that make a note an order to the assistant."""
    user = _has("user", text)
    if _has("you_are_now", text) or (user and _has("regardless", text)):
        return True
    set_aside = _has("set_aside", text)
    if set_aside and _has("given", text):
        return True
    persistent, say, hide = _has("persistent", text), _has("say", text), _has("hide", text)
    this_note = _has("this_note", text)
    # ("Wants the agent to ignore loyalty programmes" is her wish about the agent: a verb that sets
    # something aside needs what it sets aside, above.)
    if _has("assistant", text) and (persistent or user or say or hide or this_note
                                    or _has("promote", text)):
        return True
    if this_note and (hide or user or say or set_aside):
        return True
    return persistent and user and (say or hide or _has("promote", text))


__all__ = ["cued_instruction"]
