from mjlab.utils.noise.noise_cfg import ConstantNoiseCfg as ConstantNoiseCfg
from mjlab.utils.noise.noise_cfg import GaussianNoiseCfg as GaussianNoiseCfg
from mjlab.utils.noise.noise_cfg import NoiseCfg as NoiseCfg
from mjlab.utils.noise.noise_cfg import NoiseModelCfg as NoiseModelCfg
from mjlab.utils.noise.noise_cfg import (
  NoiseModelWithAdditiveBiasCfg as NoiseModelWithAdditiveBiasCfg,
)
from mjlab.utils.noise.noise_cfg import UniformNoiseCfg as UniformNoiseCfg
from mjlab.utils.noise.noise_model import NoiseModel as NoiseModel
from mjlab.utils.noise.noise_model import (
  NoiseModelWithAdditiveBias as NoiseModelWithAdditiveBias,
)
