from .vqgan_arch import VQAutoEncoder
from .codeformer_arch import CodeFormer as CodeFormerArch
from .codeformer import CodeFormer
