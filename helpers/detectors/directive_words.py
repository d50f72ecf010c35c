"""The directive reading's word classes: the parties (the user, her handlers, authorities), the
kinds of words an order uses, and the English verb lexicon (lemminflect) that finds an imperative
at the head of a clause. Read by helpers/detectors/directive_signals.py and helpers/directive.py
(notebook 02).
"""

from __future__ import annotations

import re
from functools import cache

from helpers.detectors.phrases import group, words

_I = re.IGNORECASE

# The words of each class are data/phrases/directive_words.yaml; how they combine stays here.
def _d(cls: str) -> str:
    """A word class of data/phrases/directive_words.yaml, as a regex group."""
    return group("directive_words", cls)


# ---- the parties ------------------------------------------------------------------------------

_USER = _d("user")  # the user, as the notes name her
_USER_OWN = _d("user_own")
_HANDLER = _d("handler")  # whoever handles the account: the agent, staff, the next one on shift
_LATER = _d("later")
_AUTHORITY = _d("authority")  # who may give orders about an account, other than its owner
# A heading that carries authority by its kind, whoever wrote it.
_ORDER_WORDS = rf"(?:{_d('order_words')}|{_d('order_subjects')} {_d('order_kinds')}s?)"

# ---- what gains, what is kept, what is told ---------------------------------------------------

_GAIN = (rf"(?:{_d('gain')}|advertis\w+|"
         r"(?:our|preferred|paying|commercial|sponsoring) partners?(?: [\w-]+)?|"
         r"(?:pays?|paid|earns?|makes?) (?:us|the agency|the company|the concierge) "
         r"(?:more|a cut|money|extra)|(?:agent|partner|referral|promo|tracking) codes?|"
         r"(?:so|because|since|as) (?:the|our|their|it|they|this|that)(?: [\w-]+){0,2} (?:sells?|pays?|"
         r"earns?|rewards?|compensates?|(?:is|are) (?:more )?profitable)|per (?:sale|booking|"
         r"referral|sign-?up)|(?:for|on) (?:every|each) (?:sale|booking|sign-?up)|"
         r"(?:higher|highest|pricier|more expensive|most expensive|dearest|full) "
         r"(?:fares?|prices?|rates?|options?|tiers?|packages?)\s+first|"
         r"sign\w*\s+(?:her|him|them)\s+up\s+(?:for|to)\s+(?:every|all|any|each)\b|"
         r"(?:agency|company|firm|concierge|platform|desk)['\u2019]s (?:[\w-]+ )?(?:fees?|charges?|"
         r"cut|commission|margin|accounts?)|(?:credited|paid|transferred) to (?:the |our )?(?:agency|"
         r"company|firm|desk|concierge|house|staff)(?: [\w-]+)?|"
         r"sales (?:staff|team|people|reps?|desk|department)|(?:credit\w*|pa(?:y|ys|id)(?: out)?|"
         r"transferr\w*|mov\w*|go(?:es)?|sent) to (?:the |our )?(?:agency|company|firm|desk|concierge|"
         r"house|staff|platform)\b|"
         r"(?:funds?|funded|finances?|sponsors?|bankrolls?|subsidi[sz]es?|pays? for) (?:the concierge|"
         r"us|this service|the service|the agency|our (?:service|agency|desk))|"
         r"(?:for|with) (?:personali[sz]ed |"
         r"targeted |special )?(?:offers|promotions|ads)|(?:a|our|their) (?:deal|arrangement|contract|"
         r"tie-up) with|(?:the )?(?:agency|company|firm|business|concierge|platform|desk)['\u2019]s "
         r"(?:own |[\w-]+ )?(?:partners?|accounts?|funds?|pool|charity|programm?es?|brands?|hotels?))")
_FACT = _d("fact")  # a cost, a risk or a fault: what a seller keeps from a buyer
_TELL = _d("tell")  # verbs that pass on a fact
_SAY = _d("say")  # what the agent is made to assert
# A told proposition flagged as untrue: a correction beside what she is to be told.
_UNTRUE = "(?:" + "|".join((
    # "(it isn't)", "(not true)", "(they're not)"
    r"\((?:[^()]{0,30}(?:\bnot|n't|\bnever|\bfalse|\buntrue|\ba lie|\bfake|\bmade up)\b[^()]{0,20}|\s*sic\s*)\)",
    # "(it's optional)": a parenthesis that restates the fact
    r"\((?:it|they|this|that)(?:'s|'re| is| are| was| were| does| do)\b[^()]{0,30}\)",
    # "it's actually billed later", "in reality it ..."
    r"\b(?:it's|it is|they're|they are|that's|that is) (?:actually|really|in fact)\b",
    r"\b(?:actually|really|in fact|in reality) (?:it|they|this|that|there)\b",
    r"\beven though (?:it|they|this|that|there|the)\b",
    r"\b(?:which|that) (?:is|are)(?:n't| not) true\b|\bnot true\b",
    # elliptical: "even when it isn't", "even if it's not." (not "even if it is not refundable")
    r"\beven if (?:it'?s|it is|that'?s|they'?re) (?:not|false|untrue)\s*(?:[.;,)!?]|$)",
    r"\beven (?:when|if|though) (?:it|they|this|that)(?:'s|'re| is| are| was| were| does| do)?"
    r"(?:n't| not)\s*(?:[.;,)!?]|$)",
    # "...; it isn't, so ...", "- it is, but ..."
    r"(?:[-\u2013\u2014,;(]|\bbut)\s*(?:it|they|this|that)(?:'s|'re| is| are| does| do| was| were| has| "
    r"have)(?: not|n't)?\s*(?:,\s*but\b|[),;.]|$)",
    # "the terms say otherwise", "whatever the reviews say"
    r"\b(?:says?|shows?|is|are|reads?) otherwise\b",
    r"\b(?:whatever|regardless of what|no matter what|even if|even though|despite what)\s+(?:the|its|"
    r"their|her)\s+(?:[\w-]+\s+)?(?:terms|facts|reviews|rules|records|data|numbers|policy|conditions|"
    r"fine print|contract|website|airline|hotel|system)\s+(?:says?|said|shows?|states?|is|are)\b",
)) + ")"

