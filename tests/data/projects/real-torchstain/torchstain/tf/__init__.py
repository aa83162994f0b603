from torchstain.tf import augmentors, normalizers, utils
