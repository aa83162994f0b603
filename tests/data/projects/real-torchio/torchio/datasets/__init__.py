from .bite import BITE3
from .ct_rate import CtRate
from .episurg import EPISURG
from .fpg import FPG
from .itk_snap import T1T2
from .itk_snap import AorticValve
from .itk_snap import BrainTumor
from .ixi import IXI
from .ixi import IXITiny
from .medmnist import AdrenalMNIST3D
from .medmnist import FractureMNIST3D
from .medmnist import NoduleMNIST3D
from .medmnist import OrganMNIST3D
from .medmnist import SynapseMNIST3D
from .medmnist import VesselMNIST3D
from .mni import Colin27
from .mni import ICBM2009CNonlinearSymmetric
from .mni import Pediatric
from .mni import Sheep
from .rsna_miccai import RSNAMICCAI
from .rsna_spine_fracture import RSNACervicalSpineFracture
from .slicer import Slicer
from .zone_plate import ZonePlate

__all__ = [
    'FPG',
    'Slicer',
    'BITE3',
    'CtRate',
    'IXI',
    'IXITiny',
    'RSNAMICCAI',
    'RSNACervicalSpineFracture',
    'EPISURG',
    'BrainTumor',
    'T1T2',
    'AorticValve',
    'Colin27',
    'Sheep',
    'Pediatric',
    'ICBM2009CNonlinearSymmetric',
    'OrganMNIST3D',
    'NoduleMNIST3D',
    'AdrenalMNIST3D',
    'FractureMNIST3D',
    'VesselMNIST3D',
    'SynapseMNIST3D',
    'ZonePlate',
]
