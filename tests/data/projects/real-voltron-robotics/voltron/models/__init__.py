from .instantiate import VMVP, VR3M, VRN3M, VCond, VDual, VGen, get_model_optimizer
