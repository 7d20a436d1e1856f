"""What a clone shares with its original until one of them changes it.

State.clone() is what a search or a fuzzer pays for every copy of a state, and copying a San
Guo Sha state whole (a hundred variables, seventy zones, a log of thousands of lines, the
running blocks' locals) took 25-80 us.  A clone copies only the small lists and shares the
large ones, each in the way its changes allow:

  * The log and the history only grow, and no line is changed once the decision that wrote it
    is over (State._mask_decision rewrites the line of the decision being carried out).  The
    original keeps its lists and goes on appending to them in place, so a tool holding
    `state.log` sees it grow as before.  The clone shares them and sees their first
    `_log_n` / `_history_n` lines: the first time it reads a list it copies those lines.
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
    """State's shared lists (State holds the slots: _log, _log_n, _history, _history_n, _own,
    _fshared)."""
    __slots__ = ()

    @property
    def log(self) -> list:
        if self._log_n is not None:  # a clone's first look: its own copy of the lines it saw
            self._log = self._log[:self._log_n]
            self._log_n = None
        return self._log

    @log.setter
    def log(self, value: list) -> None:
        self._log, self._log_n = value, None

    @property
    def history(self) -> list:
        if self._history_n is not None:
            self._history = self._history[:self._history_n]
            self._history_n = None
        return self._history

    @history.setter
    def history(self, value: list) -> None:
        self._history, self._history_n = value, None

    def log_length(self) -> int:
        """len(self.log), without making a clone copy its log."""
        n = self._log_n
        return len(self._log) if n is None else n

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

    def share_with(self, st) -> None:
        """Make `st` (a clone being made, whose other fields are set) share this state's log,
        history, zones, variables and frames: from now on neither changes them in place unless it
        made its own copy since."""
        st._log = self._log
        st._log_n = len(self._log) if self._log_n is None else self._log_n
        st._history = self._history
        st._history_n = len(self._history) if self._history_n is None else self._history_n
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


def deep_copy(v):
    """A copy of plain data (lists and dicts copied all the way down)."""
    if isinstance(v, list):
        return [deep_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: deep_copy(x) for k, x in v.items()}
    return v
