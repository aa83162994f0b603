"""
Signature Analyzer plotting API.
"""
from ._gsea import gprof
