# =========================================================
# __init__.py
# Description: Initialization file for the exp_edit package
# =========================================================

from .its_edit import ITSEdit