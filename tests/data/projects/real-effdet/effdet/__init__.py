from .efficientdet import EfficientDet
from .bench import DetBenchPredict, DetBenchTrain, unwrap_bench
from .data import create_dataset, create_loader, create_parser, DetectionDatset, SkipSubset
from .evaluator import CocoEvaluator, PascalEvaluator, OpenImagesEvaluator, create_evaluator
from .config import get_efficientdet_config, default_detection_model_configs
from .factory import create_model, create_model_from_config
from .helpers import load_checkpoint, load_pretrained
