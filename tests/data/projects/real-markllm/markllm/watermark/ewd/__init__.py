# ====================================================
# __init__.py
# Description: Initialization file for the ewd package
# ====================================================

from .ewd import EWD