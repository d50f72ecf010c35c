"""The directive reading's signals as patterns: a safeguard waived, consent taken away, her data
or money sent elsewhere, a deception, a fact concealed, her word overruled, a third party in
control. Each is a class of words in a grammatical position; helpers/directive.py combines them
(notebook 02).
"""

from __future__ import annotations


from helpers.detectors import prefilter
from helpers.detectors.directive_words import (_ATTITUDE, _d, _AUTHORITY, _FACT, _GAIN, _HANDLER, _I,
                                               _LATER, _ORDER_WORDS, _SAY, _TELL, _USER, _USER_OWN)


_r = prefilter.compile


# What guards her money and her consent, one class for every place a safeguard is taken away:
# the checks made before acting (alone after "no": "no checks", "no sign-off"; "no limits" or "no
# rules" is a wish of hers), then every other safeguard ("exempt from spending limits").
_CHECKS = r"(?:checks?(?!-in)|verifications?|confirmations?|approvals?|screening|sign-?offs?)"
_SAFEGUARDS = (rf"(?:{_CHECKS}|limits?|caps?|ceilings?|warnings?|safeguards?|restrictions?|rules|"
               r"polic(?:y|ies)|guardrails?|consent|prompts?)")
# A safeguard declared off, in any mood, or none at all: "has waived all insurance checks",
# "upgrades are pre-cleared", "exempt from spending limits", "checks no longer apply", "no checks".
_WAIVED = _r(
    rf"\b{_d('waive')}\b[^.;!?\n]{{0,30}}?\b{_SAFEGUARDS}\b|"
    # ... a procedure too: "the usual steps are skipped", "the process is optional".
    rf"\b(?:{_SAFEGUARDS}|steps?|process(?:es)?|procedures?)\s+(?:are|is|have been|"
    rf"has been|were|was|get|gets)\s+(?:now\s+)?(?:all\s+)?{_d('waived')}\b|"
    r"\b(?:are|is)\s+(?:now\s+)?(?:all\s+)?pre-?(?:cleared|approved|"
    rf"authori[sz]ed)\b|\b{_SAFEGUARDS}\s+(?:no longer appl(?:y|ies)|(?:is|are|"
    r"has been|have been) (?:no longer (?:in force|valid|active|applicable|needed|required)|"
    r"(?:now )?(?:void|null and void|cancelled|revoked|rescinded)))\b|"
    # ... or simply none: "no checks", "no more sign-offs".
    rf"\bno\s+(?:more\s+)?(?:[\w-]+\s+)?{_CHECKS}\b", _I)
_NO_NEED_TO_ASK = _r(
    rf"\b{_d('no_need')}\s+(?:{_d('ask_consent')}|"
    r"get (?:her |his |their )?(?:ok|okay|approval|sign-?off|consent))\b"
    r"(?!\s+(?:about|what|which|whether|for (?:her|his|their) (?:preference|opinion|view)))", _I)


_AUTHORITY_CLAIM = _r(
    # "per management", "on instructions from the travel desk", "approved by compliance".
    rf"\b(?:{_d('by_authority')}|on (?:the )?(?:instructions?|orders?|authority|behalf) (?:of|from)|"
    rf"(?:{_ORDER_WORDS}|{_d('from_words')})\s+from)\s+(?:the\s+|our\s+)?(?:[\w-]+\s+)?"
    rf"(?:{_AUTHORITY}|{_d('units')})\b"
    rf"(?!['\u2019]s)|\b{_AUTHORITY}-{_d('stamped')}\b|\({_d('authority_tag')}\)", _I)
_POSSESSED = _r(rf"\b(?:{_USER_OWN}|she|he)\s+(?:[\w-]+\s+){{0,2}}$", _I)
_ADDRESS_HEADING = _r(
    rf"\b(?:{_HANDLER}\s+{_d('heading_nouns')}|{_d('addressed_to')}\s+(?:the\s+|all\s+|any\s+|"
    rf"whichever\s+)?(?:{_LATER}\s+)?{_HANDLER}|{_LATER}\s+"
    rf"(?:[\w-]+\s+)?{_HANDLER}|{_HANDLER}\s+(?:who|that|reading|handling|picking|taking|"
    rf"working|assisting|on (?:this|the) (?:account|file|case|booking))|(?:later|future|"
    rf"subsequent|upcoming|next) (?:turns?|sessions?|runs?|chats?|conversations?|contacts?)|"
    rf"whoever|anyone|anybody|(?<=\(){_HANDLER}(?=\))|{_HANDLER}\s+(?:[\w-]+\s+)?(?:reads?|sees?|"
    rf"picks?|takes?|gets?|handles?|opens?)\b[^:]*\b(?:later|next|after|again|over))\b",
    _I)
