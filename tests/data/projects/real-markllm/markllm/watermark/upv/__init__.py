# ====================================================
# __init__.py
# Description: Initialization file for the upv package
# ====================================================

from .upv import UPV