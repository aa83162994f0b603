"""
For using pyseqm with hippynn
"""

from . import seqm_modules, seqm_nodes, seqm_one
