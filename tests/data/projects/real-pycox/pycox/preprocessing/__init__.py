from pycox.preprocessing import feature_transforms, label_transforms, discretization