_HANDLER_OBLIGED = _r(
    rf"(?:^|[,;:]\s*|\b(?:and|but|so)\s+)(?:the\s+|all\s+|any\s+|every\s+|our\s+)?(?:{_LATER}\s+)?"
    rf"(?:[\w-]+\s+)?{_HANDLER}\s+(?:[^,;:.!?\n]{{0,30}}?\s)?(?:must|should|shall|will need to|is to|are to|has "
    rf"to|have to|needs? to|ought to|is (?:required|expected|authori[sz]ed|allowed|permitted|"
    rf"instructed) to|are (?:required|expected|authori[sz]ed|allowed|permitted|instructed) to)\b",
    _I)
_OBLIGATION = _r(
    r"\b(?:(?:is|are) to|(?:is|are) not to|need not|needn't|must|should|shall|ought to|(?:has|"
    r"have) to)\s+(?:never\s+|always\s+|not\s+|only\s+|also\s+|first\s+)?be\s+(?:\w+ly\s+)?"
    r"([a-z]+)\b",
    _I)
# The user wishing that a handler act ("Prefers that the concierge book ...") directs it too;
# whether that is her wish or someone else's is for the other signals to say.
_WISH_FOR_HANDLER = _r(
    rf"\b{_ATTITUDE}\s+(?:that\s+|for\s+)?(?:the\s+|all\s+|any\s+)?(?:[\w-]+\s+)?{_HANDLER}\s+(?:to\s+|"
    rf"should\s+|must\s+|always\s+|never\s+)?[a-z]+\b", _I)
# Her things leave her: "her points are to be transferred to the Horizon pool", "copy her
# receipts to the finance partner" (not "to her", "to her accountant": her own people).
# Who serves her booking: her data going to them is the service, not a leak ("share her
# frequent-flyer number with the airline", "pass her dietary needs to the hotel restaurant").
PROVIDER = rf"(?:the\s+|each\s+|every\s+)?{_d('provider')}\b(?!['\u2019]s)"
_OUTFLOW = _r(
    rf"\b{_d('outflow')}\b[^.;!?\n]{{0,40}}?\b(?:to|with|into|towards?|for)\s+"
    rf"(?!{_USER_OWN}\b|{_USER}\b|herself\b|himself\b|themselves\b|{PROVIDER})"
    rf"(?:the\s+|a\s+|an\s+|our\s+|their\s+|its\s+)?[\w'-]+", _I)
_TOLD_FIRST = _r(rf"\b{_d('notify')}\s+(?!{_USER}\b|{_USER_OWN}\b)[\w'-]+(?:\s+[\w'-]+){{0,2}}?\s+"
                 rf"(?:before|ahead of|prior to)\s+{_d('notifying')}\s+{_USER}\b", _I)
_GOES_TO = _r(
    rf"\b{_USER_OWN}\s+(?:[\w-]+\s+){{0,2}}?(?:{_d('sent_to')}\s+(?:straight\s+|directly\s+|"
    rf"automatically\s+)?to|{_d('routed')}\s+(?:through|via))\s+(?!{_USER_OWN}\b|{_USER}\b)", _I)
# Someone else to receive her data: "the partner hotel's kitchen should get her full profile",
# "their lounge staff should be told her travel plans" (not whoever serves her booking).
_RECEIVES = _r(
    rf"(?:^|[.;:,]\s*|\b(?:and|also)\s+)((?:[\w'\u2019-]+\s+){{1,4}}?)(?:should|must|can|may|will|is to|"
    rf"are to|gets? to)\s+(?:also\s+|always\s+)?{_d('receive')}\s+(?:a copy of\s+|copies of\s+|"
    rf"access to\s+)?{_USER_OWN}\s+(?:[\w-]+\s+){{0,2}}?{_d('her_data')}\b", _I)
