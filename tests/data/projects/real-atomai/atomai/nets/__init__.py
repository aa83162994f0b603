from .blocks import ConvBlock, DilatedBlock, ResBlock, ResModule, UpsampleBlock, CustomBackbone
from .ed import (SignalDecoder, SignalED, SignalEncoder, convDecoderNet,
                 convEncoderNet, coord_latent, fcDecoderNet, fcEncoderNet,
                 rDecoderNet, init_imspec_model, init_VAE_nets)
from .fcnn import Unet, dilnet, SegResNet, ResHedNet, init_fcnn_model
from .gp import fcFeatureExtractor, GPRegressionModel, CustomGPModel
from .reg_cls import RegressorNet, ClassifierNet, MultiTaskClassifierNet, init_reg_model, init_cls_model


__all__ = ['ConvBlock', 'ResBlock', 'ResModule', 'UpsampleBlock', 'DilatedBlock',
           'init_fcnn_model', 'SegResNet', 'Unet', 'ResHedNet', 'dilnet', 'fcEncoderNet',
           'fcDecoderNet',  'convEncoderNet', 'convDecoderNet', 'rDecoderNet',
           'coord_latent', 'load_model', 'load_ensemble', 'init_imspec_model',
           'init_VAE_nets', 'SignalEncoder', 'SignalDecoder', 'SignalED',
           'fcFeatureExtractor', 'GPRegressionModel', 'CustomBackbone', 'RegressorNet',
           'ClassifierNet', 'init_reg_model', 'init_cls_model', 'CustomGPModel', 'MultiTaskClassifierNet']
