"""`rulespec.fmt` is a public name: the module lives in `rulespec.lang.fmt` (the language
floor).  This face makes the old name the very same module."""
import sys

import rulespec.lang.fmt as _module

sys.modules[__name__] = _module
