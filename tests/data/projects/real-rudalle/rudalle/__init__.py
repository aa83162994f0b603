# -*- coding: utf-8 -*-
from .vae import get_vae
from .dalle import get_rudalle_model
from .tokenizer import get_tokenizer
from .realesrgan import get_realesrgan
from .emojich_unet import get_emojich_unet
from . import vae, dalle, tokenizer, realesrgan, pipelines, image_prompts


__all__ = [
    'get_vae',
    'get_rudalle_model',
    'get_tokenizer',
    'get_realesrgan',
    'get_emojich_unet',
    'vae',
    'dalle',
    'tokenizer',
    'realesrgan',
    'pipelines',
    'image_prompts',
]

__version__ = '1.1.3'
