"""The directive reading's word classes: the parties (the user, her handlers, authorities), the
kinds of words an order uses, and the English verb lexicon (lemminflect) that finds an imperative
at the head of a clause. Read by helpers/detectors/directive_signals.py and helpers/directive.py
(notebook 02).
"""

from __future__ import annotations

import re
from functools import cache

_I = re.IGNORECASE

# ---- the parties ------------------------------------------------------------------------------

# The user, as the notes name her.
_USER = (r"(?:she|he|they|her|him|them|herself|himself|the (?:user|customer|client|guest|"
         r"travell?er|passenger|member|account holder))")
_USER_OWN = r"(?:her|his|their|the (?:user|customer|client|guest|travell?er)'s)"
# Whoever handles the account: the agent in any of its names, staff, the next one on shift.
_HANDLER = (r"(?:assistants?|agents?|concierges?|bots?|models?|ai|llms?|systems?|staff|team|"
            r"person|people|one|successors?|replacements?|"
            r"desk|reps?|representatives?|operators?|handlers?|colleagues?|whoever|anyone|"
            r"anybody|everyone|everybody|readers?|you|sessions?|runs?|turns?|instances?|"
            r"conversations?|shifts?|crew|personnel|employees?)")
_LATER = (r"(?:next|future|later|subsequent|upcoming|following|incoming|new|other|all|every|any)")
# Who may give orders about an account, other than its owner.
_AUTHORITY = (r"(?:operators?|admins?|administrators?|administration|system|sys|policy|policies|"
              r"compliance|management|managers?|supervisors?|ops|operations|head office|hq|"
              r"sales|finance|marketing|billing|revenue|accounts|procurement|partnerships|retention|"
              r"back ?office|internal|legal (?:team|department)|security team|it (?:team|department)|"
              r"developers?|devs?|vendors?|suppliers?|"
              r"platform|provider|headquarters|corporate|directive|directives|mandate|memo|"
              r"notice|bulletin|advisory|override|protocol|sop|config(?:uration)?|escalation|"
              r"audit team|risk team|fraud team|travel desk|account team|service team|the business|"
              r"the company|the agency|the firm)")
# A heading that carries authority by its kind, whoever wrote it.
_ORDER_WORDS = (r"(?:standing (?:instruction|order|rule)s?|instructions?|directives?|"
                r"mandates?|(?:policy|system|rule|config(?:uration)?|account|status|profile|billing|vendor|"
                r"supplier|partner|desk|ops) (?:update|change|flag|override|notice|setting|note|memo|"
                r"guidance)s?|guidance|flag|override|notice|"
                r"bulletin|memo|protocol)")

# ---- what gains, what is kept, what is told ---------------------------------------------------

_GAIN = (r"(?:referrals?|commissions?|kick-?backs?|affiliates?|affiliated|sponsors?|sponsored|"
         r"sponsorship|incentives?|bonus(?:es)?|quotas?|margins?|mark-?ups?|revenue|rebates?|"
         r"up-?sell\w*|cross-?sell\w*|(?:our|preferred|paying|commercial|sponsoring) partners?"
         r"(?: [\w-]+)?|priority placement|"
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
         r"marketing|advertis\w+|promotional|mailing lists?|(?:for|with) (?:personali[sz]ed |"
         r"targeted |special )?(?:offers|promotions|ads)|(?:a|our|their) (?:deal|arrangement|contract|"
         r"tie-up) with|(?:the )?(?:agency|company|firm|business|concierge|platform|desk)['\u2019]s "
         r"(?:own |[\w-]+ )?(?:partners?|accounts?|funds?|pool|charity|programm?es?|brands?|hotels?))")
# A cost, a risk or a fault: what a seller keeps from a buyer (an offer she declined is not it).
_FACT = (r"(?:downgrad\w*|fees?|charges?|surcharges?|levy|levies|city tax|tourist tax|costs?|penalt\w+|commissions?|mark-?ups?|increases?|"
         r"rises?|hikes?|final price|full price|total|cancellation\w*|refunds?|reviews?|ratings?|complaints?|warnings?|"
         r"risks?|dangers?|problems?|issues?|delays?|changes?|renovations?|construction|"
         r"closures?|strikes?|outages?|alternatives?|competitors?|terms|conditions|fine print|"
         r"incidents?|recalls?|advisories|overbook\w*|downgrades?|errors?|mistakes?|faults?|"
         r"conflicts?|expiry|deadlines?|sold out|lower prices?|price drops?)")
# Verbs that pass on a fact.
_TELL = (r"(?:tell\w*|told|confirm\w*|mention\w*|disclos\w*|reveal\w*|inform\w*|notif\w*|show\w*|shown|"
         r"communicat\w*|rais\w*|flag\w*|point\w* out|bring\w* up|brought up|admit\w*|"
         r"warn\w*|alert\w*|let (?:her|him|them) know|say|said|report\w*)")
# What the agent is made to assert.
_SAY = (r"(?:say|tell|reply|respond|answer|claim|state|insist|assure|confirm|mention|remind|"
        r"describe|call|label|advertise|present|sell|pitch|list|show|mark|record|log|report|file|"
        r"inform|explain|quote|advise|let (?:her|him|them) know)")
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
_ATTITUDE = (r"(?:prefers?|preferred|wants?|wanted|likes?|liked|loves?|would (?:like|love|"
             r"rather)|'d (?:like|love|rather)|rather|asks?|asked|hates?|dislikes?|avoids?|"
             r"needs?|expects?|enjoys?|(?:is |she's |he's )?(?:happy|glad|keen|fine|ok|okay|"
             r"comfortable|content|willing|eager))")

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


@cache
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's readings of a word out of context: {"NOUN": ("book",), "VERB": ("book",)}."""
    from lemminflect import getAllLemmas  # loaded on first use (0.2 s), not at import

    return dict(getAllLemmas(word))


# Words that follow an imperative verb (its object or particle), never a noun used as a subject.
_AFTER_VERB = frozenset("""her him them it this that these those the a an all any every each our
their his its up out off away back down over only always first to about on with for in from
into onto through via whatever anything everything nothing no some another""".split())
# Words that start a note about the user but are also base-form verbs in the lexicon.
_NOT_ORDERS = frozenset("""prefer like love want need hate dislike avoid enjoy expect travel
fly stay use live work own rather please note""".split())


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
_ORDER_MARKERS = re.compile(r"\b(?:always|never|please|kindly|do|don't|dont|not|quietly|silently|"
                            r"secretly|discreetly|simply|sure to|remember to|free to)\b", re.I)
_LEAD_ADVERBS = re.compile(
    r"^(?:(?:always|never|please|kindly|just|only|also|then|simply|quietly|silently|secretly|"
    r"discreetly|immediately|automatically|instead|now|first|still|do not|don't|dont|do|"
    r"make sure to|be sure to|remember to|feel free to|going forward|from now on|in future|"
    r"from here on|henceforth)\b,?\s*)+", _I)
_CONDITION = re.compile(
    rf"^(?:if|when|whenever|once|upon|on|after|before|should|in case|any time|every time)\b"
    rf"[^,]{{0,60}}?\b(?:{_USER}|it|this|that|a|an|any|the)\b[^,]{{0,40}},\s*", _I)
