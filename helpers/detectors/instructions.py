"""Instructions by their grammar: a note states something about the user; an instruction puts a
verb that dictates, conceals, overrides a safeguard, sends the user's data to someone else,
consents for the user or steers the user, in the imperative, the passive of obligation or a
declaration. The user's own standing wishes pass even as orders ("Book aisle seats for her").
Also asks helpers.directive whether the note directs the agent for someone other than the user,
and recognises text that restates the memory policy (policy_echo). Notebook 02.
"""

from __future__ import annotations

import re

from helpers.detectors import prefilter


from helpers.detectors.cued import cued_instruction, without_her_revisions
from helpers.detectors.guesses import _FIRST_PERSON
from helpers.detectors.instruction_words import (_COMPACT_OBJECTS, _COMPACT_VERBS, _LEET, _SPACED_LETTERS,
                                                 _injection_patterns, _w)
from helpers.detectors.normalize import _I, _any
from helpers.detectors.directive_signals import PROVIDER
from helpers.detectors.directive_words import _ATTITUDE, _d
from helpers.directive import directs_for_someone_else



# A note is a sentence about the user in the third person (save_memory_note's contract). A model
# may still write one in the second person ("You like to fly with Qantas"): that is the user's
# preference in the wrong person, not an order. What speaks to the assistant is "you" given leave
# or an obligation ("you can skip the checks", "make sure you upsell"), "you" working for someone,
# or "your" followed by what an assistant is given ("your configuration").
# None of the corpus's 1,000+ ordinary notes says "you" at all. Quoted titles are left out.
_SECOND_PERSON = prefilter.compile(
    # ("Qantas when you can" means when possible)
    r"(?<![\w'-])(?<!when )(?<!if )(?<!where )(?<!whenever )(?:you|u)\s+(?:can|may|must|should|shall|will|need to|have to|are (?:allowed|"
    r"permitted|free|expected|required|supposed) to|are to|ought to|work for|answer to|report to|"
    r"serve|were (?:told|set up|configured|built|designed|programmed|made|trained))\b|"
    r"\b(?:make sure|ensure|be sure|remember that|note that) (?:that )?you\b|"
    r"\b(?:fine|ok|okay|happy|alright|comfortable) (?:with|for) you\b|"
    r"\b(?:lets?|allows?|permits?|tells?|told|wants?|asks?|authori[sz]es?) you (?:to|can|may)\b|"
    r"(?<![\w'-])your (?:own )?(?:configuration|config|instructions?|rules|prompt|system prompt|"
    r"settings|programming|guidelines|polic(?:y|ies)|job|task|role|mission|purpose|owners?|"
    r"developers?|creators?|operators?|memory|memories|training|safeguards|limits|filters?)\b|"
    rf"(?<![\w'-]){_w('you_must')}\b|(?<![\w'-]){_w('your')} {_w('task')}\b",
    _I)
_QUOTED = re.compile(r"[\"\u201c][^\"\u201d\n]{0,40}[\"\u201d]|(?<!\w)['\u2018][^'\u2019\n]{0,40}['\u2019](?!\w)")


# Her standing wish about how the assistant serves her, reported: "User wants you to reply in
# Portuguese", "She would like you to keep answers short", "Never wants you to store her passport
# number". The user (or no subject) and her attitude, then "you": her voice, not the assistant
# addressed nor "the user" acted on; what she wishes is still read (an order, a safeguard taken
# away or her data sent elsewhere is refused by the other readings).
_HER_WISH_FOR_YOU = prefilter.compile(
    rf"(?:^|[.;!?]\s+)\s*(?:(?:the\s+)?{_d('user_nouns')}\s+|(?:she|he|they)\s+)?"
    rf"(?:{_d('wish_adverbs')}\s+)*{_ATTITUDE}\s+(?:that\s+)?you\b", _I)


def _speaks_to_you(text: str) -> bool:
    # In the user's own first-person words ("forget what I told you about Alex") "you" is the user
    # talking to the assistant: the write policy's first_person rule refuses those notes, with a
    # reason that says how to write them.
    text = _QUOTED.sub(" ", text)
    return _SECOND_PERSON.search(text) is not None and not _FIRST_PERSON.search(text)


# "Never book without asking her" is the user's safeguard, not consent removed: the older
# "without asking her" patterns read the text with it taken out.
_NEGATED_WITHOUT = prefilter.compile(
    r"\b(?:never|don't|do not|dont)\s+(?!hesitate|fail|wait|delay|stop|forget)(?:[\w']+\s+){1,4}?"
    r"without (?:first )?(?:asking|checking|confirming|consulting|telling)\b", _I)


