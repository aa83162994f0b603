MAJOR = 0
MINOR = 1
PATCH = 2

__version__ = "%d.%d.%d" % (MAJOR, MINOR, PATCH)