from laia.dummies.data_modules.dummy_mnist import DummyMNIST
from laia.dummies.data_modules.dummy_mnist_lines import DummyMNISTLines
from laia.dummies.dummy_model import DummyModel
from laia.dummies.dummy_plugin import DummyLoggingPlugin
from laia.dummies.dummy_trainer import DummyTrainer
from laia.dummies.modules.dummy_engine import DummyEngine
from laia.dummies.modules.dummy_evaluator import DummyEvaluator
