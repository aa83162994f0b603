# =========================================================
# __init__.py
# Description: Initialization file for the exp_edit package
# =========================================================

from .exp_edit import EXPEdit