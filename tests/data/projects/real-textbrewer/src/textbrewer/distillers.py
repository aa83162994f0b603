from .distiller_train import BasicTrainer
from .distiller_basic import BasicDistiller
from .distiller_general import GeneralDistiller
from .distiller_multitask import MultiTaskDistiller
from .distiller_multiteacher import MultiTeacherDistiller
