"""A torch whose import dies with SIGSEGV, like a native library crashing at load."""

import os
import signal

os.kill(os.getpid(), signal.SIGSEGV)
