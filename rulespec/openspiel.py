"""`rulespec.openspiel` is a public name: the module lives in `rulespec.tools.ai.openspiel` (the tools
floor).  This face makes the old name the very same module."""
import sys

import rulespec.tools.ai.openspiel as _module

sys.modules[__name__] = _module
