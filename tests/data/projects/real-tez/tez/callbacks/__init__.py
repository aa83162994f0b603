from .callbacks import Callback, CallbackRunner
from .early_stopping import EarlyStopping
from .progress import Progress
