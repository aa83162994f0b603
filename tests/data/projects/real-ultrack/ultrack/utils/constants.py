import os

NO_PARENT = -1

ULTRACK_DEBUG = bool(int(os.environ.get("ULTRACK_DEBUG", False)))