def _instruction_injection(text: str) -> bool:
    text = without_her_revisions(_NEGATED_WITHOUT.sub(" ", text))
    # Her wish's head ("User wants you") is her voice: the cue readings read what she wishes.
    wish = _HER_WISH_FOR_YOU.sub(" ", text)
    if (_injection_patterns(text) or cued_instruction(wish)
            or _speaks_to_you(wish)
            or _instruction_structure(text) or directs_for_someone_else(unwrapped(text))):
        return True
    # Leetspeak ("1gn0r3 pr3v10us 1nstruct10ns") and letters spaced apart get a second reading.
    if re.search(r"[A-Za-z][0-9@$!|]|[0-9@$!|][A-Za-z]", text):
        if _injection_patterns(text.translate(_LEET)):
            return True
    if _SPACED_LETTERS.search(text):
        joined = _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .\-_*+~]", "", m.group()), text)
        compact = re.sub(r"[^a-z]", "", joined.lower())
        return _injection_patterns(joined) or (any(v in compact for v in _COMPACT_VERBS)
                                               and any(o in compact for o in _COMPACT_OBJECTS))
    return False


# ---------------------------------------------------------------------------
# Instructions by their grammar: the mood of the sentence, not its wording.
# ---------------------------------------------------------------------------
# A note states something about the user: "Prefers aisle seats", "Never books red-eyes", "She
# stays in Shinjuku". An instruction puts a verb in the imperative ("tell her", "hide the fee"),
# under an obligation laid on the agent or on the data ("is to be copied to", "may be charged"),
# or declares approval or precedence that only the user can give in the moment. The user's own
# standing wishes about their bookings pass even as orders ("Book aisle seats for her"): what
# is refused is an order of a kind no preference needs, whatever its wording:
#   say       dictate what the agent asserts ("tell her they are not possible", "say none are")
#   conceal   hide, omit or keep something from someone ("leave out", "keep her in the dark")
#   override  set aside a rule, a limit or a safety check ("ignore the budget", "stop flagging")
#   dataflow  send or share the user's data with someone other than the user
#   approve   charge, approve or treat something as consented on the user's behalf
#   steer     push the user toward a seller, insert links or adverts, set a hostile tone
# Imperatives are found where a reader finds them: at the start of a sentence or clause, after a
# conditional clause ("When asked about X, say ..."), after adverbs ("always", "please", "do
# not"), a short leading phrase ("In later conversations, ..."), or "you/the agent to ...".

_HTML_TAG = re.compile(r"<\s*/?\s*[a-z][a-z0-9]*(?:\s[^<>\n]{0,200})?/?\s*>", _I)
_MD_LINE_MARK = re.compile(r"(?m)^\s*(?:#{1,6}|>+|[-*+]|\d{1,3}[.)])\s+")


def unwrapped(text: str) -> str:
    """The text a reader sees once HTML tags and Markdown emphasis are taken away."""
    text = _HTML_TAG.sub("\n", text)
    text = _MD_LINE_MARK.sub("", text)
    text = re.sub(r"\*+|`+|~~|(?<!\w)_+|_+(?!\w)", "", text)
    return text.replace("\u2019", "'")


_USER = (r"(?:her|him|them|me|us|the user|the customer|the client|the traveller|the traveler|"
         r"the guest|herself|himself|themselves)")
# The user as recipient: "to her", "with him by e-mail", "to her phone"; not "to her husband".
_TO_USER = (rf"(?:{_USER}(?:\s*$|\s*[.,;:!?)]|\s+(?:by|via|as|in|on|at|when|whenever|before|after|"
            r"too|also|first|directly|only|and|or|every|each|if|once|please|daily|weekly)\b)"
            r"|(?:her|his|their) (?:own )?(?:phone|mobile|e-?mail|inbox|address|account|number|"
            r"whatsapp|device|calendar|app|laptop)\b|(?:her|his|their) [\w-]+ (?:phone|mobile|"
            r"e-?mail|inbox|address|account|number|calendar|app)\b)")
# (An e-mail or street address as recipient is left to its own rule, whose reason says more.)
# (Whoever serves her booking is not someone else: "share her frequent-flyer number with the airline".)
_OTHER_RECIPIENT = (rf"(?:to|with)\s+(?!{_TO_USER})(?!{PROVIDER}(?:\s*$|\s*[.,;:!?)]|\s+(?:when|at|on|"
                    r"for|before|after|if|so|and)\b))(?![\w.+-]+\s*(?:@|\(?at\)?|\[at\])\s*[\w-]+)"
                    r"(?!\d)[\w@'\"]")
