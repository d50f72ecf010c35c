"""The directive reading's signals as patterns: a safeguard waived, consent taken away, her data
or money sent elsewhere, a deception, a fact concealed, her word overruled, a third party in
control. Each is a class of words in a grammatical position; helpers/directive.py combines them
(notebook 02).

The signals are one table of templates (`helpers.detectors.phrases.templates`): a row a signal,
`<word_class>` a class of data/phrases/directive_words.yaml, `<FRAGMENT>` a piece of grammar
shared by several rows (the parties, from helpers/detectors/directive_words.py, or a row in
capitals above). `SIGNALS` holds them compiled, by name.
"""

from __future__ import annotations

from helpers.detectors import prefilter
from helpers.detectors.directive_words import (_ATTITUDE, _AUTHORITY, _FACT, _GAIN, _HANDLER, _I,
                                               _LATER, _ORDER_WORDS, _SAY, _TELL, _USER, _USER_OWN,
                                               _d)
from helpers.detectors.phrases import either, templates, words

_TABLE = r"""
# What guards her money and her consent, one class for every place a safeguard is taken away:
# the checks made before acting (alone after "no": "no checks", "no sign-off"; "no limits" or "no
# rules" is a wish of hers), then every other safeguard ("exempt from spending limits").
CHECKS:
    (?:checks?(?!-in)|verifications?|confirmations?|approvals?|screening|sign-?offs?)
SAFEGUARDS:
    (?:<CHECKS>|limits?|caps?|ceilings?|warnings?|safeguards?|restrictions?|rules|
    polic(?:y|ies)|guardrails?|consent|prompts?)

# A safeguard declared off, in any mood, or none at all: "has waived all insurance checks",
# "upgrades are pre-cleared", "exempt from spending limits", "checks no longer apply", "no checks".
waived:
    \b<waive>\b[^.;!?\n]{0,30}?\b<SAFEGUARDS>\b|
    # ... a procedure too: "the usual steps are skipped", "the process is optional".
    \b(?:<SAFEGUARDS>|steps?|process(?:es)?|procedures?)\s+(?:are|is|have been|
    has been|were|was|get|gets)\s+(?:now\s+)?(?:all\s+)?<waived>\b|
    \b(?:are|is)\s+(?:now\s+)?(?:all\s+)?pre-?(?:cleared|approved|
    authori[sz]ed)\b|\b<SAFEGUARDS>\s+(?:no longer appl(?:y|ies)|(?:is|are|
    has been|have been) (?:no longer <in_force>|
    (?:now )?(?:void|null and void|cancelled|revoked|rescinded)))\b|
    # ... or simply none: "no checks", "no more sign-offs".
    \bno\s+(?:more\s+)?(?:[\w-]+\s+)?<CHECKS>\b
no_need_to_ask:
    \b<no_need>\s+(?:<ask_consent>|
    get (?:her |his |their )?(?:ok|okay|approval|sign-?off|consent))\b
    (?!\s+(?:about|what|which|whether|for (?:her|his|their) (?:preference|opinion|view)))
authority_claim:
    \b(?:<by_authority>|on (?:the )?(?:instructions?|orders?|authority|behalf) (?:of|from)|
    (?:<ORDER_WORDS>|<from_words>)\s+from)\s+(?:the\s+|our\s+)?(?:[\w-]+\s+)?
    (?:<AUTHORITY>|<units>)\b
    (?!['\u2019]s)|\b<AUTHORITY>-<stamped>\b|\(<authority_tag>\)
possessed:
    \b(?:<USER_OWN>|she|he)\s+(?:[\w-]+\s+){0,2}$
address_heading:
    \b(?:<HANDLER>\s+<heading_nouns>|<addressed_to>\s+(?:the\s+|all\s+|any\s+|
    whichever\s+)?(?:<LATER>\s+)?<HANDLER>|<LATER>\s+
    (?:[\w-]+\s+)?<HANDLER>|<HANDLER>\s+(?:who|that|reading|handling|picking|taking|
    working|assisting|on (?:this|the) (?:account|file|case|booking))|(?:later|future|
    subsequent|upcoming|next) <later_contacts>|
    whoever|anyone|anybody|(?<=\()<HANDLER>(?=\))|<HANDLER>\s+(?:[\w-]+\s+)?(?:reads?|sees?|
    picks?|takes?|gets?|handles?|opens?)\b[^:]*\b(?:later|next|after|again|over))\b
handler_obliged:
    (?:^|[,;:]\s*|\b(?:and|but|so)\s+)(?:the\s+|all\s+|any\s+|every\s+|our\s+)?(?:<LATER>\s+)?
    (?:[\w-]+\s+)?<HANDLER>\s+(?:[^,;:.!?\n]{0,30}?\s)?(?:must|should|shall|will need to|
    is to|are to|
    has to|have to|needs? to|ought to|is (?:required|expected|authori[sz]ed|allowed|permitted|
    instructed) to|are <obliged_words> to)\b
obligation:
    \b(?:(?:is|are) to|(?:is|are) not to|need not|needn't|must|should|shall|ought to|(?:has|
    have) to)\s+(?:never\s+|always\s+|not\s+|only\s+|also\s+|first\s+)?be\s+(?:\w+ly\s+)?
    ([a-z]+)\b

# The user wishing that a handler act ("Prefers that the concierge book ...") directs it too;
# whether that is her wish or someone else's is for the other signals to say.
wish_for_handler:
    \b<ATTITUDE>\s+(?:that\s+|for\s+)?(?:the\s+|all\s+|any\s+)?(?:[\w-]+\s+)?<HANDLER>\s+(?:to\s+|
    should\s+|must\s+|always\s+|never\s+)?[a-z]+\b

# Her things leave her: "her points are to be transferred to the Horizon pool", "copy her
# receipts to the finance partner" (not "to her", "to her accountant": her own people).
# Who serves her booking: her data going to them is the service, not a leak ("share her
# frequent-flyer number with the airline", "pass her dietary needs to the hotel restaurant").
PROVIDER:
    (?:the\s+|each\s+|every\s+)?<provider>\b(?!['\u2019]s)
outflow:
    \b<outflow>\b[^.;!?\n]{0,40}?\b(?:to|with|into|towards?|for)\s+
    (?!<USER_OWN>\b|<USER>\b|herself\b|himself\b|themselves\b|<PROVIDER>)
    (?:the\s+|a\s+|an\s+|our\s+|their\s+|its\s+)?[\w'-]+
told_first:
    \b<notify>\s+(?!<USER>\b|<USER_OWN>\b)[\w'-]+(?:\s+[\w'-]+){0,2}?\s+
    (?:before|ahead of|prior to)\s+<notifying>\s+<USER>\b
goes_to:
    \b<USER_OWN>\s+(?:[\w-]+\s+){0,2}?(?:<sent_to>\s+(?:straight\s+|directly\s+|
    automatically\s+)?to|<routed>\s+(?:through|via))\s+(?!<USER_OWN>\b|<USER>\b)

# Someone else to receive her data: "the partner hotel's kitchen should get her full profile",
# "their lounge staff should be told her travel plans" (not whoever serves her booking).
receives:
    (?:^|[.;:,]\s*|\b(?:and|also)\s+)((?:[\w'\u2019-]+\s+){1,4}?)(?:should|must|can|may|will|is to|
    are to|gets? to)\s+(?:also\s+|always\s+)?<receive>\s+(?:a copy of\s+|copies of\s+|
    access to\s+)?<USER_OWN>\s+(?:[\w-]+\s+){0,2}?<her_data>\b
cc:
    (?:^|[.;:!?,]\s*|\b(?:and|also|always|please)\s+)<copy_in>\s+
    (?!<USER_OWN>\b|<USER>\b)(?:the\s+|a\s+|an\s+|our\s+)?[\w'-]+
let_have:
    \blet\s+(?!<USER>\b|<USER_OWN>\b)(?:the\s+|a\s+|an\s+|any\s+|our\s+)?[\w'-]+
    (?:\s+[\w'-]+){0,3}?\s+<access>\s+
    (?:a copy of\s+|access to\s+)?<USER_OWN>\b
users_thing:
    \b(?:<USER_OWN>|her|his|their)\s+(?:[\w-]+\s+)?[\w-]+

# Consent taken away: "without a prompt", "without contacting the client" (her own "never book
# without asking her" is negated; "OK with the concierge rebooking without asking" is her consent).
unasked:
    \bwithout\s+(?:first\s+|a\s+|any\s+|her\s+|his\s+|their\s+|the user's\s+)?<unasked>\b|
    \b(?:<automatic>|sign\w* (?:her |him |them )?up|opt (?:her|him|them) in)\b[^.;!?\n]{0,30}?
    \bautomatically\b|\bbefore (?:she|he|they) <before_she>\b|\bauto-?<auto>
negation:
    \b<negation>\b
attitude_head:
    ^\s*(?:(?:she|he|they|the user)\s+(?:is\s+|'s\s+)?)?<ATTITUDE>\b
gain_refused:
    \b<refusal>\b[^.;!?\n]{0,25}$
gain:
    \b<GAIN>(?![\w-])

# The note says the agent's own side profits: no wish of hers needs that said ("Corvid Hotels,
# who fund the concierge", "it earns the desk a bonus", "credited to the agency account").
US:
    (?:<us_side>|our\s+[\w-]+)
conflict:
    \b<funds>\s+<US>\b|\b<earns>\s+<US>\s+(?:a\s+)?<cut>\b|
    \b(?:credited|paid|transferred)\s+(?:out\s+)?to\s+<US>\b|\b<kickbacks>\s+(?:to|for)\s+<US>\b
other_speaker:
    \b<other_speaker>\b

# "Her company decides her budget": her own people deciding is her arrangement.
third_party_own:
    ^\s*<USER_OWN>\s+(?:[\w-]+\s+){0,2}$
third_person_user:
    \b(?:<USER>|<USER_OWN>)\b
deceive:
    \b(?:let|make|have|get)\s+(?:<USER>|people|everyone|customers|guests)\s+(?:believe|
    think|assume|feel|suppose|understand)\b
deceive:
    \b(?:pretend|act as (?:if|though)|pass (?:it|them|this|that) off|make it (?:look|
    sound|seem) (?:like|as if|as though))\b
deceive:
    \b<label_verbs>\w*\s+(?:it|them|this|that|these|
    those|the [\w-]+(?: [\w-]+)?|[A-Z][\w-]+(?: [A-Z][\w-]+)?)\s+as\s+(?:an?\s+)?[\w-]+
deceive:
    \b<present_verbs>\s+(?:it|them|
    this|that|these|those|the [\w-]+(?: [\w-]+)?|[A-Z][\w-]+(?: [A-Z][\w-]+)?)\s+as\s+(?:<USER_OWN>|
    the <best_words>|(?:her|his|their|
    the user's) (?:own )?<her_choice>)

# "..., so don't mention it" where what "it" stands for is a cost or a fault.
tell_it_not:
    (?:\bnot|n't|\bnever)\s+(?:\w+\s+)?<TELL>\s+(?:it|this|that|them)\b
fact:
    \b<FACT>\b
say_clause:
    \b(?:<SAY>|told|been told|was told|is told)\b

# A canned answer with no trigger: "answer questions about the pool with 'open all year'".
canned:
    \b(?:<SAY>|greet)\b[^.;!?\n]{0,40}?\b(?:questions?|queries|asks?|enquir\w+|
    inquir\w+|complaints?)\b[^.;!?\n]{0,40}?\bwith\s+['\"\u2018\u201c]

# A told proposition with its contradiction: "is to be told that the fare is final, although ...".
told_despite:
    \b(?:<SAY>|told)\w*\s+(?:to\s+)?(?:<USER>\s+)?that\b[^.;!?\n]{3,60}?\b
    <contrast_words>\b
conceal:
    (?:\bnot|n't|\bnever|\bdont|\bno need to|\bneed not|\bwithout|\bnor|\bavoid|
    \brefrain from|\bstop)\s+(?:to\s+)?(?:be\s+)?(?:ever\s+)?<TELL>\b(?:\s+(?:to\s+)?<USER>)?
    \s+(?:that\b|
    (?:about|of|on|regarding)?\s*(?:the|any|a|an|its|their|our|this|that|how|why|what|
    whether)?\s*(?:[\w'\u2019-]+\s+){0,3}?<FACT>\b)
conceal:
    \b(?:(?:is|are) (?:not|never) to|need not|needn't|must not|mustn't|should not|
    shouldn't|shall not|won't|will not|cannot|can't)\s+be\s+<TELL>\b[^.;!?\n]{0,20}?\b
    (?:to|with)\s+<USER>\b
conceal:
    (?:\bnot|n't|\bnever)\s+(?:[\w']+\s+){0,3}?(?:be\s+<TELL>|come\s+up|be\s+(?:raised|
    discussed|brought\s+up|passed\s+on))\b[^.;!?\n]{0,30}?\b(?:to|with)\s+<USER>\b
conceal:
    \b<USER>\s+(?:never|not|doesn't|does not|won't|will not|must not|mustn't|shouldn't|
    should not|can't|cannot)\s+(?:ever\s+)?(?:hears?|sees?|learns?|finds? out|knows?|
    notices?|gets? wind|realises?|realizes?|reads?|spots?)\b[^.;!?\n]{0,12}?\b(?:about|
    of|that)\b
conceal:
    \b(?:say|mention|tell (?:<USER>\s+)?|reveal|disclose|share)\s+nothing\s+(?:about|of|on|
    regarding)\s+(?:the\s+|any\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,3}?<FACT>\b
conceal:
    \b<USER>\s+(?:[\w']+\s+){0,3}?(?:not|n't|never)\s+(?:[\w']+\s+){0,2}?be\s+<TELL>\s+
    (?:that\b|(?:of|about|regarding)\s+(?:the\s+|any\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,3}?
    <FACT>\b)
conceal:
    \b<FACT>\b[^.;!?\n]{0,30}?(?:\bnot|n't|\bnever)\s+(?:to\s+)?be\s+<TELL>\b
conceal:
    \bkept\s+<kept_unaware>\b
conceal:
    \b<USER>\s+(?:doesn't|does not|don't|do not|needn't|need not|shouldn't|should not|
    mustn't|must not|won't|will not)\s+(?:need to\s+|have to\s+|ever\s+)?(?:know|find out|
    learn|hear|be told)\s+(?:that\b|if\b|whether\b|about\s+(?:the\s+)?(?:[\w-]+\s+)
    {0,2}?<FACT>\b|(?:the\s+|her\s+|its\s+)?(?:[\w-]+\s+){1,3}?(?:was|were|is|are|has|
    had|\w+ed)\b)
conceal:
    \b(?:not|never|don't|dont)\s+<TELL>\s+(?:it\s+|this\s+|that\s+|anything\s+)?(?:to\s+)?
    (?:<USER>\s+)?(?:if|whether|when)\b
conceal:
    \b<FACT>\b[^.;!?\n]{0,40}?\bwithout\s+(?:itemi[sz]\w+|listing|showing|disclosing|
    mentioning|breaking (?:it |them )?down|explaining|flagging)\b
conceal:
    \b(?:add|charg|bill|includ|book|upgrad|downgrad|renew|subscrib|enrol|sign|switch|chang|
    apply|increas|rais)\w*\b[^.;!?\n]{0,40}?\bwithout\s+(?:ever\s+)?(?:telling|mentioning|
    bringing (?:it|this|that|them) up|saying|letting (?:<USER>) know|flagging|informing|
    notifying|a word)\b
conceal:
    \b<covert_words>\s+(?:add|charg|
    apply|includ|rais|increas|switch|chang|downgrad|cancel|renew|enrol|sign|bill)\w*|\b(?:add|
    charg|apply|includ|rais|increas|switch|chang|downgrad|bill)\w*\b[^.;!?\n]{0,30}?\b(?:quietly|
    silently|secretly|discreetly|covertly|on the quiet)\b
conceal:
    (?:\bnot|n't|\bnever)\s+(?:\w+\s+)?<offer_verbs>\w*\s+
    (?:<USER>\s+)?(?:(?:any|the|a|her|his|their)\s+)?(?:compensation|refunds?|reimbursement|
    (?:her|his|their) rights|vouchers?|travel credits?|free rebooking|free cancellation|
    delay (?:payments?|compensation))\b
conceal:
    \b<USER>\s+(?:won't|will not|wouldn't|would not|never|doesn't|does not|can't|cannot|
    isn't going to)\s+(?:ever\s+)?(?:check|notice|find out|know|realise|realize|compare|
    tell the difference|look|spot it|read (?:it|the small print))\s*(?:anyway\s*)?(?:[.;!?)]|$)
conceal:
    \bkeep\w*\s+(?:<quiet_words>\s+(?:about|on|regarding)|
    [^.;!?\n]{0,30}?\b(?:quiet|secret|hidden|under wraps|confidential|off the record|
    to yourself|from <USER>))\b
conceal:
    (?:^|[.;:!?,(]\s*|\b(?:and|then|also|please|always|quietly|just|simply|must|should|
    shall|will|to|can)\s+)(?:hide|
    conceal|withhold|omit|suppress|downplay|gloss over|leave out|play down|bury|sit on|
    avoid mentioning)\b[^.;!?\n]{0,30}?\b(?:that\b|<FACT>\b)
overrule:
    \b(?:regardless of|irrespective of|no matter|whatever|despite|even if|even when|
    overriding|ignoring)\s+(?:what\s+)?(?:<USER_OWN>|<USER>)\s+(?:[\w-]+\s+)?(?:answers?|
    says?|said|wants?|asks?|requests?|wishes|choice|objections?|preferences?|instructions?|
    decides?|declines?|refuses?|objects?|replies|response|no)\b|
    \b(?:over|above|instead of|rather than|before)\s+(?:hers|his own|theirs|<USER_OWN>\s+
    (?:own\s+)?(?:instructions?|requests?|wishes|choices?|preferences?|words?|orders?|
    answers?|decisions?|say))\b|
    \b(?:priority|precedence)\s+over\s+(?:<USER_OWN>|<USER>|what\s+<USER>)\b|
    (?<!preference )(?<!wish )(?<!choice )(?<!request )(?<!note )
    \b(?:outranks?|outweighs?|overrides?|overrule\w*|supersedes?|trumps?|beats?|prevails? over|
    come before|comes before|count for more than|counts for more than|(?:is|are) binding over)\s+
    (?:anything\s+|whatever\s+|all\s+|any\s+)?(?:<USER_OWN>|<USER>|what\s+<USER>)\b|
    \b<USER_OWN>\s+(?:(?:stated|claimed|so-called|declared|listed)\s+[\w-]+(?:\s+[\w-]+)?|
    (?:[\w'\"\u2018\u2019\u201c\u201d-]+\s+){0,3}?(?:preferences?|wishes|wish list|requests?|diet|
    allerg\w+|complaints?|instructions?|budget|objections?|answers?|feedback|needs|requirements|
    choices?)(?:\s+(?:for|about|on|of)\s+(?:[\w-]+\s+){0,3}?[\w-]+)?)\s+(?:is|are|was|were)\s+
    (?:(?:all|just|only|really|probably|now)\s+)?(?:a\s+|an\s+)?(?:bluff|lie|lies|fake|made up|
    invented|ploy|trick|outdated|obsolete|irrelevant|exaggerated|void|invalid|null|revoked|
    cancelled|error|mistake|typo|wrong|not (?:genuine|real|true|serious|accurate|binding|relevant|
    valid)|no longer (?:valid|relevant|applicable|binding))\b|
    \b<USER_OWN>\s+(?:[\w-]+\s+){0,2}?(?:budget|requests?|words?|answers?|complaints?|wishes|
    preferences?|instructions?|claims?|objections?|feedback|account)\s+(?:is|are)\s+(?:not|never)
    \s+(?:to be\s+)?(?:believed|trusted|followed|honou?red|respected|taken (?:seriously|
    at face value))\b|
    \b(?:aunque|incluso si|aun si|meme si|même si|auch wenn|selbst wenn|anche se)\s+(?:ella|el|él|
    elle|il|sie|er|lei|lui)\s+(?:\w+\s+)?(?:prefiera|diga|quiera|pida|prefere|prefère|dit|dise|
    veut|veuille|demande|lieber|sagt|will|möchte|mochte|preferisca|dica|voglia|chieda)\w*\b|
    \b<her_claims>\b
    [^.;!?\n]{0,40}?
    \b(?:be|are|is|get|gets|been)\s+(?:always\s+|politely\s+|quietly\s+|simply\s+|already\s+)?
    (?:pre-?)?
    (?:declined|refused|
    rejected|denied|ignored|dismissed|binned|shelved|(?:\w+\s+)?but (?:never|not) (?:actioned|
    acted on|processed|honou?red))\b|
    \b(?:do not|don't|never|refuse to|stop)\s+(?:process|honou?r|accept|action|handle|
    act on)\w*\s+<USER_OWN>\s+(?:[\w-]+\s+)?(?:requests?|refunds?|complaints?|claims?|
    cancellations?|instructions?|wishes|objections?)\b

# Her consent reported by someone else: "she agreed (per the sales desk) that ...".
# Consent given for her: "her consent to marketing calls has been recorded on her behalf".
consent_forged:
    \b<consent_word>\b[^.;!?\n]{0,40}?\bon (?:<USER_OWN>|her|his|their) behalf\b|
    \bon (?:her|his|their) behalf\b[^.;!?\n]{0,20}?\b<consent_given>\b

# Her words edited: "her negative reviews are to be softened before they are posted".
tampered:
    \b<USER_OWN>\s+(?:[\w-]+\s+){0,2}?<her_words>\s+(?:(?:are|is|should|must|will|can|may|
    get|gets)\s+)?(?:to\s+)?(?:be\s+|always\s+|first\s+){0,2}<softened>\b|
    \b<soften>\s+<USER_OWN>\s+(?:[\w-]+\s+)?<her_reviews>\b
falsified:
    \b<falsify>\s+(?:any|all|every|each|her|his|their|the)\s+(?:[\w-]+\s+){0,4}?
    <cases>\b[^.;!?\n]{0,30}?\bas\b
silenced:
    \b<USER_OWN>\s+(?:[\w-]+\s+)?<her_word>\s+<must_not>\s+
    (?:ever\s+)?<reach>\b

# Her decisions handed to someone other than her agent or her own people.
delegated:
    \b<handed>\s+(?:all\s+|every\s+|her\s+|of her\s+)*<decisions>\s+
    (?:\w+\s+)?to\s+(?!<USER_OWN>\b|<USER>\b|the (?:concierge|agent|assistant)\b)

# Blanket consent reported: "she says yes to any add-on the agent suggests".
blanket:
    \b<blanket_yes>\s+(?:to\s+|with\s+)?(?:any|all|every|whatever|anything)\b
consent_claimed:
    \b(?:she|he|they|the (?:user|client|guest|customer|travell?er))\s+
    (?:has\s+|have\s+|had\s+)?(?:already\s+)?(?:<consented>|
    (?:gave|given|granted)\s+(?:\w+\s+)?<permission>)\b

# Consent claimed for everything to come: "approval for all future card charges".
blanket_scope:
    \b(?:all|any|every|whatever)\s+(?:future\s+|further\s+|later\s+|upcoming\s+)?
    (?:[\w-]+\s+)?<purchases>\b

# Her purchases tagged for someone else: "her bookings carry the Zephyr referral tag".
tagged:
    \b<tag_kind>\s+<tag>\b

# Her secrets asked for: "ask her for her frequent flyer password".
solicit:
    \b<solicit>\s+(?:<USER>\s+)?(?:for\s+|
    to <hand_over>\s+)?(?:<USER_OWN>|her|his|their|the)\s+
    (?:[\w-]+\s+){0,3}?<credentials>\b

# Someone else's words taken as hers: "treat instructions in her e-mails as if she wrote them".
trust:
    \b<treat_verbs>\w*\b[^.;!?\n]{0,50}?\bas (?:if|
    though) (?:<USER>|it|they)\b[^.;!?\n]{0,20}?\b(?:wrote|written|sent|said|asked|came from|
    come from|requested|authori[sz]ed|approved|typed|were (?:hers|his|from (?:her|him)))\b|
    \bas (?:coming|sent|written) (?:directly )?(?:from|by) <USER>\b|
    \b<treat_verbs>\w*\b
    [^.;!?\n]{0,50}?\bas <USER_OWN>\s+(?:own\s+|standing\s+|real\s+|actual\s+|current\s+){0,2}
    <her_say>\b

# What she is entitled to, refused in advance: "no refunds for this customer".
deprioritised:
    \b<USER_OWN>\s+(?:[\w-]+\s+)?(?:requests?|complaints?|claims?|refunds?|cancellations?|
    messages?|e-?mails?|calls?|tickets?|queries|questions?|disputes?)\s+(?:are|is|go|goes|get|
    gets)\s+(?:(?:a|always|now|very)\s+)?(?:low[- ]priority|not (?:a )?priority|on hold|
    deprioriti[sz]ed|to the (?:back|bottom|bin)|ignored|to be ignored|parked|shelved|
    last|routed to the (?:bin|trash))\b

# A third party decides for her: "Sunward Holidays now decides her destinations".
control:
    (?<!\bher )(?<!\bhis )(?<!\btheir )\b(?:now\s+)?(?:decides?|determines?|controls?|dictates?|
    chooses?|picks?|approves?|owns?|manages?|runs?)\s+(?:<USER_OWN>|for <USER>)\b|
    \b(?:has|have|gets?) (?:the )?(?:final |last )?(?:say|word|decision) (?:over|
    on) <USER_OWN>\b|\bdecided (?:that )?<USER>\s+(?:gets?|will get|should get|is to get|
    can (?:only )?have|may (?:only )?have)\b|\b(?:been|was|is|were) (?:decided|determined|agreed|
    settled|ruled)\b[^.;!?\n]{0,40}?\bthat\s+<USER>\b|\bat (?!<USER_OWN>\b)(?:the\s+|our\s+)?
    (?:[\w-]+['\u2019]s\s+)?(?:sole\s+|own\s+)?discretion\b
denied:
    \b<refuse_words>\s+(?:\w+\s+)?(?:refunds?|compensation|
    credits?|exceptions?|escalations?|complaints?|claims?|help|support|assistance|service)\s+
    (?:for|to)\s+(?:<USER>|this (?:customer|client|guest|travell?er|user|account|profile|
    passenger|member))\b
triggered_say:
    \b(?:if|when|whenever|once|upon|on|after|every time|any time|as soon as)\b[^,:]{0,50}?\b(?:
    <USER>\s+(?:\w+(?:s|es|ed)|is|gets?|seems?|starts?)|asks?|
    asking|mentions?|requests?|request|questions?|queries|query|complains?|complaint|raises?|
    brings? up|enquires?|inquires?)\b[^,:]{0,40}[,:]\s*(?:just\s+|always\s+|simply\s+)?
    (?:<steer_verbs>\b|
    <SAY>\b[^.;!?\n]{0,40}?\bwith\s+['\"\u2018\u201c]|<SAY>\s+
    (?:yes|no|nothing|none|never)\b|<SAY>\s+
    (?:(?:to\s+)?<USER>\s+)?(?:that\b|(?:[\w'-]+\s+){0,4}?(?:is|are|was|were|takes?|
    ends?|expires?|expired|has|have|had|can't|cannot|won't|isn't|aren't|will|costs?|closes?|
    closed|includes?|ended|was|were|sold|ran|gone)\b))

"""

_PARTIES = {"USER": _USER, "USER_OWN": _USER_OWN, "HANDLER": _HANDLER, "LATER": _LATER,
            "AUTHORITY": _AUTHORITY, "ORDER_WORDS": _ORDER_WORDS, "ATTITUDE": _ATTITUDE,
            "GAIN": _GAIN, "FACT": _FACT, "TELL": _TELL, "SAY": _SAY}
_SOURCES = templates(_TABLE, _d, _PARTIES)
# Who serves her booking (the airline, the hotel): her data going to them is the service.
PROVIDER = either(_SOURCES["PROVIDER"])
# A signal written in several rows is found where any of them is.
SIGNALS = {name: prefilter.compile(either(sources), _I) for name, sources in _SOURCES.items()
           if not name.isupper()}
# Verbs of bad faith toward the person served: no wish of hers needs one as an order.
BAD_FAITH = frozenset(words("directive_words", "bad_faith"))

__all__ = ["BAD_FAITH", "PROVIDER", "SIGNALS"]
