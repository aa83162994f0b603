from empanada.evaluation.instance_metrics import f1_50, f1_75, precision_50, precision_75, recall_50, recall_75
from empanada.evaluation.panoptic_metrics import panoptic_quality
from empanada.evaluation.semantic_metrics import iou
from empanada.evaluation.evaluator import Evaluator