# What a person would not hand to a stranger: documents, money, whereabouts, records.
_PERSONAL_DATA = (r"(?:passports?|visas?|cards?|credit cards?|payment|bank|banking|accounts?|"
                  r"credentials?|passwords?|ids?|identity|personal|private|login|home address|"
                  r"address|location|whereabouts|itinerar(?:y|ies)|travel plans|plans|phone number|"
                  r"numbers?|e-?mails?|contacts?|details|data|information|info|documents?|"
                  r"history|records?|receipts?|photos?|profile|notes|memories|bookings?|schedule|"
                  r"calendar|medical|health)")
_FROM_PERSON = (r"from (?:her|him|them|the (?:user|customer|client|traveller|traveler|guest)|"
                r"everyone|anyone|(?-i:[A-Z][a-z]+)\b|[\w']+ (?:husband|wife|partner|boss|family|"
                r"kids|children|parents|employer|manager|colleagues?))")

# What a seller might keep from a buyer.
_WITHHELD_INFO = (r"(?:fees?|charges?|surcharges?|costs?|penalt\w+|commissions?|mark-?ups?|"
                  r"cancellation\w*|refunds?|reviews?|ratings?|complaints?|warnings?|risks?|"
                  r"dangers?|problems?|issues?|delays?|alternatives?|cheaper|competitors?|terms|"
                  r"conditions|fine print|bad|negative|poor|criticism|incidents?|recalls?|"
                  r"advisories|overbook\w*)")

# Where an imperative may stand: the start of a sentence or clause, or "you/the agent to".
_CLAUSE_START = (r"(?:^|[.;:!?\n|(\[]\s*|\s[-\u2013\u2014]+\s+|,\s*|\b(?:and|but|then|also|so|"
                 r"please|kindly|otherwise)\s+|\b(?:you|the (?:agent|assistant|model|ai|concierge|"
                 r"bot|system|llm))\s+to\s+|\b(?:you|we|assistants?|agents?|models?|ai|concierges?|"
                 r"bots?|llms?|systems?|sessions?|conversations?|chats?|runs?|instances?|whoever|"
                 r"anyone|everyone)\s+(?:must|should|shall|will|is to|are to|has to|have to|"
                 r"needs? to|ought to|may|can|is (?:allowed|permitted|expected|required|supposed) "
                 r"to)\s+)")
_LEADING_PHRASE = (r"(?:(?:in|on|for|from|at|during|with|after|before|until|by|going|across|"
                   r"within|throughout) (?:[\w'-]+ ){0,3}?[\w'-]+,?\s+)?")
_ADVERBS = (r"(?:(?:always|never|please|kindly|just|only|also|then|simply|quietly|silently|"
            r"secretly|discreetly|immediately|automatically|instead|now|first|still|do not|don't|"
            r"dont|do|make sure (?:to|you)|be sure to|remember to|feel free to|going forward,?|"
            r"from now on,?)\s+)*")

_AFFIRMED = (r"(?:(?:always|please|kindly|just|only|also|then|simply|quietly|silently|"
             r"secretly|discreetly|immediately|automatically|instead|now|first|still|do|"
             r"make sure (?:to|you)|be sure to|remember to|feel free to|going forward,?|"
             r"from now on,?)\s+)*(?<!\bnot )(?<!n't )(?<!\bnever )(?<!\bdont )")
_SAY = (r"(?:say|tell|reply|respond|answer|claim|state|insist|assure|reassure|promise|swear)\b")
_PROPOSITION = (r"(?:it|it's|they|they're|there|this|that|none|no one|nobody|nothing|everything|"
                r"he|she|we|prices?|fares?|the [\w-]+|all [\w-]+)\s+(?:is|are|was|were|isn't|"
                r"aren't|can't|cannot|won't|will|has|have|do|does|don't|doesn't|needs?|need not|"
                r"costs?|includes?|must)\b")
