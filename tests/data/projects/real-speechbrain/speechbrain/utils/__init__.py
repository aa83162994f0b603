"""Package containing various tools (accuracy, checkpoints ...)
"""

from speechbrain.utils.importutils import lazy_export_all

lazy_export_all(__file__, __name__)

from speechbrain.utils.seed import seed_everything  # noqa
