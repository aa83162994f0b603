from laia.data.transforms.vision.random_beta_affine import RandomBetaAffine
from laia.data.transforms.vision.random_beta_morphology import Dilate, Erode
from laia.data.transforms.vision.random_beta_perspective import RandomBetaPerspective
from laia.data.transforms.vision.transforms import *
