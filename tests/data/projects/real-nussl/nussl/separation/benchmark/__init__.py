"""
High pass filter
----------------

.. autoclass:: nussl.separation.benchmark.HighLowPassFilter
    :autosummary:

Ideal binary mask
-----------------

.. autoclass:: nussl.separation.benchmark.IdealBinaryMask
    :autosummary:

Ideal ratio mask
----------------

.. autoclass:: nussl.separation.benchmark.IdealRatioMask
    :autosummary:

Wiener filter
-------------

.. autoclass:: nussl.separation.benchmark.WienerFilter
    :autosummary:

Mix as estimate
---------------

.. autoclass:: nussl.separation.benchmark.MixAsEstimate
    :autosummary:

"""

from .high_low_pass_filter import HighLowPassFilter
from .ideal_binary_mask import IdealBinaryMask
from .ideal_ratio_mask import IdealRatioMask
from .wiener_filter import WienerFilter
from .mix_as_estimate import MixAsEstimate
