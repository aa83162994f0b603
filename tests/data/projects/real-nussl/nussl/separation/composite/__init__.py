"""
Ensemble clustering
-------------------

.. autoclass:: nussl.separation.composite.EnsembleClustering
    :autosummary:

.. autoclass:: nussl.separation.composite.OverlapAdd
    :autosummary:
"""

from .ensemble_clustering import EnsembleClustering
from .overlap_add import OverlapAdd
