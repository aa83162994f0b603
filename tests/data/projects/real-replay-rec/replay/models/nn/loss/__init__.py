from .sce import ScalableCrossEntropyLoss, SCEParams
