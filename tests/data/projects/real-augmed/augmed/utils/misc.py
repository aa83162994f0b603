import sys

def is_windows() -> bool:
    return 'win' in sys.platform
