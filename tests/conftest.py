"""Settings shared by every test under tests/."""

import os

from hypothesis import settings

# No per-example deadline: timings on a shared 2-core machine vary too much to be a signal.
settings.register_profile("default", deadline=None)
# In CI, draw the same examples on every run so a failure can be reproduced from the log.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
