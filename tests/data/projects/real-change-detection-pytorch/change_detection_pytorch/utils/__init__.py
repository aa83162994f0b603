from . import train
from . import losses
from . import metrics
from . import lr_scheduler
