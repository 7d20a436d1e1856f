"""Pausing the garbage collector while objects are made by the hundred thousand: a model, a
compiled program, a formatted file (on a 20,000-line file the collector cost more than the
formatting, and more a line the larger the file)."""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def no_gc():
    """Pause the garbage collector while tens of thousands of long-lived objects are made (a
    model, a compiled program): a collection meanwhile finds no garbage and costs a third of
    the time.  Then move what exists to the oldest generation, as if it had survived the
    collections it skipped, so that the first collection after the pause does not go through all
    of it again (unless something else froze objects for its own reasons: then leave them be)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()
