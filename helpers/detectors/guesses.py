"""Guesses and passing moods: a note must be what the user said, not an inference about them
("probably", "seems to", "I think she ...") nor a state that will not last ("stressed today").
A detector family of the write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations

import re

from helpers.detectors import prefilter


from helpers.detectors.labelled import guessed, hedged_trait
from helpers.detectors.normalize import _I, _any


# Where a clause about the user starts: the note's head (notes drop the subject), or her pronoun.
_CLAUSE_HEAD = (r"(?:^|[.;:!?(\n]\s*|,\s*|\b(?:she|he|they|the (?:user|customer|client|guest|"
                r"travell?er))\s+)")
# A hedge on a state of the person is a guess ("might be vegetarian", "may have a nut allergy",
# "seems keen on Japan", "think she is ..."); a modal on an action is her tentative plan ("Might go
# to Rome in May", "might be going to Japan", "might be in Tokyo in May") and passes.
_HEDGES = prefilter.compile(
    r"\b(?:probably|presumably|perhaps|possibly|maybe|likely|unlikely|apparently|seemingly|"
    r"supposedly|conceivably|surely|undoubtedly|allegedly|reportedly|probable|doubtful|"
    r"unconfirmed|not confirmed|unverified|not verified|gut feeling|hunch|chances are|odds are|"
    r"in all likelihood|no doubt|under the impression|gives the impression|(?:my|the) impression "
    r"(?:is|was)|my sense is)\b"
    r"|\b(?:might|could|may) (?:also )?(?:prefer|like|want|need|enjoy|hate|dislike)\b"
    rf"|{_CLAUSE_HEAD}(?:might|may|could)\s+(?:well\s+|also\s+|even\s+)?(?:be\b(?!\s+(?:going|"
    r"travell?ing|flying|visiting|moving|heading|coming|staying|taking|booking|leaving|returning|"
    r"back|away|abroad|in|at|on|there|here|free|available|able)\b)|have (?:been|a|an)\b)"
    rf"|{_CLAUSE_HEAD}must\s+have been\b|\bmust be\b[^.;!?\n]{{0,40}}\b(?:given|judging|based on|"
    r"considering|from the way)\b"
    rf"|{_CLAUSE_HEAD}(?:seems?|seemed|appears?|appeared|looks?|looked|sounds?|sounded)(?=\s+\w)(?!\s+"
    r"(?:for|at|in|on|onto|forward|into|after|up|out|around|over|through|from|as|to (?:book|find|get|"
    r"go|travel|fly|stay|see|visit))\b)"
    rf"|{_CLAUSE_HEAD}(?:think|suspect|guess|guessing|reckon|assume|assuming|bet|imagine|believe|"
    r"figure|gather|sense)\s+(?:that\s+)?(?:she|he|they|the (?:user|customer|client|guest|"
    r"travell?er))\b", _I)
# The user hedging their own wish ("I'd probably pick the window", "Maybe Lisbon, I've heard great
# things") says what they want; the hedge of a guesser ("she probably likes tea") does not.
_FIRST_PERSON = re.compile(r"\b(?:i|i'd|i'm|i'll|i've|me|we|we'd|we're|we'll|my|our|us)\b", _I)


def _guessing_hedge(text: str) -> bool:
    for match in _HEDGES.finditer(text):
        start = max(text.rfind(ch, 0, match.start()) for ch in ".;!?\n") + 1
        ends = [i for i in (text.find(ch, match.end()) for ch in ".;!?\n") if i != -1]
        if not _FIRST_PERSON.search(text[start:min(ends, default=len(text))]):
            return True
    return False


_speculation_patterns = _any(
    r"\b(?:seems?|seemed|appears?|appeared) (?:to|like|that)\b",
    r"\b(?:she|he|they|the user|user) (?:might|could|may) (?:also )?(?:be|have)\b",
    r"\bi (?:think|guess|suspect|assume|bet|believe|reckon|imagine|feel like|gather)\b (?:that )?"
    r"(?:she|he|they|the user|user|the customer|the traveller|the traveler)\b",
    r"\b(?:my guess|i'd guess|i would guess|sounds like|looks like (?:she|he|they|the user)|judging by|"
    r"inferred|infer|i infer|presumed|assum(?:e|ing) (?:she|he|they|the user))\b",
    r"\bbased on (?:her|his|their|the user's|your) (?:past|previous|earlier|recent|history|bookings?|trips?)\b",
    r"\b(?:suggests|implies|indicates) (?:that |she |he |they |the user )",
    r"\b(?:she|he|they|the user)(?:'s| is| are) (?:must be|bound to)\b",
    r"\b(?:she|he|they|the user) must (?:be|have|like|prefer|want)\b",
)


def _speculation(text: str) -> bool:
    return _speculation_patterns(text) or _guessing_hedge(text) or guessed(text) or hedged_trait(text)


_MOODS = (
    r"(?:stressed(?: out)?|tired|exhausted|worn out|anxious|nervous|upset|angry|annoyed|frustrated|grumpy|"
    r"cranky|sad|excited|sick|unwell|hungover|jet-?lagged|overwhelmed|irritable|busy|rushed|"
    r"impatient|distracted|sleepy|fed up|in a (?:hurry|rush|bad mood|good mood|mood))"
)
_NOW = (r"(?:today|tonight|right now|just now|at the moment|at present|currently|this (?:morning|afternoon|"
        r"evening|week))")
_transient_mood = _any(
    r"\b(?:in a (?:hurry|rush|bad mood|good mood|foul mood|mood)|running late|pressed for time|"
    r"(?:having|had|has) a (?:bad|rough|long|tough|terrible|hard) (?:day|morning|week)|bad day)\b",
    r"\b(?:is|am|i'm|she's|he's|they're|are|feels?|feeling|felt|seems?|looks?|sounds?) (?:a bit |a little |very |"
    r"really |so |quite |super |pretty |rather |extremely )?(?:stressed|exhausted|hungover|jet-?lagged|upset|"
    r"angry|annoyed|frustrated|grumpy|cranky|overwhelmed|irritable|rushed|sleepy|unwell)\b"
    r"(?! (?:of|by|with|when|about|on|during|after|if)\b)",  # "is exhausted by red-eyes" is durable
    rf"\b{_MOODS}\b[^.\n]{{0,25}}\b{_NOW}\b",
    rf"\b{_NOW}\b[^.\n]{{0,25}}\b{_MOODS}\b",
)
