from ._featurizer import PETMADFeaturizer


__all__ = ["PETMADFeaturizer"]
