from .adversarial_loss import *  # NOQA
from .duration_prediction_loss import *  # NOQA
from .feat_match_loss import *  # NOQA
from .mel_loss import *  # NOQA
from .stft_loss import *  # NOQA
