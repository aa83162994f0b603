from .backbones import ResNetBackbone, UNetBackbone
from .config import SpotiflowModelConfig, SpotiflowTrainingConfig
from .post import FeaturePyramidNetwork, MultiHeadProcessor
from .spotiflow import Spotiflow
from .trainer import CustomEarlyStopping, SpotiflowModelCheckpoint
