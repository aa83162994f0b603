name = "autovideo"
__version__ = "1.2.4"

from .utils import build_pipeline, fit, produce, fit_produce, produce_by_path, compute_accuracy_with_preds