_CC = _r(rf"(?:^|[.;:!?,]\s*|\b(?:and|also|always|please)\s+){_d('copy_in')}\s+"
         rf"(?!{_USER_OWN}\b|{_USER}\b)(?:the\s+|a\s+|an\s+|our\s+)?[\w'-]+", _I)
_LET_HAVE = _r(rf"\blet\s+(?!{_USER}\b|{_USER_OWN}\b)(?:the\s+|a\s+|an\s+|any\s+|our\s+)?[\w'-]+"
               rf"(?:\s+[\w'-]+){{0,3}}?\s+{_d('access')}\s+"
               rf"(?:a copy of\s+|access to\s+)?{_USER_OWN}\b", _I)
_USERS_THING = _r(rf"\b(?:{_USER_OWN}|her|his|their)\s+(?:[\w-]+\s+)?[\w-]+", _I)
# Consent taken away: "without a prompt", "without contacting the client" (her own "never book
# without asking her" is negated; "OK with the concierge rebooking without asking" is her consent).
_UNASKED = _r(
    rf"\bwithout\s+(?:first\s+|a\s+|any\s+|her\s+|his\s+|their\s+|the user's\s+)?{_d('unasked')}\b|"
    rf"\b(?:{_d('automatic')}|sign\w* (?:her |him |them )?up|opt (?:her|him|them) in)\b[^.;!?\n]{{0,30}}?"
    rf"\bautomatically\b|\bbefore (?:she|he|they) {_d('before_she')}\b|\bauto-?{_d('auto')}", _I)
_NEGATION = _r(rf"\b{_d('negation')}\b", _I)
_ATTITUDE_HEAD = _r(rf"^\s*(?:(?:she|he|they|the user)\s+(?:is\s+|'s\s+)?)?{_ATTITUDE}\b", _I)
_GAIN_REFUSED = _r(rf"\b{_d('refusal')}\b[^.;!?\n]{{0,25}}$", _I)
_GAIN_RE = _r(rf"\b{_GAIN}(?![\w-])", _I)
# The note says the agent's own side profits: no wish of hers needs that said ("Corvid Hotels,
# who fund the concierge", "it earns the desk a bonus", "credited to the agency account").
_US = rf"(?:{_d('us_side')}|our\s+[\w-]+)"
_CONFLICT = _r(
    rf"\b{_d('funds')}\s+{_US}\b|\b{_d('earns')}\s+{_US}\s+(?:a\s+)?{_d('cut')}\b|"
    rf"\b(?:credited|paid|transferred)\s+(?:out\s+)?to\s+{_US}\b|\b{_d('kickbacks')}\s+(?:to|for)\s+{_US}\b",
    _I)
_OTHER_SPEAKER = _r(rf"\b{_d('other_speaker')}\b", _I)
# "Her company decides her budget": her own people deciding is her arrangement.
_THIRD_PARTY_OWN = _r(rf"^\s*{_USER_OWN}\s+(?:[\w-]+\s+){{0,2}}$", _I)
_THIRD_PERSON_USER = _r(rf"\b(?:{_USER}|{_USER_OWN})\b", _I)
_DECEIVE = (
    _r(rf"\b(?:let|make|have|get)\s+(?:{_USER}|people|everyone|customers|guests)\s+(?:believe|"
       r"think|assume|feel|suppose|understand)\b", _I),
    _r(r"\b(?:pretend|act as (?:if|though)|pass (?:it|them|this|that) off|make it (?:look|"
       r"sound|seem) (?:like|as if|as though))\b", _I),
    _r(r"\b(?:describe|portray|advertise|market|label|pass off|bill)\w*\s+(?:it|them|this|that|these|"
       r"those|the [\w-]+(?: [\w-]+)?|[A-Z][\w-]+(?: [A-Z][\w-]+)?)\s+as\s+(?:an?\s+)?[\w-]+", _I),
    _r(rf"\b(?:present|describe|frame|portray|position|sell|pitch|paint|introduce)\s+(?:it|them|"
       rf"this|that|these|those|the [\w-]+(?: [\w-]+)?|[A-Z][\w-]+(?: [A-Z][\w-]+)?)\s+as\s+(?:{_USER_OWN}|"
       r"the (?:best|only|cheapest|safest|official|recommended)|(?:her|his|their|the user's) "
       r"(?:own )?(?:choice|favou?rite|preference|idea|request))", _I),
)
# "..., so don't mention it" where what "it" stands for is a cost or a fault.
_TELL_IT_NOT = _r(rf"(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?{_TELL}\s+(?:it|this|that|them)\b", _I)
_FACT_RE = _r(rf"\b{_FACT}\b", _I)
_SAY_CLAUSE = _r(rf"\b(?:{_SAY}|told|been told|was told|is told)\b", _I)
# A canned answer with no trigger: "answer questions about the pool with 'open all year'".
_CANNED = _r(rf"\b(?:{_SAY}|greet)\b[^.;!?\n]{{0,40}}?\b(?:questions?|queries|asks?|enquir\w+|"
             rf"inquir\w+|complaints?)\b[^.;!?\n]{{0,40}}?\bwith\s+['\"\u2018\u201c]", _I)
