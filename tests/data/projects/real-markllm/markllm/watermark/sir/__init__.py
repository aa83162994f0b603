# ====================================================
# __init__.py
# Description: Initialization file for the sir package
# ====================================================

from .sir import SIR