"""The words that say what a number is: a payment card's (`_CARD_WORDS`, data/phrases/
number_cues.yaml) or an identity document's (`_ID_CUES`: the identifier labels of
data/phrases/labels.yaml, the same class the labelled reading uses, and their acronyms). Shared by
the payment and identifier detectors and the write policy's split-number rule (notebook 02).
"""

from __future__ import annotations

import re


from helpers.detectors.normalize import _I
from helpers.detectors.phrases import group, words


_CARD_WORDS = group("number_cues", "card")

# Words that say "an identity document's number follows", in the text or in a keyword. Short
# acronyms count only in capitals ("SIN", "ID"); "sin" and "id" are words too.
# The cue reads the identifier labels of the languages the number rules were written for: the
# split-number rule runs it on every other note of the user's, and all sixty-nine languages of the
# class in one pattern make each search three times as long. The labelled reading
# (helpers/detectors/labelled.py) reads them all.
_CUE_LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl", "sv")
_ACRONYMS = "|".join(sorted(words("labels", "identifier_acronyms"), key=len, reverse=True))
_ID_CUES = re.compile(rf"\b{group('labels', 'identifier', lang=_CUE_LANGUAGES)}\b|"
                      rf"\b(?-i:{_ACRONYMS})(?:\b|(?=\d))", _I)
