# ====================================================
# __init__.py
# Description: Initialization file for the xsir package
# ====================================================

from .xsir import XSIR