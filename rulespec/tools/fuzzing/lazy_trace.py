"""The lazy trace: the game as played, seen by the counterfactual secrecy check's viewer, with
each decision's view built only when the check compares it (LazyTrace; secrecy.Trace builds
them all as the game goes).  A decision keeps a snapshot of the state instead: one marshal
bytes object, cheap to make and free for the garbage collector (docs/performance.md)."""
from __future__ import annotations

import marshal
import operator
from typing import Optional

from .secrecy import Trace, _mark_seen, _view
from interpreter.state import State


class LazyTrace(Trace):
    """secrecy.Trace (the game as played, seen by the counterfactual check's viewer) whose
    views are built only when the check compares them.

    Trace.record builds the viewer's view at every decision -- their observation as JSON and
    their new log lines -- but the check compares a view only while some re-deal is still
    consistent with the public history: in the shipped games from a tenth of the decisions
    to all of them (docs/performance.md).  Here a decision keeps a snapshot of the state
    instead (see _Snapshot), and the view is built from it the first time the check asks
    for it, with the same secrecy._view, so the verdict is the one Trace gives
    (tests/test_fuzz_checks.py compares them).  At a decision whose observations the secrecy
    check built anyway, the view is made at once from the viewer's."""

    def __init__(self, viewer: int):
        super().__init__(viewer)
        self.views = _LazyViews()

    def record(self, st, observation: Optional[dict] = None) -> None:
        if self.start is None:
            self.start = st.clone()
            self.seen = [-1] * st.prog.card_count
            self.moved = [-1] * st.prog.card_count
            self.views.log = st.log
        k = len(self.views)
        _mark_seen(st, self.viewer, self._log_from, self.seen, self.moved, k, self._revealed_changed(st))
        layout = tuple(map(tuple, st.zones))  # tuples of ints: untracked by the GC
        if observation is not None:  # built already (by the secrecy check): the rest is cheap
            self.views.append(_view(st, self.viewer, self._log_from, observation))
        else:
            try:
                self.views.append(_Snapshot(st, layout, self.viewer, self._log_from))
            except ValueError:  # a state holding something marshal cannot copy: build the view now
                self.views.append(_view(st, self.viewer, self._log_from))
        self.layouts.append(layout)
        self._log_from = len(st.log)

    def prefix(self, k: int) -> "LazyTrace":
        t = LazyTrace(self.viewer)
        t.start, t.views, t.layouts = self.start, self.views[:k + 1], self.layouts[:k + 1]
        t.acts = self.acts[:k]
        t.seen = [d if d <= k else -1 for d in self.seen]
        t.moved = [d if d <= k else -1 for d in self.moved]
        return t


# the parts of a State a snapshot marshals: all but the rules, the log and history, the caches,
# what the state shares with its clones, and the zones and where each card is (the trace's
# layout of the zones has them)
_SNAPSHOT_SKIP = frozenset({"game", "prog", "log", "history", "_log_n", "_history_n", "_own", "_fshared", "cov",
                            "_memo", "_legal", "_legal_map", "zones", "where",
                            "opts"})  # (the options never change in a game: the snapshot shares them)
_SNAPSHOT_FIELDS = tuple(f for f in State.__slots__ if f not in _SNAPSHOT_SKIP)
_snapshot_values = operator.attrgetter(*_SNAPSHOT_FIELDS)


class _LegalText:
    """What an observation reads of a legal action: its text."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Snapshot:
    """A view not built yet: the state at its decision as one bytes object (marshal: a deep
    copy in one C call, and bytes cost the garbage collector nothing -- a State copy per
    decision, all lists and dicts, made every collection slower than the views it saves),
    its zones as the trace's layout of them (where each card is follows from the zones,
    which the cards check holds to that), the viewer's legal actions' texts when the viewer
    is to act, and where the log stood.  The log itself is the live state's: it only grows,
    and entries are never changed once written, so log[:log_to] is the log as it was then."""
    __slots__ = ("game", "opts", "data", "layout", "viewer", "log_from", "log_to")

    def __init__(self, st, layout: tuple, viewer: int, log_from: int):
        legal = None
        if st._legal is not None and st.current_player == viewer:
            legal = tuple(st.legal_action_strings())
        self.data = marshal.dumps((_snapshot_values(st), legal))
        self.game, self.layout, self.viewer, self.log_from, self.log_to = st.game, layout, viewer, log_from, len(st.log)
        self.opts = st.opts

    def build(self, log: list) -> tuple:
        """Exactly what Trace.record stores: secrecy._view of the state then."""
        values, legal = marshal.loads(self.data)
        snap = State.__new__(State)
        snap.game, snap.prog, snap.opts = self.game, self.game.prog, self.opts
        for f, v in zip(_SNAPSHOT_FIELDS, values):
            setattr(snap, f, v)
        snap.zones = [list(z) for z in self.layout]
        where = snap.where = [0] * snap.prog.card_count
        for zi, zone in enumerate(self.layout):
            for c in zone:
                where[c] = zi
        snap.log, snap.history = log[:self.log_to], []
        snap._log_n = snap._history_n = snap._own = snap._fshared = None
        snap.cov = snap._memo = snap._legal_map = None
        snap._legal = [_LegalText(t) for t in legal] if legal is not None else None
        return _view(snap, self.viewer, self.log_from)


class _LazyViews:
    """The list of a LazyTrace's views: an entry is built on first reading and kept (as the
    text tuple Trace keeps); slices share the entries not built yet."""
    __slots__ = ("items", "log")

    def __init__(self, items: Optional[list] = None, log: Optional[list] = None):
        self.items = items if items is not None else []
        self.log = log

    def append(self, item) -> None:
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _LazyViews(self.items[k], self.log)
        item = self.items[k]
        if type(item) is _Snapshot:
            item = self.items[k] = item.build(self.log)
        return item

    def __iter__(self):
        return (self[k] for k in range(len(self.items)))
