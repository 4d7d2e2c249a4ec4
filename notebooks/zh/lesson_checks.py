"""The exercise checks for the Chinese notebooks: notebooks/lesson_checks.py, speaking Chinese.

The zh notebooks run in this folder and their code cells are identical to the English ones, so
`import lesson_checks as check` finds this file. It loads the one real module from the folder
above (no second copy of the checks to keep in step) and switches its feedback to Chinese.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_ENGLISH = Path(__file__).resolve().parent.parent / "lesson_checks.py"
_spec = importlib.util.spec_from_file_location("lesson_checks", _ENGLISH)
assert _spec is not None and _spec.loader is not None, f"cannot load {_ENGLISH}"
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
_module.set_language("zh")
# `import lesson_checks` hands the importer whatever sys.modules holds once this file has run:
# the real module, so `check.check_version(...)` and the tests see no wrapper in between.
sys.modules[__name__] = _module
