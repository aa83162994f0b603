from birder.net.acnet import ACNet
from birder.net.alexnet import AlexNet
from birder.net.biformer import BiFormer
from birder.net.cait import CaiT
from birder.net.cas_vit import CAS_ViT
from birder.net.coat import CoaT
from birder.net.conv2former import Conv2Former
from birder.net.convmixer import ConvMixer
from birder.net.convnext_v1 import ConvNeXt_v1
from birder.net.convnext_v1_iso import ConvNeXt_v1_Isotropic
from birder.net.convnext_v2 import ConvNeXt_v2
from birder.net.cpubone import CPUBone
from birder.net.crossformer import CrossFormer
from birder.net.crossvit import CrossViT
from birder.net.cspnet import CSPNet
from birder.net.cspnext import CSPNeXt
from birder.net.cswin_transformer import CSWin_Transformer
from birder.net.darknet import Darknet
from birder.net.davit import DaViT
from birder.net.deit import DeiT
from birder.net.densenet import DenseNet
from birder.net.dpn import DPN
from birder.net.edgenext import EdgeNeXt
from birder.net.edgevit import EdgeViT
from birder.net.efficientformer_v1 import EfficientFormer_v1
from birder.net.efficientformer_v2 import EfficientFormer_v2
from birder.net.efficientmod import EfficientMod
from birder.net.efficientnet_lite import EfficientNet_Lite
from birder.net.efficientnet_v1 import EfficientNet_v1
from birder.net.efficientnet_v2 import EfficientNet_v2
from birder.net.efficientvim import EfficientViM
from birder.net.efficientvit_mit import EfficientViT_MIT
from birder.net.efficientvit_msft import EfficientViT_MSFT
from birder.net.fasternet import FasterNet
from birder.net.fastvit import FastViT
from birder.net.flexivit import FlexiViT
from birder.net.focalnet import FocalNet
from birder.net.gc_vit import GC_ViT
from birder.net.ghostnet_v1 import GhostNet_v1
from birder.net.ghostnet_v2 import GhostNet_v2
from birder.net.ghostnet_v3 import GhostNet_v3
from birder.net.groupmixformer import GroupMixFormer
from birder.net.hgnet_v1 import HGNet_v1
from birder.net.hgnet_v2 import HGNet_v2
from birder.net.hiera import Hiera
from birder.net.hieradet import HieraDet
from birder.net.hornet import HorNet
from birder.net.iformer import iFormer
from birder.net.inception_next import Inception_NeXt
from birder.net.inception_resnet_v1 import Inception_ResNet_v1
from birder.net.inception_resnet_v2 import Inception_ResNet_v2
from birder.net.inception_v3 import Inception_v3
from birder.net.inception_v4 import Inception_v4
from birder.net.levit import LeViT
from birder.net.lit_v1 import LIT_v1
from birder.net.lit_v1_tiny import LIT_v1_Tiny
from birder.net.lit_v2 import LIT_v2
from birder.net.mambaout import MambaOut
from birder.net.maxvit import MaxViT
from birder.net.metaformer import MetaFormer
from birder.net.microvit_v1 import MicroViT_v1
from birder.net.microvit_v2 import MicroViT_v2
from birder.net.mnasnet import MNASNet
from birder.net.mobilenet_v1 import MobileNet_v1
from birder.net.mobilenet_v2 import MobileNet_v2
from birder.net.mobilenet_v3 import MobileNet_v3
from birder.net.mobilenet_v4 import MobileNet_v4
from birder.net.mobilenet_v4_hybrid import MobileNet_v4_Hybrid
from birder.net.mobileone import MobileOne
from birder.net.mobilevit_v1 import MobileViT_v1
from birder.net.mobilevit_v2 import MobileViT_v2
from birder.net.moganet import MogaNet
from birder.net.mvit_v1 import MViT_v1
from birder.net.mvit_v2 import MViT_v2
from birder.net.naflex_rope_vit import NaFlex_RoPE_ViT
from birder.net.naflex_vit import NaFlex_ViT
from birder.net.nextvit import NextViT
from birder.net.nfnet import NFNet
from birder.net.pit import PiT
from birder.net.pnasnet import PNASNet
from birder.net.pvt_v1 import PVT_v1
from birder.net.pvt_v2 import PVT_v2
from birder.net.rdnet import RDNet
from birder.net.regionvit import RegionViT
from birder.net.regnet import RegNet
from birder.net.regnet_z import RegNet_Z
from birder.net.repghost import RepGhost
from birder.net.replknet import RepLKNet
from birder.net.repvgg import RepVgg
from birder.net.repvit import RepViT
from birder.net.resmlp import ResMLP
from birder.net.resnest import ResNeSt
from birder.net.resnet_v1 import ResNet_v1
from birder.net.resnet_v2 import ResNet_v2
from birder.net.resnext import ResNeXt
from birder.net.rexnet import ReXNet
from birder.net.rexnet_lite import ReXNet_Lite
from birder.net.rope_flexivit import RoPE_FlexiViT
from birder.net.rope_vit import RoPE_ViT
from birder.net.rope_vit5 import RoPE_ViT5
from birder.net.rope_vit_moe import RoPE_ViT_MoE
from birder.net.sequencer2d import Sequencer2d
from birder.net.shufflenet_v1 import ShuffleNet_v1
from birder.net.shufflenet_v2 import ShuffleNet_v2
from birder.net.shvit import SHViT
from birder.net.simple_vit import Simple_ViT
from birder.net.smt import SMT
from birder.net.squeezenet import SqueezeNet
from birder.net.squeezenext import SqueezeNext
from birder.net.starnet import StarNet
from birder.net.swiftformer import SwiftFormer
from birder.net.swin_transformer_v1 import Swin_Transformer_v1
from birder.net.swin_transformer_v2 import Swin_Transformer_v2
from birder.net.tiny_vit import Tiny_ViT
from birder.net.transnext import TransNeXt
from birder.net.uniformer import UniFormer
from birder.net.unireplknet import UniRepLKNet
from birder.net.van import VAN
from birder.net.vgg import Vgg
from birder.net.vgg_reduced import Vgg_Reduced
from birder.net.vit import ViT
from birder.net.vit_moe import ViT_MoE
from birder.net.vit_parallel import ViT_Parallel
from birder.net.vit_sam import ViT_SAM
from birder.net.vit_windowed import ViT_Windowed
from birder.net.volo import VOLO
from birder.net.vovnet_v1 import VoVNet_v1
from birder.net.vovnet_v2 import VoVNet_v2
from birder.net.wide_resnet import Wide_ResNet
from birder.net.xception import Xception
from birder.net.xcit import XCiT

