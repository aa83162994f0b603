from .eval_only import eval_only
from .parallel import parallel
from .train import train
from .train_eval import train_eval
from .train_holdout import train_holdout
from .train_save import train_save