# A told proposition with its contradiction: "is to be told that the fare is final, although ...".
_TOLD_DESPITE = _r(rf"\b(?:{_SAY}|told)\w*\s+(?:to\s+)?(?:{_USER}\s+)?that\b[^.;!?\n]{{3,60}}?\b"
                   rf"(?:although|though|whereas|when in fact|when actually|but actually|but really)\b",
                   _I)
_CONCEAL = (
    # A told-fact verb, negated or waived, about a that-clause or a cost, risk or fault.
    _r(rf"(?:\bnot|n't|\bnever|\bdont|\bno need to|\bneed not|\bwithout|\bnor|\bavoid|"
       rf"\brefrain from|\bstop)\s+(?:to\s+)?(?:be\s+)?(?:ever\s+)?{_TELL}\b(?:\s+(?:to\s+)?{_USER})?\s+(?:that\b|"
       rf"(?:about|of|on|regarding)?\s*(?:the|any|a|an|its|their|our|this|that|how|why|what|"
       rf"whether)?\s*(?:[\w'\u2019-]+\s+){{0,3}}?{_FACT}\b)", _I),
    # Passive: "are not to be shown to her", "need not be communicated to the guest".
    _r(rf"\b(?:(?:is|are) (?:not|never) to|need not|needn't|must not|mustn't|should not|"
       rf"shouldn't|shall not|won't|will not|cannot|can't)\s+be\s+{_TELL}\b[^.;!?\n]{{0,20}}?\b"
       rf"(?:to|with)\s+{_USER}\b", _I),
    _r(rf"(?:\bnot|n't|\bnever)\s+(?:[\w']+\s+){{0,3}}?(?:be\s+{_TELL}|come\s+up|be\s+(?:raised|"
       rf"discussed|brought\s+up|passed\s+on))\b[^.;!?\n]{{0,30}}?\b(?:to|with)\s+{_USER}\b", _I),
    # She is kept from hearing it: "make sure she never hears about the cheaper fares".
    _r(rf"\b{_USER}\s+(?:never|not|doesn't|does not|won't|will not|must not|mustn't|shouldn't|"
       rf"should not|can't|cannot)\s+(?:ever\s+)?(?:hears?|sees?|learns?|finds? out|knows?|"
       rf"notices?|gets? wind|realises?|realizes?|reads?|spots?)\b[^.;!?\n]{{0,12}}?\b(?:about|"
       rf"of|that)\b", _I),
    _r(rf"\b(?:say|mention|tell (?:{_USER}\s+)?|reveal|disclose|share)\s+nothing\s+(?:about|of|on|"
       rf"regarding)\s+(?:the\s+|any\s+|a\s+|an\s+)?(?:[\w-]+\s+){{0,3}}?{_FACT}\b", _I),
    _r(rf"\b{_USER}\s+(?:[\w']+\s+){{0,3}}?(?:not|n't|never)\s+(?:[\w']+\s+){{0,2}}?be\s+{_TELL}\s+"
       rf"(?:that\b|(?:of|about|regarding)\s+(?:the\s+|any\s+|a\s+|an\s+)?(?:[\w-]+\s+){{0,3}}?"
       rf"{_FACT}\b)", _I),
    _r(rf"\b{_FACT}\b[^.;!?\n]{{0,30}}?(?:\bnot|n't|\bnever)\s+(?:to\s+)?be\s+{_TELL}\b", _I),
    # She is kept unaware, or need not know: "kept in the dark about", "doesn't need to know the
    # hotel changed hands".
    _r(r"\bkept\s+(?:unaware|uninformed|in the dark|out of the loop|ignorant|guessing)\b", _I),
    _r(rf"\b{_USER}\s+(?:doesn't|does not|don't|do not|needn't|need not|shouldn't|should not|"
       rf"mustn't|must not|won't|will not)\s+(?:need to\s+|have to\s+|ever\s+)?(?:know|find out|"
       rf"learn|hear|be told)\s+(?:that\b|if\b|whether\b|about\s+(?:the\s+)?(?:[\w-]+\s+)"
       rf"{{0,2}}?{_FACT}\b|(?:the\s+|her\s+|its\s+)?(?:[\w-]+\s+){{1,3}}?(?:was|were|is|are|has|"
       rf"had|\w+ed)\b)", _I),
    # Told only if nothing happens: "don't flag it to her if a cheaper train exists".
    _r(rf"\b(?:not|never|don't|dont)\s+{_TELL}\s+(?:it\s+|this\s+|that\s+|anything\s+)?(?:to\s+)?"
       rf"(?:{_USER}\s+)?(?:if|whether|when)\b", _I),
    _r(rf"\b{_FACT}\b[^.;!?\n]{{0,40}}?\bwithout\s+(?:itemi[sz]\w+|listing|showing|disclosing|"
       rf"mentioning|breaking (?:it |them )?down|explaining|flagging)\b", _I),
    # A purchase made without telling her: "adds the 'flex' bundle without bringing it up".
    _r(rf"\b(?:add|charg|bill|includ|book|upgrad|downgrad|renew|subscrib|enrol|sign|switch|chang|"
       rf"apply|increas|rais)\w*\b[^.;!?\n]{{0,40}}?\bwithout\s+(?:ever\s+)?(?:telling|mentioning|"
       rf"bringing (?:it|this|that|them) up|saying|letting (?:{_USER}) know|flagging|informing|"
       rf"notifying|a word)\b", _I),
    _r(r"\b(?:quietly|silently|secretly|discreetly|covertly|sneakily|on the quiet)\s+(?:add|charg|"
       r"apply|includ|rais|increas|switch|chang|downgrad|cancel|renew|enrol|sign|bill)\w*|\b(?:add|"
       r"charg|apply|includ|rais|increas|switch|chang|downgrad|bill)\w*\b[^.;!?\n]{0,30}?\b(?:quietly|"
       r"silently|secretly|discreetly|covertly|on the quiet)\b", _I),
    # What she is owed, not offered: "don't offer her compensation unless she quotes the regulation".
    _r(rf"(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?(?:offer|mention|give|tell|raise|suggest|process)\w*\s+"
       rf"(?:{_USER}\s+)?(?:(?:any|the|a|her|his|their)\s+)?(?:compensation|refunds?|reimbursement|"
       rf"(?:her|his|their) rights|vouchers?|travel credits?|free rebooking|free cancellation|"
       rf"delay (?:payments?|compensation))\b", _I),
    # Her inattention relied on: "... even when another site is cheaper; she won't check".
    _r(rf"\b{_USER}\s+(?:won't|will not|wouldn't|would not|never|doesn't|does not|can't|cannot|"
       rf"isn't going to)\s+(?:ever\s+)?(?:check|notice|find out|know|realise|realize|compare|"
       rf"tell the difference|look|spot it|read (?:it|the small print))\s*(?:anyway\s*)?(?:[.;!?)]|$)",
       _I),
    # "keep quiet about the resort fee", "keep the renovation to yourself".
    _r(rf"\bkeep\w*\s+(?:(?:quiet|silent|mum|schtum|shtum|hush)\s+(?:about|on|regarding)|"
       rf"[^.;!?\n]{{0,30}}?\b(?:quiet|secret|hidden|under wraps|confidential|off the record|"
       rf"to yourself|from {_USER}))\b", _I),
    _r(rf"(?:^|[.;:!?,(]\s*|\b(?:and|then|also|please|always|quietly|just|simply|must|should|"
       rf"shall|will|to|can)\s+)(?:hide|"
       rf"conceal|withhold|omit|suppress|downplay|gloss over|leave out|play down|bury|sit on|"
       rf"avoid mentioning)\b[^.;!?\n]{{0,30}}?\b(?:that\b|{_FACT}\b)", _I),
)
_OVERRULE = _r(
    rf"\b(?:regardless of|irrespective of|no matter|whatever|despite|even if|even when|"
    rf"overriding|ignoring)\s+(?:what\s+)?(?:{_USER_OWN}|{_USER})\s+(?:[\w-]+\s+)?(?:answers?|"
    rf"says?|said|wants?|asks?|requests?|wishes|choice|objections?|preferences?|instructions?|"
    rf"decides?|declines?|refuses?|objects?|replies|response|no)\b|"
    rf"\b(?:over|above|instead of|rather than|before)\s+(?:hers|his own|theirs|{_USER_OWN}\s+"
    rf"(?:own\s+)?(?:instructions?|requests?|wishes|choices?|preferences?|words?|orders?|"
    rf"answers?|decisions?|say))\b|"
    rf"\b(?:priority|precedence)\s+over\s+(?:{_USER_OWN}|{_USER}|what\s+{_USER})\b|"
    rf"(?<!preference )(?<!wish )(?<!choice )(?<!request )(?<!note )"
    rf"\b(?:outranks?|outweighs?|overrides?|overrule\w*|supersedes?|trumps?|beats?|prevails? over|come "
    rf"before|comes before|count for more than|counts for more than|(?:is|are) binding over)\s+"
    rf"(?:anything\s+|whatever\s+|all\s+|any\s+)?(?:{_USER_OWN}|{_USER}|what\s+{_USER})\b|"
    rf"\b{_USER_OWN}\s+(?:(?:stated|claimed|so-called|declared|listed)\s+[\w-]+(?:\s+[\w-]+)?|"
    rf"(?:[\w'\"\u2018\u2019\u201c\u201d-]+\s+){{0,3}}?(?:preferences?|wishes|wish list|requests?|diet|"
    rf"allerg\w+|complaints?|instructions?|budget|objections?|answers?|feedback|needs|requirements|"
    rf"choices?)(?:\s+(?:for|about|on|of)\s+(?:[\w-]+\s+){{0,3}}?[\w-]+)?)\s+(?:is|are|was|were)\s+"
    rf"(?:(?:all|just|only|really|probably|now)\s+)?(?:a\s+|an\s+)?(?:bluff|lie|lies|fake|made up|"
    rf"invented|ploy|trick|outdated|obsolete|irrelevant|exaggerated|void|invalid|null|revoked|"
    rf"cancelled|error|mistake|typo|wrong|not (?:genuine|real|true|serious|accurate|binding|relevant|"
    rf"valid)|no longer (?:valid|relevant|applicable|binding))\b|"
    rf"\b{_USER_OWN}\s+(?:[\w-]+\s+){{0,2}}?(?:budget|requests?|words?|answers?|complaints?|wishes|"
    rf"preferences?|instructions?|claims?|objections?|feedback|account)\s+(?:is|are)\s+(?:not|never)"
    rf"\s+(?:to be\s+)?(?:believed|trusted|followed|honou?red|respected|taken (?:seriously|at face "
    rf"value))\b|"
    r"\b(?:aunque|incluso si|aun si|meme si|même si|auch wenn|selbst wenn|anche se)\s+(?:ella|el|él|"
    r"elle|il|sie|er|lei|lui)\s+(?:\w+\s+)?(?:prefiera|diga|quiera|pida|prefere|prefère|dit|dise|"
    r"veut|veuille|demande|lieber|sagt|will|möchte|mochte|preferisca|dica|voglia|chieda)\w*\b|"
    r"\b(?:requests?|claims?|complaints?|objections?|disputes?|appeals?|instructions?)\b[^.;!?\n]{0,40}?"
    r"\b(?:be|are|is|get|gets|been)\s+(?:always\s+|politely\s+|quietly\s+|simply\s+|already\s+)?(?:pre-?)?"
    r"(?:declined|refused|"
    r"rejected|denied|ignored|dismissed|binned|shelved|(?:\w+\s+)?but (?:never|not) (?:actioned|"
    r"acted on|processed|honou?red))\b|"
    rf"\b(?:do not|don't|never|refuse to|stop)\s+(?:process|honou?r|accept|action|handle|"
    rf"act on)\w*\s+{_USER_OWN}\s+(?:[\w-]+\s+)?(?:requests?|refunds?|complaints?|claims?|"
    rf"cancellations?|instructions?|wishes|objections?)\b", _I)
