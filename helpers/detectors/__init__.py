"""Stage 2 — capture (notebook 02): the write gate's detectors, one family per module (`helpers.gate` holds the table).

    normalize          read a note as a person would: invisible and look-alike characters, spelled digits
    checksums          Luhn, mod 97, Verhoeff and digit groups: real numbers, not ordinary ones
    cues               the words that say what a number is (a card's, an ID document's)
    payment            card numbers, IBANs, card security codes
    identifiers        ID numbers, booking references, accounts, dates of birth, addresses
    contact            e-mail addresses, phone numbers
    secrets            credentials and the values after them, tokens
    guesses            inferences about the user and passing moods
    instruction_words  the vocabulary of instructions aimed at an assistant
    instructions       instructions by their grammar, and text restating the memory policy
    obfuscated, spelled  disguises read plainly: leetspeak and spaced labels, dates in words
    phrases            the per-language tables in data/phrases/*.yaml

They import nothing from the gate: the gate imports them.
"""
