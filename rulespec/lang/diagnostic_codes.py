"""Every diagnostic's code, with what it means: the table docs/language.md shows (a test keeps
the two and the checker's emit sites in step). Codes are stable: rename one only with a reason,
since allow comments name them. Secrecy findings (checker/flow.py) take codes starting 'secrecy-'."""

ERRORS = {
    "syntax": "the text does not parse",
    "too-deep": "the rules nest too deeply",
    "unreadable-file": "the file cannot be read (missing, a folder, binary, not UTF-8)",
    "duplicate": "a name, clause, field or block given twice",
    "reserved-name": "a reserved word used as a name",
    "builtin-name": "a built-in name declared again",
    "shadowed-name": "a local that would hide a global name",
    "unknown-name": "a name (zone, variable, phase, property, field, function ...) that is not declared",
    "misused-name": "a name used as what it is not (a zone assigned, an option changed ...)",
    "type-mismatch": "a value of the wrong type",
    "arity": "a call with the wrong number of arguments",
    "per-player": "a per-player thing without 'whose', or a shared one indexed by a player",
    "out-of-range": "a range or count outside what is allowed",
    "card-copies": "a card's copies that cannot be",
    "missing-declaration": "no game block, no phase, or no place where the cards start",
    "by-position": "'by position' where it cannot pick a card",
    "no-end": "a phase, or the whole game, that can never end, or phases that loop idle",
    "misuse": "a construct in a place or combination where it has no meaning",
}

WARNINGS = {
    "unused-zone": "a zone that is never used",
    "unused-variable": "a variable that is never used",
    "unused-action": "an action no phase lists",
    "never-legal": "an action that requires false",
    "unguarded-next": "every 'next' of a phase has a condition",
    "phase-no-exit": "a phase with actions but no 'after' and no 'end when'",
    "unreachable-phase": "a phase that cannot be reached from the start",
    "choice-explosion": "a choice with more ways than one decision may list",
    "optional-reads-place": "an optional trigger's condition reads where its face-down card is",
    "face-down-read": "a requirement reads a card that may be face down to the chooser",
    "conversion-only-card": "a card name that only a conversion makes",
    "no-cards": "a game that declares no card",
    "allow-without-reason": "an allow comment without a written reason",
    "unused-allow": "an allow comment that silences nothing",
    "bad-allow": "an allow comment that names no code",
    # the information-flow check (checker/flow.py): a public effect depends on a card some player may not see
    "secrecy-log": "a log line depends on cards some player may not see",
    "secrecy-var": "a public variable is set from cards some player may not see",
    "secrecy-target": "who acts, is asked (or whether) or is targeted depends on cards some player may not see",
    "secrecy-end": "the end of the game or its winners depend on cards some player may not see",
    "secrecy-move": "which or how many cards move, or are looked at, depends on cards some player may not see",
    "secrecy-phase": "when a phase ends or which comes next depends on cards some player may not see",
    "secrecy-legal": "which actions are legal depends on cards the player cannot see",
}

CODES = {**ERRORS, **WARNINGS}


def is_known(code: str) -> bool:
    """A code of this table (the secrecy family included)."""
    return code in CODES
