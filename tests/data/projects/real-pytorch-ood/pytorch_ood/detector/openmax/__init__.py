"""

.. autoclass:: pytorch_ood.detector.OpenMax
   :members:
   :inherited-members:
   :show-inheritance:

"""

from .torch import OpenMax
