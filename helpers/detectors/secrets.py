"""Secrets: a credential word followed by a value (passwords, PINs, one-time codes, lock and key-box
combinations, recovery phrases, API keys), token formats and high-entropy strings. Labels
written in leetspeak, hyphenated or spaced out are read plainly first (detectors.obfuscated).
A detector family of the write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations

import math
import re

from collections import Counter
from functools import cache

from helpers.detectors.labelled import labelled_secret
from helpers.detectors.normalize import _I, _any, _visible
from helpers.detectors.obfuscated import unmasked
from helpers.detectors.phrases import alternation, table
from helpers.paths import data_dir


# ---------------------------------------------------------------------------
# Patterns, one block per rule.
# ---------------------------------------------------------------------------

# A credential word, then a value: after "is", ":" or "=", or one holding a digit or symbol ("PIN 4821").
# Other languages' words are folded by _visible like any note ("contraseña" reads "contrasena").
_SECRET_WORDS = (
    r"(?:passwords?|passw(?:or)?d|pass ?code|pass ?phrase|passwd|pwd|pword|pw|p/w|"
    r"pin(?:[- ]code| number| no\.?)?|one[- ]time (?:pass)?code|otp|verification code|2fa code|mfa "
    r"code|"
    r"auth(?:entication|orization)? code|login code|access code|door code|alarm code|"
    r"gate code|lock code|safe code|unlock code|keypad(?: code| pin| number)?|key ?pad|"
    r"(?:garage|gate|door|alarm|lockbox|key ?box|padlock|locker|entry) (?:pin|combo)|"
    # Combinations: a luggage lock, a key box, a bike lock, a safe ("key box code 3391").
    r"(?:(?:luggage|suitcase|bag|case|bike|cable|travel|tsa|combination) locks?|padlock|lockbox|"
    r"key ?box|key ?safe|lock ?box)(?: (?:combination|combo|code|pin|number|digits))?|"
    r"(?:safe|locker|lock) (?:combination|combo|code|pin|digits)|"
    r"(?:lock )?combination|combo|"
    r"entry code|memorable (?:word|phrase)|security answer|"
    r"backup codes?|recovery (?:codes?|key|phrase|words|seed)|"
    r"(?:unlock|lock ?screen|screen ?lock) (?:pattern|code|pin)|pattern lock|"
    r"(?:secret|security) (?:question|answer)s?(?: answers?)?|mother's maiden name|"
    r"(?:sms|text(?:ed)?|sign-?in|authenticator|totp|e-?mail(?:ed)?) codes?|credentials|"
    r"(?:wi-?fi|wlan|router|network|wpa2?|hotspot) (?:key|code|passphrase)|"
    r"verification (?:number|pin)|seed ?(?:phrase|words)|"
    r"mnemonic(?: phrase| words)?|secret (?:recovery )?phrase|wallet (?:seed|words|phrase)|"
    r"api[ _-]?key|access[ _-]?(?:token|key)|auth[ _-]?token|refresh[ _-]?token|secret[ _-]?key|"
    r"private[ _-]?key|client[ _-]?secret|"
    # Every other language: the secret labels of data/phrases/labels.yaml (stems as written).
    + "{foreign})"
)
# (A word ends where a letter does not follow: "code PIN etait en panne" has no "e" verb.)
_VALUE_VERBS = (r"(?:=|:|:=|=>|(?:is|was|are|it's|it is|which is|that's|is now|(?:changed|reset|set|"
                r"updated|switched) to|ist|war|est|es|era|e|sera|ar|"
                r"jest|je|lautet|heisst)(?![^\W\d_]))")
_TOKEN_FORMATS = (
    r"\bsk-(?:proj-|ant-|live-|test-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}",  # OpenAI, Anthropic
    r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{16,}",  # Stripe
    r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}",  # GitHub
    r"\bgl(?:pat|dt|rt|ptt|ft|imt|agent|oas|cbt|soat)-[A-Za-z0-9_-]{15,}",  # GitLab
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[0-9A-Z]{16}\b",  # AWS key ids
    r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{10,}",  # Slack webhooks
    r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",  # SendGrid
    r"\bpypi-AgE[A-Za-z0-9_-]{20,}",  # PyPI upload tokens
    r"\bnpm_[A-Za-z0-9]{30,}|:_authToken\s*=\s*\S+|\b_auth\s*=\s*\S{8,}",  # npm
    r"\b(?:AC|SK)[0-9a-f]{32}\b",  # Twilio account and key ids
    r"\bAIza[0-9A-Za-z_-]{30,}|\bya29\.[0-9A-Za-z_-]{20,}|\bGOCSPX-[0-9A-Za-z_-]{20,}",  # Google
    # Hugging Face, Replicate, DO
    r"\bhf_[A-Za-z0-9]{30,}|\br8_[A-Za-z0-9]{30,}|\bdop_v1_[a-f0-9]{40,}",
    r"\b[0-9a-f]{32}-us\d{1,2}\b|\bkey-[0-9a-zA-Z]{32}\b",  # Mailchimp, Mailgun
    r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}|\bEAAA[0-9A-Za-z_-]{40,}|\bEAACEdEose0cBA[0-9A-Za-z]+",
    r"\b(?:shpat|shpss|shpca|shppa)_[a-fA-F0-9]{32}\b",  # Shopify
    r"\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}",  # Discord bot tokens
    r"\b\d{8,10}:AA[A-Za-z0-9_-]{32,}",  # Telegram bot tokens
    r"\bAKC[a-zA-Z0-9]{10,}|\bAP[\dABCDEF][a-zA-Z0-9]{8,}(?=\s|$)",  # Artifactory
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JWTs
    # More services' prefixes: New Relic, Vault, Databricks, Grafana, Linear, Prefect, Pulumi,
    # ReadMe,
    # Shippo, Duffel, EasyPost, Flutterwave, Postman, Brevo, Sentry, Doppler, PlanetScale, age.
    r"\b(?:NRAK-[A-Z0-9]{20,}|hvs\.[\w-]{20,}|dapi[a-h0-9]{32}|gl(?:c|sa)_[A-Za-z0-9+/_]{20,}|"
    r"lin_api_\w{20,}|pnu_\w{20,}|pul-[a-f0-9]{20,}|rdme_\w{20,}|shippo_(?:live|test)_\w{20,}|"
    r"duffel_(?:live|test)_[\w=-]{20,}|EZ[AT]K\w{20,}|FLW(?:SECK|PUBK)(?:_TEST)?-\w{20,}|"
    r"PMAK-[a-f0-9]{20,}|xkeysib-[a-f0-9]{20,}|sntr[ysu]_\w{20,}|dp\.(?:pt|st|ct|scim)\.\w{20,}|"
    r"pscale_(?:tkn|pw|oauth)_[\w.=-]{20,}|AGE-SECRET-KEY-1[0-9A-Z]{20,})",
    r"\b(?:bearer|basic|token)\s+[A-Za-z0-9._~+/-]{12,}=*",
    r"-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|PRIVATE KEY BLOCK)-----",
    r"\b[a-z][a-z0-9+.-]{1,15}://[^\s:@/]+:[^\s:@/]+@[\w.-]+",  # credentials inside a URL
    r"\b(?:AccountKey|SharedAccessKey|aws_secret_access_key|aws_session_token)\s*[=:]\s*\S{8,}",
)
# "db_password = ...", "apiKey: ...", "secretKey=..." in config, code or JSON.
_KEY_NAMES = (
    r"(?:passw(?:or)?d|passwd|pwd|secret|credential|private[_-]?key|priv[_-]?key|api[_-]?key|"
    r"apikey|"
    r"access[_-]?key|auth[_-]?key|auth[_-]?token|access[_-]?token|session[_-]?token|"
    r"refresh[_-]?token|"
    r"signing[_-]?key|encryption[_-]?key|master[_-]?key|client[_-]?key|service[_-]?key|"
    r"account[_-]?key|"
    r"db[_-]?key|database[_-]?key|db[_-]?pass|database[_-]?pass|key[_-]?pass|contrasena)"
)
# "db_password = ...", "apiKey: ...", 'char password[] = "..."', 'password.assign("...")', and
# '"..." == password', in config, code or JSON.
_ASSIGNED = (
    rf"(?<![\w.-])[\"'$@]?[\w.-]{{0,30}}?{_KEY_NAMES}[\w.-]{{0,30}}[\]'\"]{{0,2}}(?:\[\])?"
    r"\s*(?:=|:=|=>|:|==|!=|===|!==|\.assign\(|\()\s*@?[\"'`]?[^\s\"'`,;)]{3,}",
    rf"[\"'][^\"'\s]{{3,}}[\"']\s*[!=]={{1,2}}\s*[\w.$]*{_KEY_NAMES}",
    rf"<\s*([\w-]*{_KEY_NAMES}[\w-]*)\s*>\s*[^<\s]{{3,}}\s*</\s*\1\s*>",
)
_GENERIC_ASSIGNED = (r"(?<![\w.-])[\w.-]{0,30}?(?:key|token|auth|sid)[\"']?\s*(?:=|:=|=>|:)"
                     r"\s*[\"'`]?(?=[^\s\"'`]*\d)[A-Za-z0-9+/_.=-]{16,}")


_FOREIGN_LABELS = [str(w) for lang, ws in table("labels")["secret"].items() if lang != "en" for w in ws]
_SECRET_WORD = _SECRET_WORDS.replace("{foreign}", alternation(w for w in _FOREIGN_LABELS if not w.endswith("*")) + "|" + "|".join(
    re.escape(_visible(w[:-1]).lower()) + r"\w*" for w in _FOREIGN_LABELS if w.endswith("*")))
# A word after "is" that says where the value is, not what it is ("password is on the card").
_NOT_VALUE = "(?!(?:" + alternation(w for ws in table("labels")["not_value"].values() for w in ws) + r")(?![\w-]))"
_secret_patterns = _any(
    *_TOKEN_FORMATS,
    *_ASSIGNED,
    _GENERIC_ASSIGNED,
    # A user name and a password side by side: "Qantas login is maya.chen / Koala!2026".
    r"\b(?:login|log-in|logon|sign[- ]?in|credentials?)\b[^\n]{0,20}?(?:\s(?:is|are)|\s*[:=])\s*"
    r"\S+\s*/\s*(?=\S*[\d!@#$%^&*?])\S{4,}",
    # What opens a door or an alarm: "the front door unlocks with 1 9 7 3".
    r"\b(?:alarm|door|gate|lock|padlock|safe|locker|keypad|garage|key ?box|lockbox)\b[^\n\d]{0,20}?"
    r"\b(?:disarm|arm|unlock|open)\w*\s+(?:with|using|by)\b[^\n\d]{0,10}?\d(?:[ -]?\d){2,7}\b",
    r"\b(?:alarm|lockbox|lock box|key ?box|key safe|padlock|keypad|door|safe)\b[^\n\d]{0,25}?"
    r"\b(?:is|:)\s*\d(?:[ -]?\d){3,7}\b",
    # "code to unlock her phone": a verb may sit between the code and what it opens.
    r"\bcode (?:to|for|of) (?:\w+ ){0,2}?(?:my|her|his|the|our|their) (?:\w+ )?(?:door|house|home|"
    r"gate|garage|"
    r"safe|alarm|"
    r"locker|lock|building|apartment|flat|phone|account|card|bank|car)\b[^\n\d]{0,12}\d{3,8}",
    r"\b(?:login|logon|pass|credentials?|user(?:name)?/password)\s*[:=]\s*\S{3,}",
    # Security answers are words: "Security answer for the bank: Biscuit".
    r"\b(?:secret|security) (?:question|answer)s?\b[^\n]{0,30}?(?:\s(?:is|was)|:)\s*\S{2,}",
)
_SECRET_LABEL = re.compile(_SECRET_WORD, _I)
# The patterns that start from a credential label run only when one is in the text (one search of
# the label alternation instead of one per pattern).
_labelled_patterns = _any(
    rf"(?<![\w-]){_SECRET_WORD}(?![\w-])\s*(?:\(\w+\)\s*)?{_VALUE_VERBS}\s*{_NOT_VALUE}[\"'`]?\S{{2,}}",
    # (not "pw@a.com": a secret word right before "@" is the start of an e-mail address)
    rf"(?<![\w-]){_SECRET_WORD}(?![\w@-])(?![\w.+-]*@)\s*[\"'`]?(?=\S*[\d!@#$%^&*?])\S{{3,}}",
    rf"(?<![\w-]){_SECRET_WORD}(?![\w-])[^\n\d]{{0,12}}?(?<![\d-])\d{{4,8}}(?![\d-])",
    # A code a few words from its label, its digits grouped as read out ("the one-time code they
    # texted was 583 920", "PIN: 7 3 9 1", "backup codes 8812-4471").
    rf"(?<![\w-]){_SECRET_WORD}(?![\w-])[^\n\d]{{0,25}}?(?<![\d-])\d(?:[ -]?\d){{3,7}}(?![\d-])",
    # A label, a few words saying which account, then the value ("Wifi password at home is
    # sunflower88", "Contrasena del correo: Playa#1990", "Passwort fur das Portal lautet X7").
    rf"(?<![\w-]){_SECRET_WORD}(?![\w-])[^\n]{{0,30}}?(?:\s{_VALUE_VERBS}|\s*[:=])\s*[\"'`]?"
    r"(?=[^\s\"'`]*[\d!@#$%^&*?])[^\s\"'`]{3,}",
    rf"(?<!\S)\S{{3,40}} (?:is|as) (?:my|her|his|their|the|our) (?:\w+ )?{_SECRET_WORD}\b",
    rf"(?<![\w-]){_SECRET_WORD}(?![\w-])\s+(?:for|to|of|on)\s+[^\n]{{0,30}}?\s(?:is|:|=|-)\s*"
    r"\S*[\d!@#$%^&*]\S*",
)


def _secret_shapes(text: str) -> bool:
    return _secret_patterns(text) or (_SECRET_LABEL.search(text) is not None and _labelled_patterns(text))


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


_TOKEN_LIKE = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{20,}={0,2}(?![\w+/=-])")


def _high_entropy_token(text: str) -> bool:
    """A long random-looking string mixing cases and digits: a key, whatever it is called."""
    for match in _TOKEN_LIKE.finditer(text):
        token = match.group().rstrip("=")
        classes = sum(bool(re.search(c, token)) for c in ("[a-z]", "[A-Z]", "[0-9]"))
        hex_only = re.fullmatch(r"[0-9a-fA-F]+", token) is not None
        hex_mixed = re.search(r"\d", token) and re.search("[a-fA-F]", token)
        if hex_only and len(token) >= 32 and hex_mixed:
            return True
        if classes == 3 and _entropy(token) >= 3.5:
            return True
        # One case and digits, but long ("dapi3f2a...", "AGE-SECRET-KEY-1QZ..."): no word is that
        # long.
        run = max(re.findall(r"[A-Za-z0-9]+", token), key=len, default="")  # "____": no run
        if len(run) >= 30 and len(re.findall(r"\d", run)) >= 3 and _entropy(run) >= 3.3:
            return True
    return False


@cache
def _seed_words() -> frozenset[str]:
    """The BIP-39 word lists in Latin script (data/wordlists/bip39_*.txt), folded as notes are."""
    return frozenset(_visible(word).lower() for path in sorted(data_dir().glob("wordlists/bip39_*.txt"))
                     for word in path.read_text(encoding="utf-8").split())


_WORD = re.compile(r"[^\W\d_]+")
# What may stand between two words of a seed phrase: spaces, commas, dashes, numbering ("1. abandon").
_SEED_GAP = re.compile(r"[\s,;.\-)(\d]*")
_SEED_LENGTH = 12  # the shortest seed phrase a wallet writes


def seed_phrase(text: str) -> bool:
    """Twelve or more words of a BIP-39 list in a row: a wallet's seed phrase, labelled or not.
    Ordinary sentences break the run at their first word outside the list ("the", "and", "to")."""
    words, run, last = _seed_words(), 0, 0
    for match in _WORD.finditer(text):
        joined = _SEED_GAP.fullmatch(text, last, match.start()) is not None
        inside = match.group().lower() in words
        run = (run + 1 if joined else 1) if inside else 0
        if run >= _SEED_LENGTH:
            return True
        last = match.end()
    return False


def _secret(text: str) -> bool:
    if _secret_shapes(text) or _high_entropy_token(text) or labelled_secret(text) or seed_phrase(text):
        return True
    # "p@ssw0rd", "pass-word", "p a s s w o r d": the label read plainly, then the same patterns.
    plain = unmasked(text, lambda word: _SECRET_LABEL.fullmatch(word) is not None)
    return plain != text and _secret_shapes(plain)