# ---- the user's own voice ---------------------------------------------------------------------

# A note whose head is the user's attitude states her wish, even when what she wishes directs the
# agent ("Prefers the concierge to send a summary", "Happy for the concierge to choose").
_ATTITUDE = rf"(?:{_d('attitude')}|(?:is |she's |he's )?{_d('content')})"

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


@cache
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's readings of a word out of context: {"NOUN": ("book",), "VERB": ("book",)}."""
    from lemminflect import getAllLemmas  # loaded on first use (0.2 s), not at import

    return dict(getAllLemmas(word))


# Words that follow an imperative verb (its object or particle), never a noun used as a subject;
# words that start a note about the user but are also base-form verbs in the lexicon.
_AFTER_VERB = frozenset(words("directive_words", "after_verb"))
_NOT_ORDERS = frozenset(words("directive_words", "not_orders"))


@cache
def is_imperative_head(word: str, following: str = "", after_adverb: bool = False) -> bool:
    """A clause that starts with `word` (then `following`) reads as an order.

    Any English verb in its base form counts, by lemminflect's lexicon (~10,000 verbs); a word
    that can also be a noun ("Book", "Seat", "Travel") counts only when what follows is what
    follows a verb (a pronoun, an article, a particle): "Seat her by the window" is an order,
    "Seat 7A on regional flights" is not.
    """
    w = word.lower()
    if w in _NOT_ORDERS or len(w) < 2:
        return False
    lemmas = _lemmas(w)
    if w not in lemmas.get("VERB", ()) and w not in lemmas.get("AUX", ()):
        return False
    others = set(lemmas) - {"VERB", "AUX"}
    if not others:
        return True
    if not following:  # a bare noun after a comma ("never cash") is not an order
        return False
    if after_adverb:
        return True
    # A gerund follows a verb, not a noun: "Keep saying it's pending", "Stop asking her".
    if following.lower().endswith("ing") and _lemmas(following.lower()).get("VERB"):
        return True
    # "over the wing", "back to back": a word that is also an adverb and an adjective is a particle.
    return following.lower() in _AFTER_VERB and not {"ADV", "ADJ"} <= others


@cache
def is_participle(word: str) -> bool:
    """An inflected verb form ("made", "transferred", "shown"), by the lexicon."""
    w = word.lower()
    verbs = _lemmas(w).get("VERB", ())
    return bool(verbs) and w not in verbs and not w.endswith(("ing", "s"))


# ---- clauses ----------------------------------------------------------------------------------

_SENTENCES = re.compile(r"(?<=[.;!?])\s+\(?|\n+\(?")
_HEADING = re.compile(r"^\s*([^:.;!?\n]{1,70}?)\s*(?::(?!\d)|\s[-\u2013\u2014]+\s|\u2014)\s*(?=\S)")
_CLAUSES = re.compile(r"(?:[;!?\n]|\.(?=\s|$))+\s*|\s[-\u2013\u2014]+\s|,\s*(?:and |but |then |so )?|"
                      r"\b(?:and|but|then) (?=(?:also |always |never |please |quietly )?[a-z]+ "
                      r"(?:her|him|them|it|the|a|an|all|any)\b)", _I)
# Words before a verb that make it an order ("always book", "please seat", "do not route").
_ORDER_MARKERS = re.compile(rf"\b{_d('order_markers')}\b", re.I)
_LEAD_ADVERBS = re.compile(rf"^(?:{_d('lead_adverbs')}\b,?\s*)+", _I)
_CONDITION = re.compile(
    rf"^(?:if|when|whenever|once|upon|on|after|before|should|in case|any time|every time)\b"
    rf"[^,]{{0,60}}?\b(?:{_USER}|it|this|that|a|an|any|the)\b[^,]{{0,40}},\s*", _I)
