# BoxMOT AGPL-3.0 license

from boxmot.reid.backbones.heads.bnneck import BNNeck, BNNeck3, ClassBlock

__all__ = ["BNNeck", "BNNeck3", "ClassBlock"]
