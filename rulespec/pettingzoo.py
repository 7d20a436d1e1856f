"""`rulespec.pettingzoo` is a public name: the module lives in `rulespec.tools.ai.pettingzoo` (the tools
floor).  This face makes the old name the very same module."""
import sys

import rulespec.tools.ai.pettingzoo as _module

sys.modules[__name__] = _module
