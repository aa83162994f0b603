from opendataval.dataval.knnshap.knnshap import KNNShapley