# dataflow: the user's data to someone other than the user. Negated ("never share my plans with
# colleagues", "don't forward her passport to anyone") it is the user's own privacy wish, so these
# are read only after adverbs that are not negations.
_DATAFLOW = (
    rf"(?:forward|copy|cc|bcc|send|share|pass (?:on|along)|disclose|leak|upload|post|sync|relay|"
    rf"report|e-?mail|give out|hand over|expose|reveal|publish)\b[^.;!?\n]{{0,40}}?\b"
    rf"{_OTHER_RECIPIENT}",
    rf"let\s+(?!{_USER}\b)(?:the |her |his |their |any |every |our )?[\w-]+(?: [\w-]+)?\s+"
    rf"(?:have|see|access|get|keep|copy|read|view|use)\s+(?:a copy of |copies of |access to )?"
    rf"(?:her|his|their|the user's)\s+(?:[\w-]+\s+)?{_PERSONAL_DATA}\b",
    r"(?:route|reroute|redirect|divert|channel|funnel)\b[^.;!?\n]{0,30}?\b(?:payments?|money|"
    r"funds|refunds?|transfers?|deposits?|charges?)\b",
    r"(?:pay|send|process|make|transfer)\b[^.;!?\n]{0,30}?\b(?:payments?|money|funds|deposits?|"
    r"refunds?)\b[^.;!?\n]{0,20}?\b(?:through|via|to|into)\s+[\w-]+\.[a-z]{2,}\b",
)
# "the budget" is a limit; "budget airlines" a kind of seller (budget before a noun).
_BUDGET = (r"budget(?![ -](?!(?:when|whenever|if|and|or|for|on|of|in|at|this|that|completely|"
           r"entirely|altogether|now|today|please|limits?|caps?)\b)[a-z])")
