##################################################
# Store Library Version
##################################################
import os.path

###############################################################
# utils module accessible directly from pytorch-widedeep.<util>
##############################################################
from pytorch_widedeep.utils import (
    text_utils,
    image_utils,
    deeptabular_utils,
    fastai_transforms,
)
from pytorch_widedeep.tab2vec import Tab2Vec
from pytorch_widedeep.version import __version__
from pytorch_widedeep.training import Trainer, BayesianTrainer
