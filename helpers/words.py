"""Words: what a note talks about. Shared by the capture tool (stage 2) and consolidation (stage 7).

Crude on purpose and fully deterministic: lower case, stopwords out, a light stemmer so that
"lives", "living", "lived" and "live" meet (and "flies" and "fly"), and negations folded into one "not".
"""

from __future__ import annotations

import re

STOPWORDS = frozenset("""
a an the and or but of to in on at for with by from as is are was were be been being am it its
this that these those i me my mine we our you your they them their he she his her him user users
has have had do does did will would should can could may might also very so than then there
when while into over about just some any each other own same such too up out if only now
""".split())
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "without", "cannot"})
TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|[a-z]+(?:'[a-z]+)?")
# Stems of verbs that say how much the user likes something, not what it is about.
NOT_A_TOPIC = frozenset({"prefer", "lik", "want", "lov", "usual", "alway", "need", "not"})


def stem(word: str) -> str:
    # Crude on purpose: enough that "lives", "living", "lived" and "live" meet.
    if word in NEGATIONS or word.endswith("n't"):
        return "not"
    word = word.removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2]:  # preferr -> prefer
        word = word[:-1]
    if len(word) > 2 and word[-1] == "y" and word[-2] not in "aeiouy":  # fly, flies, flied -> fli
        return word[:-1] + "i"
    return word.removesuffix("e") if len(word) > 3 else word


def content_words(text: str) -> tuple[set[str], set[str]]:
    """(content stems, numbers) of a text; stopwords are not claims."""
    words, numbers = set(), set()
    for token in TOKEN.findall(text.lower()):
        if token[0].isdigit():
            numbers.add(token.replace(",", ""))
        elif token not in STOPWORDS:
            words.add(stem(token))
    return words, numbers


# Any script's letters and digits: an echo test that read only [a-z] saw "Вы любите Qantas" and
# "Я люблю летать Qantas" as the same one word.
_ANY_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


# Words that open a reply without saying anything: "Yes, you have a trip coming up" adds nothing to
# "Do I have a trip coming up?".
_REPLY_OPENERS = frozenset("yes yeah yep no nope sure okay ok certainly indeed absolutely".split())


def repeats_message(answer: str, message: str, n: int = 4, share: float = 0.5) -> bool:
    """An echo: the answer says nothing the message did not (no new content word or number), and at
    least `share` of its words sit in runs of `n` or more of the message's words (or it is the
    message). "The cheapest fare to Perth is 129 AUD" answers; "Flights to Perth next Friday" echoes,
    and so does "Yes, you have a trip coming up" to "Do I have a trip coming up?"."""
    said = _ANY_WORD.findall(message.casefold())
    got = _ANY_WORD.findall(answer.casefold())
    while got[:1] and got[0] in _REPLY_OPENERS and got[0] not in said:
        got = got[1:]
    if not got or got == said:
        return bool(got)
    known = {stem(w) for w in said}
    if any(w not in STOPWORDS and stem(w) not in known for w in got):
        return False
    runs = {tuple(said[i:i + n]) for i in range(len(said) - n + 1)}
    covered = {k for i in range(len(got) - n + 1) if tuple(got[i:i + n]) in runs for k in range(i, i + n)}
    return len(covered) >= share * len(got)


def topic_words(text: str) -> set[str]:
    """The content stems that say what a text is about: "Prefers window seats" -> {"window", "seat"}."""
    return content_words(text)[0] - NOT_A_TOPIC


__all__ = ["NEGATIONS", "NOT_A_TOPIC", "STOPWORDS", "TOKEN", "content_words", "repeats_message", "stem", "topic_words"]
