from .ls_adam import LSFSAdam
from .ls_label_smoothed_cross_entropy import LSLabelSmoothedCrossEntropyCriterion
from .ls_transformer import LSTransformerModel
from .ls_bart import LSBARTModel
from .ls_translation import LSTranslationTask
