# Run by IPython when the course's kernel starts in the browser-only site (see course_lite).
import course_lite
from IPython import get_ipython

course_lite.install(get_ipython())
del course_lite, get_ipython
