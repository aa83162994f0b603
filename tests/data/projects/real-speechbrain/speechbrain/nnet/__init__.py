""" Package containing the different neural networks layers
"""

from speechbrain.utils.importutils import lazy_export_all

lazy_export_all(__file__, __name__, export_subpackages=True)

from .loss import stoi_loss  # noqa
