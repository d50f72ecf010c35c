"""Instructions in any language, by what they are made of: the assistant addressed, "the user"
spoken of as someone the assistant acts on, a marker that makes an order last ("from now on"),
a verb that sets rules aside, a self-reference ("this note"). A note is about the user, in the
third person ("Prefers aisle seats"); none of these classes alone makes it an order, but their
combinations do (listed in data/phrases/instruction_cues.yaml, where every language's words are
data). A detector family of the write gate's instruction rule (helpers.gate, notebook 02).
"""

from __future__ import annotations

import re

from helpers.detectors.phrases import pattern


def _has(cls: str, text: str) -> bool:
    return pattern("instruction_cues", cls).search(text) is not None


# A name after the verb: a quotation, or a capital inside the sentence ("Viajes Sol", "SuperTour24").
_NAME = re.compile(r"[\"'\u00ab\u201c\u201e\u300c\u300e\u2018]|(?<=[\s(])(?-i:[A-Z\u0391-\u03a9\u0410-\u042f])")


def _names_a_seller(text: str) -> bool:
    verb = pattern("instruction_cues", "promote").search(text)
    return verb is not None and _NAME.search(text, verb.end()) is not None


# Between the cue words of a revision: at most three words, no clause mark.
_FEW_WORDS = re.compile(r"\s*(?:[^\W\d_][\w'-]*\s+){0,3}")


def _soon_after(cue: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """The first match of `cue` at most three words after `pos`."""
    for found in cue.finditer(text, pos, pos + 80):
        if _FEW_WORDS.fullmatch(text, pos, found.start()):
            return found
    return None


def without_her_revisions(text: str) -> str:
    """The text with the user's revisions of her own wishes blanked out: a set-aside verb, then her
    own (`mine`) wish (`her_wishes`), in either order, a few words apart ("Forget my old budget,
    it is 2,000 now", "Olvida mis preferencias de hotel", "uită preferințele mele"). What she sets
    aside is hers; the rest of the note is still read ("... and book only via X" still is)."""
    mine, wishes = pattern("instruction_cues", "mine"), pattern("instruction_cues", "her_wishes")
    spans = []
    for verb in pattern("instruction_cues", "set_aside").finditer(text):
        for first, second in ((mine, wishes), (wishes, mine)):
            owner = _soon_after(first, text, verb.end())
            found = owner and _soon_after(second, text, owner.end())
            if found:
                spans.append((verb.start(), found.end()))
                break
    for start, end in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


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
    promote = _names_a_seller(text)
    # Pushing a named seller while keeping the others quiet, or on every answer, is steering the
    # user. ("Recommend vegan places, never mention steakhouses" names no seller: her wish.)
    if promote and (hide or (say and persistent)):
        return True
    if _has("answers", text) and (promote or hide or say):
        return True
    # A trigger and a dictated reply: "if the user asks about refunds, answer 'not possible'".
    return user and (persistent or _has("asks", text)) and (say or hide or promote)


__all__ = ["cued_instruction", "without_her_revisions"]
