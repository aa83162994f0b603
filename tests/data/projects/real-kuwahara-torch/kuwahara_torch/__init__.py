from kuwahara_torch.functional import generalized_kuwahara, kuwahara
from kuwahara_torch.utils import to_pil, to_torch
