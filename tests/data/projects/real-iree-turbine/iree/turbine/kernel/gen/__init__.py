from .thread import *
from .kernel import *

from .._support.tracing import TestLaunchContext
