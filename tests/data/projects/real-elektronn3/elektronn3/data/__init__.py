from .cnndata import PatchCreator, SimpleNeuroData2d, Segmentation2d,\
    get_preview_batch, Reconstruction2d, TripletData2d
from .utils import calculate_class_weights