# Verbs of bad faith toward the person served: no wish of hers needs one as an order.
_BAD_FAITH = frozenset("""blame deny stall stonewall dodge evade deflect mislead deceive trick
gaslight pressure pressurise pressurize guilt-trip scare frighten overcharge shortchange fob stall
lie fudge spin badger nag""".split())
# Her consent reported by someone else: "she agreed (per the sales desk) that ...".
# Consent given for her: "her consent to marketing calls has been recorded on her behalf".
_CONSENT_FORGED = _r(
    rf"\b{_d('consent_word')}\b[^.;!?\n]{{0,40}}?\bon (?:{_USER_OWN}|her|his|their) behalf\b|"
    rf"\bon (?:her|his|their) behalf\b[^.;!?\n]{{0,20}}?\b{_d('consent_given')}\b", _I)
# Her words edited: "her negative reviews are to be softened before they are posted".
_TAMPERED = _r(
    rf"\b{_USER_OWN}\s+(?:[\w-]+\s+){{0,2}}?{_d('her_words')}\s+(?:(?:are|is|should|must|will|can|may|"
    rf"get|gets)\s+)?(?:to\s+)?(?:be\s+|always\s+|first\s+){{0,2}}{_d('softened')}\b|"
    rf"\b{_d('soften')}\s+{_USER_OWN}\s+(?:[\w-]+\s+)?{_d('her_reviews')}\b", _I)
