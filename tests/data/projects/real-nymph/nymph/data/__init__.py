# -*- coding: utf-8 -*-
from .processor import NormProcessor, SeqProcessor
from .dataset import NormDataset, SeqDataset
from .tool import split_dataset