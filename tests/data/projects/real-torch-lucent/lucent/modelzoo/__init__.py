from lucent.modelzoo.inceptionv1 import InceptionV1 as inceptionv1
from torchvision.models import *
