"""Stage 2 — capture (notebook 02): the write gate's detectors, one family per module (`helpers.gate` holds the table).

    normalize          read a note as a person would: invisible and look-alike characters, digits of
                       every script as 0-9, spelled digits
    checksums          Luhn, mod 97, Verhoeff and digit groups: real numbers, not ordinary ones
    cues               the words that say what a number is (a card's, an ID document's)
    payment            card numbers, IBANs, card security codes
    identifiers        ID numbers, booking references, accounts, dates of birth, addresses
    contact            e-mail addresses, phone numbers
    secrets            credentials and the values after them, tokens
    labelled           any language: a label (PIN, hasło, パスワード, رقم الهوية) and a value shaped like
                       a code after it; guessing words ("wirkt", "chyba", "たぶん")
    guesses            inferences about the user and passing moods
    instruction_words  the grammar of instructions aimed at an assistant (its words: data)
    instructions       instructions by their grammar, and text restating the memory policy
    cued               instructions in any language, by combinations of cue classes
    obfuscated, spelled  disguises read plainly: leetspeak and spaced labels, dates in words
    phrases            the per-language word tables, data/phrases/*.yaml, compiled into patterns
    prefilter          bounded time: a pattern runs only when the literal words it needs are present

They import nothing from the gate: the gate imports them.
"""
