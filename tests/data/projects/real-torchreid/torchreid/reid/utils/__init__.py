from __future__ import absolute_import

from torchreid.reid.utils.tools import *
from torchreid.reid.utils.rerank import re_ranking
from torchreid.reid.utils.loggers import *
from torchreid.reid.utils.avgmeter import *
from torchreid.reid.utils.reidtools import *
from torchreid.reid.utils.torchtools import *
from torchreid.reid.utils.model_complexity import compute_model_complexity
from torchreid.reid.utils.feature_extractor import FeatureExtractor
