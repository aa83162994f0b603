from zorro_pytorch.zorro_pytorch import Zorro, TokenTypes
