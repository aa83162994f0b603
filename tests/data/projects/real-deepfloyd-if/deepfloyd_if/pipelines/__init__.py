# -*- coding: utf-8 -*-
from .dream import dream
from .style_transfer import style_transfer
from .super_resolution import super_resolution
from .inpainting import inpainting

__all__ = ['dream', 'style_transfer', 'super_resolution', 'inpainting']
