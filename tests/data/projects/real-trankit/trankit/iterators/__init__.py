from ..utils.base_utils import *
from collections import namedtuple
from ..utils.tbinfo import langwithner
from ..utils.mwt_lemma_utils.mwt_utils import get_mwt_expansions
from ..utils.posdep_utils import *
from ..utils.tokenizer_utils import *
from ..utils.ner_utils import *
