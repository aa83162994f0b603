from .evaluator import BaseEvaluator, BaseNEREvaluator, BaseRelexEvaluator
from .evaluate_ner import get_for_all_path, get_for_one_path
