# -*- coding: utf-8 -*-
from .angle_encoding import SphericalBasisLayer
from .edge_encoding import SmoothBesselBasis
from .layers import MLP, GatedMLP, LinearLayer, SwishLayer
from .message_passing import AtomLayer, EdgeLayer, MainBlock

__all__ = [
    "SphericalBasisLayer",
    "SmoothBesselBasis",
    "GatedMLP",
    "MLP",
    "LinearLayer",
    "SwishLayer",
    "AtomLayer",
    "EdgeLayer",
    "MainBlock",
]
