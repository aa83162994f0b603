from recbole.evaluator.base_metric import *
from recbole.evaluator.metrics import *
from recbole.evaluator.evaluator import *
from recbole.evaluator.register import *
from recbole.evaluator.collector import *
