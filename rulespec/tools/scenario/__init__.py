"""Scenario tests: fix a position, script the choices, assert the results.

This docstring is the reference of the format; the "Scenario files" section of
docs/language.md says the same in Markdown (tests/test_scenario_format.py checks
that both name every key).

A scenario file is YAML.  Each YAML document in the file (documents are
separated by ``---``) is one scenario.  The game is created with
``new_state(players, seed, options)``, which runs to its first decision; then
``position`` (if any) is set, then the steps run in order.

Top-level keys
    rules: ../../../games/mygame.rules   required; relative to this YAML file (or absolute)
    name: bidding example                the test's name; default: the file name (``FILE #2``
                                         for the second document of a file without names)
    doc: free text                       ignored
    players: 3                           default: the game's minimum
    seed: 1                              default: 0
    options: {bidding: true}             game options by name, as ``--option NAME=VALUE``
    start_order: [Ace, Two, ...]         every card of the game (names, or copies' labels), each
                                         once: the order the cards start in, bottom to top,
                                         instead of the order the rules declare them; the setup
                                         then runs on them (shuffling them with the seed as
                                         always).  ``rulespec fuzz`` writes it for a re-deal
    check_invariants: false              default true: see "Invariants" below
    face_down_asks: decline              default ask: see "Face-down asks" below
    position: {...}                      optional; see "position"
    steps: [...]                         optional; see "steps"

Names
    Players are P1..Pn (seat 1..n; ``p1`` is accepted).  Where a player may be
    none (``active`` in an expect, variables of type player, ``winners``),
    write ``nobody`` -- as the engine prints it -- or ``none`` (or YAML's
    ``null`` / ``~``).  Zones are named as the engine names its zone instances:
    ``stock``, ``hand[P2]``.  Inside YAML flow collections ({ } and [ ])
    brackets are syntax, so quote zone names there: ``counts: {"hand[P1]": 2}``;
    block style needs no quotes.  Cards are named by their card name; in a list
    each name is one physical card (write a name twice for two copies).  Where
    copies differ, a copy's label as the engine prints it (``Strike ♥10``)
    names that very copy, in positions and in expectations.  Copies a game's
    setup leaves out (``copies: EXPR`` of the player count and options) are in
    no zone: a position cannot place them.

position
    Writes the state directly.  Every key is optional.

    phase: bidding      the phase to put the game in (default: the current one)
    enter: false        false (default): the phase waits for a decision (its
                        ``end when`` and ``actor`` are evaluated, its ``enter``
                        block is not run); true: the phase is entered from the
                        start, so its ``enter`` block runs.  Use true for phases
                        without actions.
    resume: true        the rules go on where they stopped instead (the block
                        half run keeps its place: a position set at a question
                        inside the setup, as ``rulespec fuzz`` writes one); a
                        question that offers cards is asked again, of the cards
                        now in place.  Not with phase, enter or stack.
    active: P1          who is to act (an ``actor`` clause of the phase overrides it)
    zones:              zone -> card names, bottom to top (the last is the top
      open[P1]: [red 8, blue 8]    card, the first one dealt).  Each name takes
      stock: []                    a physical card of that name not placed yet
                                   and not in a kept zone.  Not for plays zones.
    plays:              plays zones (e.g. a trick in progress): a list of
      trick: [[P1, [red 5]], [P2, [red A]]]      [player, [card names]] in play
                                   order; every play has at least one card
    rest: aside         where every card not placed goes (default: the zone
                        cards start in); an ordinary zone, not kept.  Only used
                        if zones or plays are given.  'rest: stay': every card
                        not placed stays in its zone (below the cards placed
                        there), e.g. the draw pile keeps its other cards.
    keep: [box]         a zone or a list of zones left exactly as they are; their
                        cards are not available for placing.  Only with zones or plays.
    vars:               variables by name.  A per-player variable takes a list
      points: [10, 3, 4]           of n values, a mapping {P1: 10} that sets
      holder: P2                   only some players, or one plain value for
                                   every player.  Values by type: int, bool
                                   (true/false), player (P1..Pn or nobody),
                                   card (a name, or none), an enum member's name,
                                   text, a list of these ([] for none), a play
                                   ([player, [cards]]).
    revealed: [Cao Cao] cards shown to everyone wherever they lie (as the
                        statement 'reveal CARDS' shows them); replaces the list.
    revealed_zones: ["hand[P2]"]   zones whose cards everyone sees (as the statement
                        'reveal ZONE' shows them, until 'conceal ZONE'); replaces the list.
    known:              cards players know although they do not see their zone
      P2: {"hand[P2]": [red 1]}    (as 'look ... until moved' leaves them), by
                        player and zone; replaces what every player knew.  A
                        position that places cards forgets what was known of them.
    stack:              the response stack, bottom entry first; each entry
      - {effect: bolt, by: P1, target: P2, cards: [Bolt], fields: {damage: 4}}
                        (cards by name, not moved; 'cancelled: true' marks it
                        cancelled).  The top entry's window opens at once.
    check_invariants: false        this position only; overrides the scenario's

    If neither zones nor plays is given, the cards stay where they are;
    ``zones: {}`` moves every card that is not kept to the rest zone.
    Setting a position clears the game-over flag and the winners, restarts the
    log that log_contains / log_lacks read, and runs the engine to its next
    decision.  After a position, ``check: replay`` is no longer possible (the
    history alone does not give the position).

Invariants
    After a position is set (and the engine has run to its next decision), the
    rules' ``invariant`` declarations that apply in that phase must hold, as
    they hold at every decision of a real game; one that does not fails the
    scenario: ``the position breaks invariant "..." (rules:line) ...``.  An
    impossible position is a bug in the scenario.  Give ``check_invariants:
    false`` (to the scenario or to one position), with a comment saying why,
    only for a position that is meant to be partial.

Face-down asks
    An optional trigger of a face-down card asks every player who could hold
    such a card, whether or not they do ("abilities of face-down cards ...",
    answered "no"), so that being asked gives nothing away.  With many such
    cards in a game these asks are everywhere.  ``face_down_asks: decline``
    answers "no" for the scenario wherever a player is asked and holds no card
    that fires (the only answer is "no"), before every step but ``position``
    and before each action of a ``play`` step: the steps never see such an
    ask.  Asks where the player does hold such a card are
    never answered for them.

steps
    A list; each step is a mapping with exactly one of these keys, plus
    ``note:`` (free text, in any step) and ``because:`` (with ``illegal``):

    - play: "bid 1 on group 2"      apply an action (or a list of actions, in
                                    order); each must be legal when its turn comes
    - illegal: "bid 0 on group 2"   the action (or each of a list) is not legal now,
                                    the engine refuses it and the state is unchanged
      because: "cannot bid more"    optional: text the engine's explanation must
                                    contain (ignoring case)
    - legal: ["bid 0 on group 1"]   each of these actions is legal now (none is applied)
    - legal_exactly: [...]          these are exactly the legal actions now
    - legal_count: 12               how many actions are legal now
    - position: {...}               set a new position (as above)
    - finish: 500                   take the first legal action at every decision until the
                                    game is over; fails if it is not over within 500 decisions
    - check: all                    run the checks fuzzing runs (rulespec/tools/fuzzing/checks.py)
                                    on the state now, by name or a list of names:
                                    cards (every card in exactly one zone), invariants
                                    (the rules' invariant declarations), legal (a running
                                    game has a legal action and a player to act, a
                                    finished one has none), round_trip (to_json /
                                    from_json is exact), secrecy (no player's view or
                                    legal actions reveal hidden cards), replay (the seed
                                    and the history give the same state; only without a
                                    position).  all: every one that applies.
    - expect: {...}                 check the state (every key is optional):
        active: P2                  who is to act; nobody once the game is over
        phase: trick
        terminal: true              is the game over?
        vars: {points: [10, 3, 4], holder: P2}   as in a position; {P2: 3} compares P2 only
        zones: {"open[P1]": [red 8]}   contents compared as multisets of names:
                                    order ignored, copies counted
        order: {draw: [a, b, c]}    contents compared in order, bottom to top (the
                                    last is the top card); for pile zones only
        plays: {trick: [[P1, [red 5]]]}   plays compared in order; the cards of a
                                    play in any order
        counts: {box: 8}            number of cards in zones
        scores: [1, 2, 3]           or {P1: 1}
        winners: [P1]               in any order; [] or nobody: no winner (a game
                                    not over has none)
        log_contains: "wins the trick"   text (or list of texts) in the log
        log_lacks: "Game over"           text (or list) not in the log
        viewer: P2                  read log_contains / log_lacks as P2's log, and
        sees: {"hand[P1]": [9]}     check P2's observation: the cards P2 sees in a zone
                                    (as a multiset)
        hidden: ["hand[P1]"]        zones P2 sees only as a count of cards
        shown: {discard: [red 2]}   in a zone P2 sees only as a count, the cards P2
                                    sees on their own (revealed on their own, the top
                                    of a 'top public' pile, cards P2 knows); [] for none
        knows: {"hand[P2]": [red 1]}   in a zone P2 sees only as a count, the cards P2
                                    knows from a 'look ... until moved'

    The log checked by log_contains / log_lacks is everything written since
    the last position was set (from the start of the game if none was).

Action strings are the engine's texts, as ``rulespec play`` lists them.  Cards
joined with `` + `` at the end of an action may be given in any order:
``follow blue 6 (open) + red 6 (open)`` matches ``follow red 6 (open) + blue 6 (open)``; so may
the cards of an answer that is cards only (``Wine ♠9 + Strike ♠7``).

Every problem -- YAML syntax, an unknown or repeated key, card, zone, phase,
variable or player, an illegal ``play``, a broken invariant, a failed
expectation, an error of the engine (at the line of the step that met it) --
raises ScenarioError whose message is one line: ``file:line: what went wrong``
(expected vs actual for a failed expectation).
"""
from __future__ import annotations

