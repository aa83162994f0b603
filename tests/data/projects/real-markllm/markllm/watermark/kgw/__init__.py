# ====================================================
# __init__.py
# Description: Initialization file for the kgw package
# ====================================================

from .kgw import KGW