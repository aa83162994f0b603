# ======================================================
# __init__.py
# Description: Initialization file for the sweet package
# ======================================================

from .sweet import SWEET