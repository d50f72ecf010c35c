"""Contact details: e-mail addresses (also spelled "at ... dot ...") and phone numbers; a booking
site named as a preference ("books at Booking.com") is not an address. A detector family of the
write gate (helpers.gate, notebook 02).
"""

from __future__ import annotations



from helpers.detectors.normalize import _any


# "maya@example.com", "maya @ example . com", "maya at example.com", "maya (at) example (dot) com".
_TLDS = (r"(?:com|net|org|io|co|edu|gov|mil|info|biz|me|app|dev|ai|us|uk|au|ca|nz|de|fr|es|it|nl|"
         r"be|ch|at|se|"
         r"no|dk|fi|ie|pl|pt|br|mx|ar|in|jp|cn|kr|sg|hk|za|ru|test|example|local|mail|email|online|"
         r"xyz|tech)")
_BRACKETED_DOT = r"(?:\s*[\[({<]\s*dot\s*[\])}>]\s*)"
_SPELLED_DOT = rf"(?:{_BRACKETED_DOT}|\s+dot\s+)"
# Sites a traveller books on: "books at Booking.com" is a preference, not an address.
_SITES = (r"(?:booking|hotels|expedia|airbnb|kayak|skyscanner|trip|agoda|priceline|vrbo|"
          r"hostelworld|"
          r"tripadvisor|google|orbitz|travelocity|hopper|trivago|momondo|opentable|uber|amazon|"
          r"wotif|"
          r"lastminute|webjet|qantas|united|delta|marriott|hilton)")
_email = _any(
    rf"(?<![\w.+-])[\w.+-]{{1,64}}\s*@\s*[A-Za-z0-9-]{{1,63}}(?:\s*\.\s*[A-Za-z0-9-]{{1,63}})"
    rf"*\s*\.\s*{_TLDS}\b",
    r"(?<![\w.+-])[\w.+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+",
    # Spelled "at": the top-level domain must be written in lower case ("Hilton. Co-workers" is
    # prose).
    rf"(?<![\w.+-])[\w+-]{{1,64}}(?:(?:\.|{_BRACKETED_DOT})[\w+-]{{1,64}}){{0,6}}"
    rf"(?:\s*[\[({{<]\s*at\s*[\])}}>]\s*|\s+at\s+)"
    rf"(?!{_SITES}\b)[A-Za-z0-9-]+(?:(?:\.|{_SPELLED_DOT}|\s+\.\s*)[A-Za-z0-9-]+)*"
    rf"(?:(?:\.|{_BRACKETED_DOT})(?-i:{_TLDS})|(?:\s+dot\s+|\s+\.\s*)"
    rf"(?!(?:at|it|no|me|us|be|in|is|so|do|my|as|or|an)\b)(?-i:{_TLDS}))\b",
)

_phone = _any(
    r"(?<![\w+])\+\d(?:[\s().-]*\d){7,14}",  # international, e.g. +61 412 345 678
    r"(?<![\w+])00\d{1,3}[\s.-]?\d(?:[\s().-]*\d){6,13}",  # 0044 20 7946 0958
    r"\(\d{2,4}\)\s*\d{3,4}[\s.-]?\d{3,4}\b",  # (415) 555-2671, (02) 9374 4000
    r"(?<![\d-])\d{3}[.-]\d{3}[.-]\d{4}(?![\d-])",  # 415-555-2671
    r"(?<![\d-])\d{3} \d{3} \d{4}(?![\d-])",  # 415 555 2671
    r"(?<![\w.-])\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}(?![\d-])",  # 415 555-2671, (415)555.2671
    # dialled from the US: 011 44 20 7946 0958
    r"(?<![\w+.])011[ .-]?\d{1,3}(?:[ .-]?\d){6,12}(?!\d)",
    r"(?<![\d-])0\d{1,4}[ -]\d{3,4}[ -]?\d{3,4}(?![\d-])",  # 0412 345 678, 020 7946 0958
    r"(?<!\d)0[1-9]\d{8,9}(?!\d)",  # unspaced national numbers: 0412345678, 07700900123
    r"\b(?:phone|mobile|cell|tel|telephone|whatsapp|signal|sms|viber|telegram|text(?: me| her| him)"
    r"?|"
    r"call(?: me| her| him)?|ring (?:me|her|him)|reach (?:me|her|him) (?:at|on)|(?:contact|phone|"
    r"mobile|cell) "
    r"number|telefon|telefono|numero|handy|portable)\b[^\d\n]{0,12}\d(?:[\s().\-/]*\d){6,14}",
)
