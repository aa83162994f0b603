from .aepicker import BasicPhaseAE
from .base import GroupingHelper, SeisBenchModel, WaveformModel, WaveformPipeline
from .cred import CRED
from .das_base import (
    DASAnnotateCallback,
    DASModel,
    DASPickingCallback,
    FKFilter,
    InMemoryCollectionCallback,
    MultiCallback,
    PatchCoordinate,
    PatchingStructure,
    VirtualTransformedDataArray,
    WriterCallback,
)
from .das_wrapper import DASWaveformModelWrapper
from .deepdenoiser import DeepDenoiser
from .deepsubdas import DeepSubDAS
from .depthphase import DepthFinder, DepthPhaseModel, DepthPhaseNet, DepthPhaseTEAM
from .dpp import DeepPhasePick, DPPDetector, DPPPicker
from .dkpn import DKPN
from .eqcct import EQCCTP, EQCCTS
from .eqtransformer import EQTransformer
from .gpd import GPD
from .lfe_detect import LFEDetect
from .obstransformer import OBSTransformer
from .phasenet import PhaseNet, PhaseNetLight, VariableLengthPhaseNet
from .pickblue import PickBlue
from .seisdae import SeisDAE
from .skynet import Skynet
from .team import PhaseTEAM
from .eqtp import EQTP

__all__ = [
    "BasicPhaseAE",
    "GroupingHelper",
    "SeisBenchModel",
    "WaveformModel",
    "WaveformPipeline",
    "CRED",
    "DASAnnotateCallback",
    "DASModel",
    "DASPickingCallback",
    "DASWaveformModelWrapper",
    "DeepSubDAS",
    "FKFilter",
    "InMemoryCollectionCallback",
    "MultiCallback",
    "PatchCoordinate",
    "PatchingStructure",
    "VirtualTransformedDataArray",
    "WriterCallback",
    "DeepDenoiser",
    "DepthFinder",
    "DepthPhaseModel",
    "DepthPhaseNet",
    "DepthPhaseTEAM",
    "DeepPhasePick",
    "DKPN",
    "DPPDetector",
    "DPPPicker",
    "EQCCTP",
    "EQCCTS",
    "EQTransformer",
    "GPD",
    "LFEDetect",
    "OBSTransformer",
    "PhaseNet",
    "PhaseNetLight",
    "VariableLengthPhaseNet",
    "PickBlue",
    "SeisDAE",
    "Skynet",
    "PhaseTEAM",
    "EQTP",
]