# The runner is split by job, in the order a scenario goes through it:
#   reading.py       the file: YAML nodes with lines, the keys of the format, ScenarioError, load_file,
#                    _Reader (plain values out of YAML nodes, failing at the node's line)
#   terms.py         _Terms: the game's names in those values: players, zones, cards, variables, typed
#                    values; _Session: what the pieces of one running scenario share
#   positions.py     _Positions: 'position:' writes the state, then checks the rules' invariants
#   steps.py         _Steps: one step: play, illegal, legal..., check, finish (expect goes to _Expectations)
#   expectations.py  _Expectations: 'expect:', one method per key
#   runner.py        _Runner reads the top-level keys, starts the game and drives the others;
#                    run_scenario, run_file, collect_files, run_paths
from rulespec.tools.scenario.reading import (CHECKS, EXPECT_KEYS, NOBODY, POSITION_KEYS, REST_STAYS, STACK_ENTRY_KEYS,
                                             STEP_EXTRA_KEYS, STEP_KEYS, TOP_KEYS, Scenario, ScenarioError, load_file)
from rulespec.tools.scenario.runner import collect_files, run_file, run_paths, run_scenario

__all__ = ["Scenario", "ScenarioError", "collect_files", "load_file", "run_file", "run_paths", "run_scenario",
           "TOP_KEYS", "POSITION_KEYS", "STACK_ENTRY_KEYS", "STEP_KEYS", "STEP_EXTRA_KEYS", "CHECKS", "EXPECT_KEYS",
           "NOBODY", "REST_STAYS"]
