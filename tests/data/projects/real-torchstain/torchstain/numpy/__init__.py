from torchstain.numpy import augmentors, normalizers, utils