__all__ = [
    "ACNet",
    "AlexNet",
    "BiFormer",
    "CaiT",
    "CAS_ViT",
    "CoaT",
    "Conv2Former",
    "ConvMixer",
    "ConvNeXt_v1",
    "ConvNeXt_v1_Isotropic",
    "ConvNeXt_v2",
    "CPUBone",
    "CrossFormer",
    "CrossViT",
    "CSPNet",
    "CSPNeXt",
    "CSWin_Transformer",
    "Darknet",
    "DaViT",
    "DeiT",
    "DenseNet",
    "DPN",
    "EdgeNeXt",
    "EdgeViT",
    "EfficientFormer_v1",
    "EfficientFormer_v2",
    "EfficientMod",
    "EfficientNet_Lite",
    "EfficientNet_v1",
    "EfficientNet_v2",
    "EfficientViM",
    "EfficientViT_MIT",
    "EfficientViT_MSFT",
    "FasterNet",
    "FastViT",
    "FlexiViT",
    "FocalNet",
    "GC_ViT",
    "GhostNet_v1",
    "GhostNet_v2",
    "GhostNet_v3",
    "GroupMixFormer",
    "HGNet_v1",
    "HGNet_v2",
    "Hiera",
    "HieraDet",
    "HorNet",
    "iFormer",
    "Inception_NeXt",
    "Inception_ResNet_v1",
    "Inception_ResNet_v2",
    "Inception_v3",
    "Inception_v4",
    "LeViT",
    "LIT_v1",
    "LIT_v1_Tiny",
    "LIT_v2",
    "MambaOut",
    "MaxViT",
    "MetaFormer",
    "MicroViT_v1",
    "MicroViT_v2",
    "MNASNet",
    "MobileNet_v1",
    "MobileNet_v2",
    "MobileNet_v3",
    "MobileNet_v4",
    "MobileNet_v4_Hybrid",
    "MobileOne",
    "MobileViT_v1",
    "MobileViT_v2",
    "MogaNet",
    "MViT_v1",
    "MViT_v2",
    "NaFlex_RoPE_ViT",
    "NaFlex_ViT",
    "NextViT",
    "NFNet",
    "PiT",
    "PNASNet",
    "PVT_v1",
    "PVT_v2",
    "RDNet",
    "RegionViT",
    "RegNet",
    "RegNet_Z",
    "RepGhost",
    "RepLKNet",
    "RepVgg",
    "RepViT",
    "ResMLP",
    "ResNeSt",
    "ResNet_v1",
    "ResNet_v2",
    "ResNeXt",
    "ReXNet",
    "ReXNet_Lite",
    "RoPE_FlexiViT",
    "RoPE_ViT",
    "RoPE_ViT5",
    "RoPE_ViT_MoE",
    "Sequencer2d",
    "ShuffleNet_v1",
    "ShuffleNet_v2",
    "SHViT",
    "Simple_ViT",
    "SMT",
    "SqueezeNet",
    "SqueezeNext",
    "StarNet",
    "SwiftFormer",
    "Swin_Transformer_v1",
    "Swin_Transformer_v2",
    "Tiny_ViT",
    "TransNeXt",
    "UniFormer",
    "UniRepLKNet",
    "VAN",
    "Vgg",
    "Vgg_Reduced",
    "ViT",
    "ViT_MoE",
    "ViT_Parallel",
    "ViT_SAM",
    "ViT_Windowed",
    "VOLO",
    "VoVNet_v1",
    "VoVNet_v2",
    "Wide_ResNet",
    "Xception",
    "XCiT",
]
