"""A torch whose import never returns, like a CUDA init stuck on a wedged GPU."""

import time

time.sleep(3600)
