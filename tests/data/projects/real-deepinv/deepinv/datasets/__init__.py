from .datagenerator import generate_dataset, HDF5Dataset
from .patch_dataset import PatchDataset
from .random_sampler import RandomPatchSampler
from .div2k import DIV2K
from .urban100 import Urban100HR
from .set14 import Set14HR
from .set5 import Set5HR
from .bsds500 import BSDS500
from .bsd100 import BSD100HR
from .mcmaster import McMaster
from .kodak24 import Kodak24
from .cbsd68 import CBSD68
from .fastmri import (
    FastMRISliceDataset,
    SimpleFastMRISliceDataset,
    MRISliceTransform,
)
from .cmrxrecon import CMRxReconSliceDataset
from .lidc_idri import LidcIdriSliceDataset
from .flickr2k import Flickr2kHR
from .lsdir import LsdirHR
from .fmd import FMD
from .kohler import Kohler
from .utils import download_archive
from .satellite import NBUDataset
from .base import (
    ImageDataset,
    check_dataset,
    TensorDataset,
    ImageFolder,
    batch_as_dict,
)
from .skmtea import SKMTEASliceDataset
from .brainweb_pet import BrainWebPET
from .brainweb_mri import BrainWebMRI
from .calgary import CalgarySliceDataset, CalgarySliceTransform
from .detect import DeteCTDataset