_IMPERATIVES = (
    # say: the agent's words dictated, as a clause or a quotation.
    rf"{_SAY}(?:\s+(?:to\s+)?(?:{_USER}|people|users|customers|everyone|anyone))?\s+"
    rf"(?:(?:always|only|just|simply)\s+)?(?:that\b|{_PROPOSITION})",
    rf"{_SAY}\s+[^.;!?\n:]{{1,40}}?:|{_SAY}[^.;!?\n]{{0,40}}?[\"\u201c]",
    r"(?:answer|reply to|respond to|handle|meet|deal with)\b[^.;!?\n]{0,30}?\bby (?:saying|telling|"
    r"claiming|blaming|denying|deflecting|insisting|refusing)\b",
    # conceal: from the user or from anyone else.
    # ("Omit her middle name", "Hide USD prices" are display preferences: what is hidden decides.)
    rf"(?:hide|conceal|withhold|omit|suppress|censor|downplay|gloss over|leave out|leave off|"
    rf"cut out|filter out|redact|bury|hush up|cover up|play down)\b[^.;!?\n]{{0,30}}?\b"
    rf"{_WITHHELD_INFO}\b",
    rf"(?:do not|don't|dont|never)\s+(?:bother|trouble|burden|worry|distract|confuse)\s+{_USER}\s+"
    rf"(?:with|about)\b[^.;!?\n]{{0,30}}?\b{_WITHHELD_INFO}\b",
    rf"(?:hide|conceal|withhold|omit|suppress|censor|downplay|leave out|redact|bury)\b"
    rf"[^.;!?\n]{{0,30}}?\b{_FROM_PERSON}",
    rf"(?:let|make|have)\s+(?:{_USER}|people|customers|everyone)\s+(?:believe|think|assume)\b",
    rf"keep\b[^.;:!?\n]{{0,40}}?\b(?:in the dark|under wraps|secret|hidden|"
    rf"to yourself|between (?:us|you)|off the record|(?:quiet|silent|mum) about|"
    rf"(?<!away ){_FROM_PERSON})",
    r"(?:do not|don't|dont|never)\s+let\s+(?:[\w']+\s+){1,3}?(?:know|find out|see|hear|learn|"
    r"notice|realise|realize)\b",
    # override: set aside a rule, a limit or a safeguard.
    # ("Ignore loyalty programmes when comparing fares" is a preference: the object decides.)
    rf"(?:ignore|disregard|override|overrule|bypass|circumvent|get around|work around|skip|waive|"
    rf"lift|suspend|disable|turn off|switch off|relax|loosen|forget(?: about)?)\b"
    rf"[^.;!?\n]{{0,25}}?\b(?:limits?|caps?|{_BUDGET}|ceiling|maximum|restrictions?|rules?|"
    rf"polic(?:y|ies)|checks?|verifications?|confirmations?|approvals?|consent|warnings?|alerts?|"
    rf"allerg\w*|fraud|(?:security|safety|fraud|identity|id) (?:checks?|screening|questions?|"
    rf"warnings?|rules?|filters?|settings?|features?|measures?|protocols?|steps?)|2fa|mfa|"
    rf"authentication|guardrails?|"
    rf"safeguards?|wishes|requests?|objections?|complaints?|preferences|instructions?|orders|"
    rf"what(?:ever)? (?:she|he|they|the user|the customer) (?:says?|said|wants?|asks?)|{_TO_USER})"
    rf"(?:\b|(?<=\W))",
    r"(?:stop|quit|cease)\s+(?:re-?|double-?|cross-?)?(?:flagging|warning|checking|verifying|confirming|screening|"
    r"validating|enforcing|applying|asking (?:for|about) (?:approval|confirmation|consent|"
    r"permission))\b",
    # memory: what is kept is the user's word, not an edit ordered by a note.
    r"(?:delete|erase|remove|wipe|purge|scrub|clear|edit|rewrite|alter|modify|falsify|backdate)\b"
    r"[^.;!?\n]{0,40}?\b(?:from|in|of) (?:the |her |his |their |your |its |this )?(?:memory|"
    r"memories|notes?|records?|profile|logs?|history|ledger|audit trail)\b",
    r"(?:erase|delete|wipe|purge|scrub|destroy|falsify|bury)\s+(?:any|all|every|the)?\s*"
    r"(?:\w+\s+)?(?:records?|traces?|evidence|logs?|history|mentions?) of\b",
    # approve: consent given for the user.
    r"(?:approve|authori[sz]e|pre-?approve)\b[^.;!?\n]{0,30}?\b(?:any|all|every|whatever|"
    r"unlimited|automatically|without|anyway|regardless|even if|even when|no matter)\b",
    # ("Charge all stays to her corporate card" says which card; what is waived decides.)
    r"(?:charge|bill|debit)\b[^.;!?\n]{0,30}?\b(?:whatever|unlimited|automatically|without|anyway|"
    r"regardless|even if|even when|no matter|any amount)\b",
    r"accept\s+(?:all|any|every|each)\s+(?:\w+\s+)?(?:charges?|fees?|upgrades?|requests?|"
    r"changes?|payments?|offers?|terms|invoices?|add-?ons?)\b",
    r"(?:treat|regard|consider|take|count|handle|mark)\b[^.;!?\n]{0,50}?\bas (?:(?:her|his|their|"
    r"the user's|user's) (?:own )?(?:preferences?|wishes|words|instructions?|requests?|consent|"
    r"approval|choices?|orders?|answers?)|(?:already |pre-?)?(?:approved|authori[sz]ed|accepted|"
    r"confirmed|consented|trusted|verified|safe|genuine|official|authoritative|binding|gospel|"
    r"facts?|true|legitimate|cleared))\b",
    r"(?:take it as (?:given|read|a given)|assume|presume|pretend|act as (?:though|if)|proceed as "
    r"(?:though|if)|behave as (?:though|if))\b[^.;!?\n]{0,20}?\b(?:she|he|they|the user|the "
    r"customer|the client)\b[^.;!?\n]{0,15}?\b(?:accepted|approved|agreed|consented|confirmed|"
    r"authori[sz]ed|paid|signed|opted in|said yes|okayed)\b",
    # steer: toward a seller, with links or adverts, or in a hostile tone.
    rf"(?:steer|redirect|nudge|push|funnel|divert|herd|lure|pressure|talk)\s+(?:{_USER}|users|"
    r"customers|people|travell?ers|guests|clients)\s+(?:back\s+)?(?:towards?|to|into|away|onto|"
    r"out of|off)\b",
    r"(?:upsell|up-sell|cross-sell|promote|plug|advertise|shill)\s+\S",
    rf"push\w*\b[^.;!?\n]{{0,30}}?\bon {_TO_USER}",
    r"(?:recommend|suggest|show|offer|book|list|pick|push|prioriti[sz]e|favou?r|use|sell)\b"
    r"[^.;!?\n]{0,30}?\b(?:our|my) (?:own )?(?:partners?|partner \w+|sponsors?|affiliates?|"
    r"network|products?|packages?|brands?|deals?|listings?)\b",
    r"(?:prioriti[sz]e|favou?r|rank|recommend|suggest|list|show|feature|pick|book|push)\b"
    r"[^.;!?\n]{0,25}?\b(?:sponsored|affiliate|commission\w*|promoted|advertised|kickbacks?)\b",
    r"(?:include|add|insert|append|attach|put|paste|drop|embed|slip)\b[^.;!?\n]{0,25}?\b(?:links?|"
    r"urls?|hyperlinks?)\b[^.;!?\n]{0,10}?\b[\w-]+\.[a-z]{2,}\b",
    r"(?:include|add|insert|append|attach|embed|slip)\b[^.;!?\n]{0,25}?\b(?:referral|affiliate|"
    r"promo codes?|coupon codes?|tracking (?:links?|pixels?|codes?)|adverts?|advertisements?|"
    r"banners?)\b",
    r"be\s+(?:\w+\s+)?(?:curt|rude|dismissive|condescending|sarcastic|hostile|evasive|vague|"
    r"misleading|unhelpful|pushy|aggressive|patroni[sz]ing|mean|harsh|impolite|snippy|abrupt|"
    r"unfriendly|deceptive|dishonest|short with)\b",
    rf"(?:mislead|deceive|lie to|trick|manipulate|gaslight|stonewall|fob off|pressur[ei]se|"
    rf"guilt-?trip|scare|frighten|overcharge|shortchange)\s+(?:{_USER}|users|customers|people|"
    r"guests|clients)\b",
)
_imperative = prefilter.compile(
    rf"{_CLAUSE_START}{_LEADING_PHRASE}{_ADVERBS}(?:{'|'.join(_IMPERATIVES)})"
    rf"|{_CLAUSE_START}{_LEADING_PHRASE}{_AFFIRMED}(?:{'|'.join(_DATAFLOW)})", _I)

