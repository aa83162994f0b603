# ========================================================
# __init__.py
# Description: Initialization file for the unigram package
# ========================================================

from .unigram import Unigram