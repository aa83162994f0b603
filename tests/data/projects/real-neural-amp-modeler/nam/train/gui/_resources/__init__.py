# File: __init__.py
# Created Date: Tuesday May 14th 2024
# Author: Steven Atkinson (steven@atkinson.mn)

from . import settings  # noqa F401
