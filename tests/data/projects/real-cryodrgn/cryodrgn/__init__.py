import os
import logging.config

# Necessary to avoid deprecation warnings from datetime.strptime when using seaborn
# with Python 3.13
import warnings

warnings.filterwarnings(
    "ignore",
    category=DeprecationWarning,
    message="Parsing dates involving a day of month without "
    "a year specified is ambiguious.*",
)


# The _version.py file is managed by setuptools-scm
#   and is not in version control.
try:
    from cryodrgn._version import version as __version__  # type: ignore
except ModuleNotFoundError:
    # We're likely running as a source package without installation
    __version__ = "src"

_ROOT = os.path.abspath(os.path.dirname(__file__))

logging.config.dictConfig(
    {
        "version": 1,
        "formatters": {
            "standard": {
                "format": "(%(levelname)s) (%(filename)s) (%(asctime)s) %(message)s",
                "datefmt": "%d-%b-%Y %H:%M:%S",
            }
        },
        "handlers": {
            "default": {
                "level": "NOTSET",
                "formatter": "standard",
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
            }
        },
        "loggers": {"": {"handlers": ["default"], "level": "INFO"}},
    }
)
