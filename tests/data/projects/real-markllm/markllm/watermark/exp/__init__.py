# ====================================================
# __init__.py
# Description: Initialization file for the exp package
# ====================================================

from .exp import EXP