import pandas as pd
import torch
from torch import as_tensor,Tensor,ByteTensor,LongTensor,FloatTensor,HalfTensor,DoubleTensor
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import SequentialSampler,RandomSampler,Sampler,BatchSampler
from torch.utils.data import IterableDataset,get_worker_info
from torch.utils.data._utils.collate import default_collate,default_convert

