from .evaluator import DatasetEvaluator, inference_context, inference_on_dataset
from .reid_evaluation import ReidEvaluator
from .clas_evaluator import ClasEvaluator
from .testing import print_csv_format, verify_results

__all__ = [k for k in globals().keys() if not k.startswith("_")]
