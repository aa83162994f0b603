from empanada.data.utils.sampler import DistributedWeightedSampler
from empanada.data.utils.target_creation import heatmap_and_offsets, seg_to_instance_bd
from empanada.data.utils.transforms import resize_by_factor

try:
    # only necessary for model training,
    # inference-only empanada doesn't need it
    from empanada.data.utils.transforms import FactorPad
except:
    pass
