# -*- coding: utf-8 -*-
"""
Created on Mon Mar  9 19:22:41 2026

@author: Fisseha
"""

from .inference import (
    estimate_flow,
    load_model,
    infer_flow_pair,
    infer_flow_triplet,
    save_flow,
    save_vis,
)

__all__ = [
    "estimate_flow",
    "load_model",
    "infer_flow_pair",
    "infer_flow_triplet",
    "save_flow",
    "save_vis",
]