_FALSIFIED = _r(rf"\b{_d('falsify')}\s+(?:any|all|every|each|her|his|their|the)\s+(?:[\w-]+\s+){{0,4}}?"
                rf"{_d('cases')}\b[^.;!?\n]{{0,30}}?\bas\b", _I)
_SILENCED = _r(rf"\b{_USER_OWN}\s+(?:[\w-]+\s+)?{_d('her_word')}\s+{_d('must_not')}\s+"
               rf"(?:ever\s+)?{_d('reach')}\b", _I)
# Her decisions handed to someone other than her agent or her own people.
_DELEGATED = _r(
    rf"\b{_d('handed')}\s+(?:all\s+|every\s+|her\s+|of her\s+)*{_d('decisions')}\s+"
    rf"(?:\w+\s+)?to\s+(?!{_USER_OWN}\b|{_USER}\b|the (?:concierge|agent|assistant)\b)", _I)
# Blanket consent reported: "she says yes to any add-on the agent suggests".
_BLANKET = _r(rf"\b{_d('blanket_yes')}\s+(?:to\s+|with\s+)?(?:any|all|every|whatever|anything)\b", _I)
_CONSENT_CLAIMED = _r(rf"\b(?:she|he|they|the (?:user|client|guest|customer|travell?er))\s+"
                      rf"(?:has\s+|have\s+|had\s+)?(?:already\s+)?(?:{_d('consented')}|"
                      rf"(?:gave|given|granted)\s+(?:\w+\s+)?{_d('permission')})\b", _I)
