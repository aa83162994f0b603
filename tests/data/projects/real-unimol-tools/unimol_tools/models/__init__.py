from .nnmodel import NNModel, UniMolModel, UniMolV2Model
