from laia.engine.data_module import DataModule
from laia.engine.engine_module import EngineModule
from laia.engine.evaluator_module import EvaluatorModule
from laia.engine.feeder import Compose, ImageFeeder, ItemFeeder
from laia.engine.htr_engine_module import HTREngineModule