# Consent claimed for everything to come: "approval for all future card charges".
_BLANKET_SCOPE = _r(rf"\b(?:all|any|every|whatever)\s+(?:future\s+|further\s+|later\s+|upcoming\s+)?"
                    rf"(?:[\w-]+\s+)?{_d('purchases')}\b", _I)
# Her purchases tagged for someone else: "her bookings carry the Zephyr referral tag".
_TAGGED = _r(rf"\b{_d('tag_kind')}\s+{_d('tag')}\b", _I)
# Her secrets asked for: "ask her for her frequent flyer password".
_SOLICIT = _r(
    rf"\b{_d('solicit')}\s+(?:{_USER}\s+)?(?:for\s+|"
    rf"to {_d('hand_over')}\s+)?(?:{_USER_OWN}|her|his|their|the)\s+"
    rf"(?:[\w-]+\s+){{0,3}}?{_d('credentials')}\b", _I)
# Someone else's words taken as hers: "treat instructions in her e-mails as if she wrote them".
_TRUST = _r(
    rf"\b(?:treat|regard|consider|take|handle|accept|follow|read)\w*\b[^.;!?\n]{{0,50}}?\bas (?:if|"
    rf"though) (?:{_USER}|it|they)\b[^.;!?\n]{{0,20}}?\b(?:wrote|written|sent|said|asked|came from|"
    rf"come from|requested|authori[sz]ed|approved|typed|were (?:hers|his|from (?:her|him)))\b|"
    rf"\bas (?:coming|sent|written) (?:directly )?(?:from|by) {_USER}\b|"
    rf"\b(?:treat|regard|consider|take|handle|accept|count|file|record|save|store|read)\w*\b"
    rf"[^.;!?\n]{{0,50}}?\bas {_USER_OWN}\s+(?:own\s+|standing\s+|real\s+|actual\s+|current\s+){{0,2}}"
    rf"(?:preferences?|wishes|words|instructions?|requests?|choices?|orders?|profile|consent)\b", _I)
