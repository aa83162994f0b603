from lucent.optvis.param.images import image
from lucent.optvis.param.spatial import *
from lucent.optvis.param.lowres import *
from lucent.optvis.param.cppn import *
from lucent.optvis.param.color import *
from lucent.optvis.param.gan import upconvGAN

