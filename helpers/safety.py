"""Stage 10 — retrieval (notebook 10): which notes are about health or safety, decided at capture.

A note about an allergy, a medical condition, a medication, a disability or a pregnancy is stored
with sensitivity `SAFETY_SENSITIVITY` ("restricted"), and retrieval puts such a note first for a
request it concerns (`helpers.retrieval.safety_first`): for "Please order my meal" the peanut
allergy comes before the aisle seat, however new the seat note is.

The capture tool sets it in code, from data (`data/safety/terms.json`: word stems in twelve
languages, matched after `helpers.text.fold`), not from a tool argument: the model's
schema and prompt stay as they are, and the decision is the same on every model. The cost of a
wrong match is small on purpose: the note is only ranked first for requests it concerns, and it
is never less protected than an ordinary "personal" note. A language the file does not list gets
no tier: add its stems there.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable

from helpers.note_fields import Sensitivity
from helpers.paths import data_dir
from helpers.text import fold, unspaced

SAFETY_SENSITIVITY: Sensitivity = "restricted"  # the note's signal: about health or safety


@functools.cache
def safety_terms() -> tuple[str, ...]:
    """The stems of `data/safety/terms.json`, every language, folded as `fold` folds a note."""
    by_language = json.loads((data_dir() / "safety" / "terms.json").read_text(encoding="utf-8"))
    stems = {fold(t) for language, terms in by_language.items() if not language.startswith("_")
             for t in terms}
    return tuple(sorted(stems))


# A stem of six letters or more may stand inside a word (the German compound "Erdnussallergie");
# a shorter one only at a word's start ("asma", not "Tasmania"); scripts written without spaces
# anywhere.
INSIDE_A_WORD = 6


@functools.cache
def _pattern() -> re.Pattern[str]:
    parts = [re.escape(t) if unspaced(t[0]) or len(t) >= INSIDE_A_WORD
             else rf"(?<!\w){re.escape(t)}" for t in safety_terms()]
    return re.compile("|".join(parts))


def about_health_or_safety(text: str, keywords: Iterable[str] = ()) -> bool:
    """Does a note (its text or a keyword) name an allergy, condition, medication, disability or
    pregnancy? Any case or accents; a long stem also inside a word ("Erdnussallergie")."""
    return _pattern().search(fold(" ".join([text, *keywords]))) is not None


def sensitivity_of(text: str, keywords: Iterable[str] = ()) -> Sensitivity:
    """The sensitivity a newly captured note is stored with: "restricted" for health or safety,
    else "personal" (the note's default)."""
    return SAFETY_SENSITIVITY if about_health_or_safety(text, keywords) else "personal"


__all__ = ["INSIDE_A_WORD", "SAFETY_SENSITIVITY", "about_health_or_safety", "safety_terms",
           "sensitivity_of"]