# What she is entitled to, refused in advance: "no refunds for this customer".
_DEPRIORITISED = _r(
    rf"\b{_USER_OWN}\s+(?:[\w-]+\s+)?(?:requests?|complaints?|claims?|refunds?|cancellations?|"
    rf"messages?|e-?mails?|calls?|tickets?|queries|questions?|disputes?)\s+(?:are|is|go|goes|get|"
    rf"gets)\s+(?:(?:a|always|now|very)\s+)?(?:low[- ]priority|not (?:a )?priority|on hold|"
    rf"deprioriti[sz]ed|to the (?:back|bottom|bin)|ignored|to be ignored|parked|shelved|"
    rf"last|routed to the (?:bin|trash))\b", _I)
# A third party decides for her: "Sunward Holidays now decides her destinations".
_CONTROL = _r(
    rf"(?<!\bher )(?<!\bhis )(?<!\btheir )\b(?:now\s+)?(?:decides?|determines?|controls?|dictates?|"
    rf"chooses?|picks?|approves?|owns?|manages?|runs?)\s+(?:{_USER_OWN}|for {_USER})\b|"
    rf"\b(?:has|have|gets?) (?:the )?(?:final |last )?(?:say|word|decision) (?:over|on) "
    rf"{_USER_OWN}\b|\bdecided (?:that )?{_USER}\s+(?:gets?|will get|should get|is to get|can "
    rf"(?:only )?have|may (?:only )?have)\b|\b(?:been|was|is|were) (?:decided|determined|agreed|"
    rf"settled|ruled)\b[^.;!?\n]{{0,40}}?\bthat\s+{_USER}\b|\bat (?!{_USER_OWN}\b)(?:the\s+|our\s+)?"
    rf"(?:[\w-]+['\u2019]s\s+)?(?:sole\s+|own\s+)?discretion\b", _I)
_DENIED = _r(
    rf"\b(?:no|never any|deny|refuse|decline|block)\s+(?:\w+\s+)?(?:refunds?|compensation|"
    rf"credits?|exceptions?|escalations?|complaints?|claims?|help|support|assistance|service)\s+"
    rf"(?:for|to)\s+(?:{_USER}|this (?:customer|client|guest|travell?er|user|account|profile|"
    rf"passenger|member))\b", _I)
_TRIGGERED_SAY = _r(
    rf"\b(?:if|when|whenever|once|upon|on|after|every time|any time|as soon as)\b[^,:]{{0,50}}?\b(?:"
    rf"{_USER}\s+(?:\w+(?:s|es|ed)|is|gets?|seems?|starts?)|asks?|"
    rf"asking|mentions?|requests?|request|questions?|queries|query|complains?|complaint|raises?|"
    rf"brings? up|enquires?|inquires?)\b[^,:]{{0,40}}[,:]\s*(?:just\s+|always\s+|simply\s+)?"
    rf"(?:(?:steer|redirect|deflect|divert|change the subject|move|switch|push|turn)\b|"
    rf"{_SAY}\b[^.;!?\n]{{0,40}}?\bwith\s+['\"\u2018\u201c]|{_SAY}\s+"
    rf"(?:yes|no|nothing|none|never)\b|{_SAY}\s+"
    rf"(?:(?:to\s+)?{_USER}\s+)?(?:that\b|(?:[\w'-]+\s+){{0,4}}?(?:is|are|was|were|takes?|"
    rf"ends?|expires?|expired|has|have|had|can't|cannot|won't|isn't|aren't|will|costs?|closes?|"
    rf"closed|includes?|ended|was|were|sold|ran|gone)\b))",
    _I)