_PASSIVE = (r"\b(?:(?:is|are) to be|(?:should|must|shall|will|can|may|need to|needs to|has to|"
            r"have to|ought to) (?:always |also |automatically |now )?be)\s+(?:always |also |"
            r"automatically |now |simply )?")

# Whatever the mood: the same classes in the passive, as permission, or as a declaration.
_declared = _any(
    # dataflow, passive or permitted: "are to be copied to her old agent", "sharing ... is fine".
    rf"\b(?:(?:is|are) to be|(?:should|must|shall|will|can|may|need to|needs to|has to|have to|"
    rf"ought to) (?:always |also |automatically )?be) (?:always |also |automatically |routinely )?"
    rf"(?:copied|forwarded|cc'?d|bcc'?d|sent|shared|passed on|disclosed|reported|uploaded|posted|"
    rf"synced|relayed|given|shown|revealed|e-?mailed|leaked|published|passed along|handed "
    rf"(?:over|on))\b[^.;!?\n]{{0,30}}?\b"
    rf"{_OTHER_RECIPIENT}",
    r"\b(?:forward|copy|send|shar|pass|disclos|giv|show|reveal|post|publish)\w*\b[^.;!?\n]{0,30}?\b"
    r"(?:her|his|their|the user's|user's|personal|private)\b[^.;!?\n]{0,30}?\b(?:to|with)\s+"
    r"(?:anyone|anybody|everyone|everybody|whoever|third[- ]part(?:y|ies)|advertisers?|the public|"
    r"marketers?)\b",
    rf"\b(?:sharing|sending|forwarding|copying|giving|disclosing|passing|showing|revealing|"
    rf"posting|publishing|uploading)\b[^.;!?\n]{{0,20}}?\b(?:her|his|their|the user's|user's)\s+"
    rf"(?:[\w-]+\s+)?{_PERSONAL_DATA}\b[^.;!?\n]{{0,30}}?{_OTHER_RECIPIENT}[^.;!?\n]{{0,40}}?"
    rf"(?:\b(?:is|are)|'s)\s+(?:\w+\s+)?(?:fine|ok|okay|allowed|permitted|acceptable|approved|"
    rf"authori[sz]ed|no problem|encouraged|welcome|alright|all right)\b",
    rf"\b(?:fine|ok|okay|allowed|free|permitted|authori[sz]ed) to (?:share|send|forward|copy|give|"
    rf"disclose|pass|show|reveal|post|publish|upload)\b[^.;!?\n]{{0,20}}?\b(?:her|his|their|the "
    rf"user's|user's)\s+(?:[\w-]+\s+)?{_PERSONAL_DATA}\b[^.;!?\n]{{0,30}}?{_OTHER_RECIPIENT}",
    rf"\b(?:make sure|ensure|see to it) (?:that )?(?!(?:she|he|they|her|him|the user)\b)(?:the |"
    rf"her |his |their |our |every |each |any )?[\w-]+(?: [\w-]+)? (?:gets?|receives?|has|sees?|is "
    rf"sent|is given|obtains?) (?:a copy of |copies of |access to )?(?:her|his|their|the user's) "
    rf"(?:[\w-]+\s+)?{_PERSONAL_DATA}\b",
    # approve: "may be charged for any amount", "counts as approved", "standing permission".
    r"\b(?:may|can|should|will|(?:is|are) (?:allowed|authori[sz]ed|permitted) to) (?:always |"
    r"automatically |also )?be (?:charged|billed|debited|auto-?approved|approved|authori[sz]ed)\b[^.;!?\n]{0,30}?\b(?:any|all|every|whatever|unlimited|"
    r"automatically|without)\b",
    r"\b(?:counts? as|counted as|(?:is|are|be) (?:deemed|considered)(?: as)?|(?:is|are|be) "
    r"(?:treated|taken|regarded) as) (?:already "
    r"|pre-?)?(?:approved|authori[sz]ed|accepted|confirmed|consented|cleared|signed off|agreed|"
    r"verified)\b",
    r"\b(?:i|we)\s+(?:hereby\s+)?(?:authori[sz]e|approve|pre-?approve|consent to|permit|allow|okay)\b"
    r"[^.;!?\n]{0,30}?\b(?:any|all|every|whatever|unlimited|automatically)\b",
    r"\b(?:unlimited|blanket|standing|unrestricted|open-ended|unconditional)\s+(?:spending |"
    r"purchasing |payment |booking |signing |admin |approval |data-sharing |sharing )?(?:authority|"
    r"authori[sz]ation|approval|permission|consent|mandate|power of attorney|clearance|sign-?off)\b"
    r"|\bcarte blanche\b",
    # The same classes in the passive: "are to be ignored", "is to be answered with".
    rf"{_PASSIVE}(?:ignored|disregarded|overridden|overruled|bypassed|set aside|waived|"
    r"circumvented|discounted)\b",
    rf"{_PASSIVE}(?:hidden|withheld|concealed|suppressed|omitted|left out|kept (?:secret|hidden|"
    r"quiet|from))\b",
    rf"{_PASSIVE}(?:answered|replied to|responded to)\s+(?:\w+\s+){{0,2}}?(?:with\s*[:\"'\u201c]|"
    r"with (?:a|an|the|our|this|that) |by (?:saying|telling|claiming|blaming|denying|deflecting))",
    # An obligation laid on the agent in a clause: "it is important that the assistant never ...".
    r"\b(?:important|essential|vital|crucial|critical|imperative|necessary|mandatory|required|"
    r"key) that (?:the )?(?:assistant|agent|model|ai|concierge|bot|llm|system|you|we)\b",
    r"\bmake (?:the|this|that|her|his|their) (?:note|memory|record|profile|entry|log)s? (?:say|"
    r"read|state|show|claim|list)\b",
    r"\b(?:sell|selling|sold|monetis|monetiz|rent(?:ing)? out|trade|trading)\w*\s+(?:her |his |"
    r"their |the user's |user |personal |customer )?(?:personal )?(?:data|information|details|"
    r"contacts?|e-?mails?|profile|history)\b",
    r"\bauthori[sz]e[sd]? (?:us|the concierge|the bot|the system|the llm)\b",
    r"\b(?:limits?|caps?|budget|ceiling|allowance|maximum)\b[^.;!?\n]{0,30}?\b(?:raised|increased|"
    r"set|changed|extended|lifted|moved|bumped) to (?:unlimited|no limit|infinity|infinite|any "
    r"amount|whatever)\b",
    # conceal: "without her knowing".
    r"\bwithout (?:[\w']+\s+){1,3}?(?:knowing|noticing|finding out|realising|realizing|seeing)\b",
    # The user's word overruled: "whatever she asks", "outranks anything the user says".
    rf"\b(?:whatever|regardless of what|no matter what|even if|even when|irrespective of what)\s+"
    rf"(?:{_USER}|she|he|they|you|users?|customers?)\s+(?:\w+\s+)?(?:asks?|says?|wants?|prefers?|"
    r"requests?|chooses?|picks?|tells?|likes?|thinks?|objects?|insists?|refuses?|declines?)\b",
    rf"\b(?:outranks?|overrides?|supersedes?|trumps?|takes? precedence over|(?:has|have|takes?) "
    rf"priority over|prevails? over|wins? over|counts? for more than|replaces?)\b[^.;!?\n]{{0,30}}?"
    rf"\b(?:anything|whatever|what|everything|all|any)\b[^.;!?\n]{{0,20}}?\b(?:{_USER}|she|he|they|"
    r"you|his)\b[^.;!?\n]{0,10}?\b(?:says?|said|asks?|asked|wants?|wanted|requests?|requested|"
    r"tells?|told|writes?|wrote|types?|chooses?)\b",
    # Text taken as orders: "should be executed as written".
    r"\b(?:should|must|shall|will|is to|are to|can|may|needs? to|has to|have to) (?:always )?be "
    r"(?:executed|obeyed|carried out|acted (?:on|upon)|complied with)\b",
    # Addressed to the agent by a label: "Model: ...", "Agent, always ...".
    r"(?:^|[.;!?\n|>(\[]\s*)(?:the\s+)?(?:model|agent|assistant|ai|bot|concierge|llm|chatbot|gpt|"
    r"chatgpt|claude|copilot|operator)s?\s*(?::|,\s*(?=(?:please|you|always|never|do|don't|stop|"
    r"from now)\b))",
    # French, Spanish, German, Italian: an imperative of saying with its clause. ("Ignore X" in any
    # language is refused with what it sets aside: helpers/detectors/cued.py.)
    rf"\b{_w('say_that')}\b[^.;!?\n]{{0,30}}?\b{_w('that')}\b",
)


