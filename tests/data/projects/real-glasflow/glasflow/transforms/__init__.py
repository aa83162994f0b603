# -*- coding: utf-8 -*-
from .coupling import AffineCouplingTransform

__all__ = ["AffineCouplingTransform"]
