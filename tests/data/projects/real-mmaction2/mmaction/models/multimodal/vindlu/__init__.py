# Copyright (c) OpenMMLab. All rights reserved.
from .beit3d import BeitModel3D
from .tokenizer import VindLUTokenizer
from .vindlu_ret import VindLURetrieval
from .vindlu_ret_mc import VindLURetrievalMC
from .vindlu_vqa import VindLUVQA
from .xbert import BertDecoder, BertModel

__all__ = [
    'VindLUVQA', 'VindLURetrievalMC', 'VindLURetrieval', 'VindLUTokenizer',
    'BeitModel3D', 'BertDecoder', 'BertModel'
]