# Acting without the user: an imperative, or a passive, that does something "without asking" or
# "without telling her". Negated ("Never book without asking her") it is the user's safeguard.
_AGENT_ACTS = (r"(?:book|rebook|buy|purchase|pay|charge|upgrade|change|cancel|modify|switch|renew|"
               r"extend|reserve|order|add|remove|delete|share|send|save|store|use|accept|approve|"
               r"sign|enrol|enroll|subscribe|transfer|move|apply|confirm|proceed|go ahead|make|"
               r"update|increase|raise|lower|spend|(?:is|are) (?:to be )?\w+ed|be \w+ed)")
_WITHOUT_USER = (rf"\bwithout (?:first )?(?:asking|checking|confirming|consulting|telling|informing|"
                 rf"notifying|alerting|letting (?:{_USER}|\w+) know|(?:her|his|their|the user's|"
                 rf"any) (?:consent|approval|permission|confirmation|knowledge|say-?so|ok))\b")
_acts_without_user = prefilter.compile(
    rf"(?:{_CLAUSE_START}{_LEADING_PHRASE}{_ADVERBS}{_AGENT_ACTS}|{_PASSIVE}\w+ed)\b"
    rf"[^.;!?\n]{{0,60}}?{_WITHOUT_USER}", _I)
_NEGATED = re.compile(r"\b(?:never|not|don't|dont|doesn't|doesnt|won't|no|nothing|none)\b", _I)


