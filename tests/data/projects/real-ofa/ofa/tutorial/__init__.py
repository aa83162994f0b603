from .accuracy_predictor import AccuracyPredictor
from .flops_table import FLOPsTable
from .latency_table import LatencyTable
from .evolution_finder import EvolutionFinder
from .imagenet_eval_helper import evaluate_ofa_subnet, evaluate_ofa_specialized
