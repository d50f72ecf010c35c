"""Small-model guards: checks on what a 1.5B model wrote before it reaches the user or a tool.

Shown in notebook 00. A stock refusal or a promised action when a tool could act (`unmade_call`,
`narration_stop`), a web address no message gave (`invented_urls`), a name or number no source
gave (`ungrounded`), an answer the token cap cut off (`whole_sentences`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

# A stock refusal ("I'm sorry, but I can't assist with that."): when a tool could act, the call
# is asked for instead.
REFUSAL = re.compile(r"\b(i'?m sorry|i am sorry|can(?:'|no)t (?:assist|help)|unable to (?:assist|help)|"
                     r"as an ai)\b", re.I)


def whole_sentences(text: str) -> str:
    """`text` up to its last complete sentence (all of it if none ends): for an answer the token
    cap cut off, so the reader never sees half a sentence."""
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", text)]
    return text[:ends[-1]].strip() if ends else text.strip()


_URL = re.compile(r"(?i)\b(?:https?://|www\.)[^\s\"'<>()]+")
_ADDRESS_ARGUMENT = re.compile(r"(?i)(?:url|uri|link|href)s?$")
_ADDRESS_PREFIX = re.compile(r"(?i)^(?:https?://)?(?:www\.)?")  # the user may leave these out


def invented_urls(arguments: dict[str, Any], conversation: str) -> list[str]:
    """Web addresses in a call's arguments that appear nowhere in the conversation.

    A small model asked about an airline "reads" www.<airline>.com; the page it gets may say
    anything. An address the user or a tool result gave is fine; one the model made up is not fetched.
    """
    given = conversation.lower()
    found = _URL.findall(json.dumps(arguments, ensure_ascii=False))
    found += [v.strip() for k, v in arguments.items()  # a "url" argument is an address however written
              if isinstance(v, str) and _ADDRESS_ARGUMENT.search(k) and v.strip() and v.strip() not in found]
    return [url for url in found if _ADDRESS_PREFIX.sub("", url).rstrip("/.,;:!?").lower() not in given]


# "I will read the page and ...", "Let me search for flights": the first sentence of an answer that
# promises an action instead of taking it.
# The answer's first sentence narrates the step instead of taking it: "I'll search ...", "Let me
# check ...", "To suggest a restaurant, I need to search for ..." (a lead-in clause, then a must).
_PROMISE = re.compile(r"(?i)\W*(?:(?:sure|ok|okay|certainly)\W+)?(?:to [^.!?\n,]*,\s*)?"
                      r"(?:i will|i'll|let me|i am going to|i'm going to|i need to|i have to|i must|i first need to)"
                      r"\s+([^.!?\n]*)")


def unmade_call(answer: str, tools: Sequence[str]) -> str | None:
    """Why a prose answer is a call the model did not make, when a tool could act: it names a
    tool ("call search_flights with ...": an answer to the user never needs a function's name),
    it is a stock refusal, or it promises what a tool does ("I will read the page ...")."""
    named = [t for t in tools if t.replace("_", " ") in answer.lower().replace("_", " ")]
    if named:
        return f"the answer described a call to {named[0]}"
    if tools and REFUSAL.search(answer):
        return "the answer refused while a tool could act"
    promised = set(re.findall(r"[a-z]+", promise.group(1).lower())) if (promise := _PROMISE.match(answer)) else set()
    if promised and (named := [t for t in tools if promised & set(t.lower().split("_"))]):
        return f"the answer promised what {named[0]} does"
    return None


# Words an answer may capitalise that no result spells out: the calendar, and "I".
_CALENDAR = frozenset(
    "i monday tuesday wednesday thursday friday saturday sunday january february march april may june "
    "july august september october november december".split())
_NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’-]*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _plain(number: str) -> str:
    """One way to write a number: "1,411" and "1.411" (groups of three) -> "1411", "4,8" -> "4.8",
    leading zeros dropped ("04" -> "4")."""
    head, *groups = re.split(r"[.,]", number)
    if groups and all(len(g) == 3 for g in groups):
        number = head + "".join(groups)
    else:
        number = number.replace(",", ".")
    return number.lstrip("0") or "0"


def _numbers(text: str) -> set[str]:
    """Every number in `text` (`_plain`), and each of its parts ("2026-12-04" gives 2026, 12, 4)."""
    found = set()
    for number in _NUMBER.findall(text):
        found.add(_plain(number))
        found.update(_plain(part) for part in re.split(r"[.,]", number))
    return found


def ungrounded(answer: str, sources: str) -> str | None:
    """The first name or number in `answer` that appears nowhere in `sources` (the prompt: the
    messages, the memory and the tool results), or None.

    A small model given "No restaurants in Melbourne serving Japanese" may still recommend "Sushi
    Time at 123 Main St, $150". An answer from results may rephrase them, but the names and
    numbers it gives must come from them (or from what the user and the memory said). Numbers up
    to 10 pass ("one or two", "2 seats left"); so do capitalised words that open a sentence.
    """
    known = _numbers(sources)
    for number in _NUMBER.findall(answer):
        value = _plain(number)
        if value not in known and not (value.isdigit() and int(value) <= 10):
            return number
    words = set(re.findall(r"[\w'’-]+", sources.casefold()))
    for match in _NAME.finditer(answer):
        opens = re.search(r"(^|[.!?:\n(\"“]\s*)$", answer[:match.start()]) is not None
        word = re.sub(r"['’]s?$", "", match.group(0)).strip("'’-").casefold()  # "Maya's" is Maya
        if not opens and word not in _CALENDAR and word not in words and word.rstrip("s") not in words:
            return match.group(0)
    return None


def narration_stop(tools: Sequence[str]) -> Callable[[str], bool]:
    """`until` for a completion that may call `tools` or answer: True as soon as a prose answer's
    first sentence is a call not made (see `unmade_call`), so the model does not spend a few
    hundred tokens narrating the search it should have made before the call is asked for."""
    decided: list[bool] = []  # once the first sentence is whole, its verdict holds for every later token

    def until(text: str) -> bool:
        if decided:
            return decided[0]
        text = text.lstrip()
        if not text:
            return False
        if text.startswith(("{", "<")):  # a call: nothing to judge
            decided.append(False)
            return False
        first = re.match(r"[^.!?\n]*[.!?\n]", text)
        if first is None:
            return False
        decided.append(unmade_call(first.group(0), tools) is not None)
        return decided[0]
    return until
