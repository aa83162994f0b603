"""Version information for minimamba package."""

__version__ = "1.0.1"
__version_info__ = (1, 0, 1)

# Release information
MAJOR = 1
MINOR = 0
PATCH = 1

VERSION = f"{MAJOR}.{MINOR}.{PATCH}"

# Release status
RELEASE_STATUS = "Production/Stable"