"""What a clone shares with its original until one of them changes it.

State.clone() is what a search or a fuzzer pays for every copy of a state, and copying a San
Guo Sha state whole (a hundred variables, seventy zones, a log of thousands of lines, the
running blocks' locals) took 25-80 us.  A clone copies only the small lists and shares the
large ones, each in the way its changes allow:

  * The log and the history only grow, and no line is changed once the decision that wrote it
    is over (State._mask_decision rewrites the line of the decision being carried out).  The
    original keeps its lists and goes on appending to them in place, so a tool holding
    `state.log` sees it grow as before.  The clone shares them and sees their first
    `_log_n` / `_history_n` entries: it is made of a subclass of State (shared_lists_class)
    whose `log` and `history` copy those entries the first time either is read or set, and
    then turns the clone into a plain State.  (So a state never cloned pays nothing for this:
    `log` and `history` are plain slots.)
  * Zones' lists and per-player variables' rows are changed in place, by either side.  Both
    share them, and `_own` says which a state may change in place: zone zi, the row of
    variable i as ~i (negative), or None for all of them (a state never cloned).  A change
    goes through edit_zone / edit_var, which copy a list the first time.  (A variable's value
    is never changed in place: an assignment makes a new one, and only a record, which no
    variable holds, has fields to set.)
  * Frames (a running block's [block, step, locals]) change in place too: `_fshared` holds the
    ids of the frames a state shares with another (None: none), and own_frame copies a frame,
    its locals all the way down, before it runs on or its locals change.  A shared frame is
    alive (the state holds it), so its id names no other object; an id left over from a frame
    since dropped costs at most a needless copy.

Code that changes a state's zones, variables or frames in place goes through edit_zone,
edit_var and own_frame (or frame_env); everything else of a state may be changed directly.
"""
from __future__ import annotations


class CopyOnWrite:
    """The copy-on-write side of State (which holds the slots _log_n, _history_n, _own and
    _fshared)."""
    __slots__ = ()

    def edit_zone(self, zi: int) -> list:
        """Zone zi's list, this state's own to change in place."""
        own = self._own
        if own is None or zi in own:
            return self.zones[zi]
        own.add(zi)
        z = self.zones[zi] = list(self.zones[zi])
        return z

    def edit_var(self, i: int) -> list:
        """The row of per-player variable i (its value for each player), this state's own to
        change in place."""
        own = self._own
        if own is None or ~i in own:
            return self.vars[i]
        own.add(~i)
        row = self.vars[i] = list(self.vars[i])
        return row

    def own_frame(self, i: int) -> list:
        """Frame i, this state's own to run on and to change."""
        f = self.frames[i]
        shared = self._fshared
        if shared and id(f) in shared:
            shared.discard(id(f))
            f = self.frames[i] = [f[0], f[1], deep_copy(f[2])]
        return f

    def frame_env(self, i: int) -> dict:
        """The locals of frame i, this state's own to change."""
        return self.own_frame(i)[2]

    def share_with(self, st, log: list, history: list) -> None:
        """Make `st` (a clone being made, of shared_lists_class) share this state's log and
        history (`log` and `history`: this state's lists, read from its slots), zones,
        variables and frames: from now on neither changes them in place unless it made its own
        copy since."""
        st._log_n = len(log) if self._log_n is None else self._log_n
        st._history_n = len(history) if self._history_n is None else self._history_n
        st.zones = list(self.zones)
        st.vars = list(self.vars)
        self._own, st._own = set(), set()
        frames = self.frames
        if frames:
            st.frames = list(frames)
            shared = self._fshared = {id(f) for f in frames}
            st._fshared = set(shared)
        else:
            st.frames = []
            self._fshared = st._fshared = None


def shared_lists_class(base: type) -> type:
    """The class of a clone that has not read its log and history yet: `base` (State), whose
    slots `log` and `history` hold its original's lists, of which it sees the first _log_n and
    _history_n entries.  Reading or setting either copies both and makes the clone a `base`."""
    log_slot, history_slot = base.__dict__["log"], base.__dict__["history"]

    def own_lists(st) -> None:
        log_slot.__set__(st, log_slot.__get__(st)[:st._log_n])
        history_slot.__set__(st, history_slot.__get__(st)[:st._history_n])
        st._log_n = st._history_n = None
        st.__class__ = base

    def getter(slot):
        def get(st):
            own_lists(st)
            return slot.__get__(st)
        return get

    def setter(slot):
        def set_(st, value):
            own_lists(st)
            slot.__set__(st, value)
        return set_

    return type(f"Shared{base.__name__}", (base,), {
        "__slots__": (), "__doc__": shared_lists_class.__doc__,
        "log": property(getter(log_slot), setter(log_slot)),
        "history": property(getter(history_slot), setter(history_slot)),
        "__module__": base.__module__})


def deep_copy(v):
    """A copy of plain data (lists and dicts copied all the way down)."""
    if isinstance(v, list):
        return [deep_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: deep_copy(x) for k, x in v.items()}
    return v