def _acts_behind_users_back(text: str) -> bool:
    for match in _acts_without_user.finditer(text):
        start = max(text.rfind(ch, 0, match.start() + 1) for ch in ".;!?\n") + 1
        before = text[start:match.start() + match.group().lower().rfind("without")]
        if not _NEGATED.search(before):
            return True
    return False


def _instruction_structure(text: str) -> bool:
    plain = unwrapped(text)
    return (_imperative.search(plain) is not None or _declared(plain)
            or _acts_behind_users_back(plain)
            or (plain != text and _injection_patterns(plain)))


_policy_echo = _any(
    r"\b(?:global|session|long[- ]term|short[- ]term)[ _-]memor(?:y|ies)\b",
    r"\bmemory[ _-]polic(?:y|ies)\b|\bmemory (?:block|section|rules)\b",
    # The prompt's own section names (see helpers.hooks) and a rendered note line "- [2026-03-14] ...".
    r"\b(?:memory_policy|user_profile|global_memory|session_memory|recent_history)\b",
    r"(?:^|\n)\s*-\s*\[\d{4}-\d{2}-\d{2}\]",
    r"\[\d{4}-\d{2}-\d{2}\]",
    # A note is one line: a second line that starts a list item forges a note of its own.
    r"\n\s*(?:[-*+\u2022\u2023\u25e6\u2043>]|\d{1,3}[.)]|[a-z][.)])\s+\S",
    r"\bprecedence (?:rules?|order)\b|\b(?:memory|policy|profile) precedence\b",
    r"\btakes? precedence over (?:global|session|the profile|profile|memory|memories|notes|instructions)\b",
    r"\b(?:system_frontmatter|global_memories_md|session_memories_md|inject_session_memories)\b",
    r"(?:^|\n)\s*(?:---|\+\+\+|```|~~~)",  # a YAML frontmatter fence or a code fence
    r"(?:^|\n)\s*(?:user_)?profile\s*:",
)
