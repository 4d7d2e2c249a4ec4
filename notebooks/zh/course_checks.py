"""The exercise checks for the Chinese notebooks: the package notebooks/course_checks/, in Chinese.

The zh notebooks run in this folder and their code cells are identical to the English ones, so
`import course_checks as check` finds this file. It loads the one real package from the folder
above (no second copy of the checks to keep in step) and switches its feedback to Chinese.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent / "course_checks"
_spec = importlib.util.spec_from_file_location(
    "course_checks", _PACKAGE / "__init__.py", submodule_search_locations=[str(_PACKAGE)]
)
assert _spec is not None and _spec.loader is not None, f"cannot load {_PACKAGE}"
_package = importlib.util.module_from_spec(_spec)
# The package's own `from .feedback import ...` looks itself up in sys.modules by this name, and
# `import course_checks` then hands the importer the package, with no wrapper in between.
sys.modules[__name__] = _package
_spec.loader.exec_module(_package)
_package.set_language("zh")
