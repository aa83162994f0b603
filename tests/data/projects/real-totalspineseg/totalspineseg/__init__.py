from .utils.augment import augment, augment_mp
from .utils.average4d import average4d, average4d_mp
from .utils.cpdir import cpdir_mp
from .utils.crop_image2seg import crop_image2seg, crop_image2seg_mp
from .utils.extract_levels import extract_levels, extract_levels_mp
from .utils.extract_alternate import extract_alternate, extract_alternate_mp
from .utils.extract_soft import extract_soft, extract_soft_mp
from .utils.fill_canal import fill_canal, fill_canal_mp
from .utils.iterative_label import iterative_label, iterative_label_mp
from .utils.largest_component import largest_component, largest_component_mp
from .utils.map_labels import map_labels, map_labels_mp
from .utils.preview_jpg import preview_jpg_mp
from .utils.reorient_canonical import reorient_canonical_mp
from .utils.resample import resample, resample_mp
from .utils.transform_seg2image import transform_seg2image, transform_seg2image_mp
from .utils.install_weights import install_weights
from .utils.predict_nnunet import predict_nnunet
from .utils.utils import ZIP_URLS, VERSION
from . import models

__version__ = VERSION