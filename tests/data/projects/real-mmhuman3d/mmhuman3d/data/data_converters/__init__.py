from .agora import AgoraConverter
from .amass import AmassConverter
from .builder import build_data_converter
from .cliff import CliffConverter
from .coco import CocoConverter
from .coco_hybrik import CocoHybrIKConverter
from .coco_wholebody import CocoWholebodyConverter
from .crowdpose import CrowdposeConverter
from .eft import EftConverter
from .ehf import EHFConverter
from .expose_curated_fits import ExposeCuratedFitsConverter
from .expose_spin_smplx import ExposeSPINSMPLXConverter
from .ffhq_flame import FFHQFlameConverter
from .freihand import FreihandConverter
from .gta_human import GTAHumanConverter
from .h36m import H36mConverter
from .h36m_hybrik import H36mHybrIKConverter
from .h36m_smplx import H36mSMPLXConverter
from .humman import HuMManConverter
from .insta_vibe import InstaVibeConverter
from .lsp import LspConverter
from .lsp_extended import LspExtendedConverter
from .mpi_inf_3dhp import MpiInf3dhpConverter
from .mpi_inf_3dhp_hybrik import MpiInf3dhpHybrIKConverter
from .mpii import MpiiConverter
from .penn_action import PennActionConverter
from .posetrack import PosetrackConverter
from .pw3d import Pw3dConverter
from .pw3d_hybrik import Pw3dHybrIKConverter
from .spin import SpinConverter
from .stirling import StirlingConverter
from .surreal import SurrealConverter
from .up3d import Up3dConverter
from .vibe import VibeConverter

__all__ = [
    'build_data_converter', 'AgoraConverter', 'MpiiConverter', 'H36mConverter',
    'AmassConverter', 'CocoConverter', 'CocoWholebodyConverter',
    'H36mConverter', 'LspExtendedConverter', 'LspConverter',
    'MpiInf3dhpConverter', 'PennActionConverter', 'PosetrackConverter',
    'Pw3dConverter', 'Up3dConverter', 'CrowdposeConverter', 'EftConverter',
    'GTAHumanConverter', 'CocoHybrIKConverter', 'H36mHybrIKConverter',
    'H36mSMPLXConverter', 'MpiInf3dhpHybrIKConverter', 'Pw3dHybrIKConverter',
    'SurrealConverter', 'InstaVibeConverter', 'SpinConverter', 'VibeConverter',
    'HuMManConverter', 'FFHQFlameConverter', 'ExposeCuratedFitsConverter',
    'ExposeSPINSMPLXConverter', 'FreihandConverter', 'StirlingConverter',
    'EHFConverter', 'CliffConverter'
]
