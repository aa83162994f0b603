from lucent.modelzoo.inceptionv1.InceptionV1 import *
