from xfuser.compat import optional_exporter

from .base_pipeline import xFuserPipelineBaseWrapper
from .pipeline_pixart_alpha import xFuserPixArtAlphaPipeline
from .pipeline_pixart_sigma import xFuserPixArtSigmaPipeline
from .pipeline_stable_diffusion_3 import xFuserStableDiffusion3Pipeline
from .pipeline_flux import xFuserFluxPipeline
from .pipeline_latte import xFuserLattePipeline
from .pipeline_cogvideox import xFuserCogVideoXPipeline
from .pipeline_consisid import xFuserConsisIDPipeline
from .pipeline_hunyuandit import xFuserHunyuanDiTPipeline
from .pipeline_stable_diffusion_xl import xFuserStableDiffusionXLPipeline
from .pipeline_sana import xFuserSanaPipeline
from .pipeline_sana_sprint import xFuserSanaSprintPipeline
from .pipeline_causal_wan import xFuserCausalWanPipeline
from .pipeline_lumina2 import xFuserLumina2Pipeline

__all__ = [
    "xFuserPipelineBaseWrapper",
    "xFuserPixArtAlphaPipeline",
    "xFuserPixArtSigmaPipeline",
    "xFuserStableDiffusion3Pipeline",
    "xFuserFluxPipeline",
    "xFuserLattePipeline",
    "xFuserHunyuanDiTPipeline",
    "xFuserCogVideoXPipeline",
    "xFuserConsisIDPipeline",
    "xFuserStableDiffusionXLPipeline",
    "xFuserSanaPipeline",
    "xFuserSanaSprintPipeline",
    "xFuserCausalWanPipeline",
    "xFuserLumina2Pipeline",
]

# These need diffusers symbols newer than the install floor, so they are gated on their
# module importing.
_optional = optional_exporter(globals())
_optional(".pipeline_flux2", "xFuserFlux2Pipeline", "xFuserFlux2KleinPipeline")
