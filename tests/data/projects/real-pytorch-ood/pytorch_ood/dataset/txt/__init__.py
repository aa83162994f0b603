"""
Text datasets for OOD detection.
"""

from .multi30k import Multi30k
from .newsgroups import NewsGroup20
from .reuters import Reuters8, Reuters52
from .wiki import WikiText2, WikiText103
from .wmt16 import WMT16Sentences
