from empanada.models.quantization.encoders.regnet import regnetx_6p4gf, regnety_6p4gf, QuantizableRegNet
from empanada.models.quantization.encoders.resnet import resnet50, QuantizableResNet
