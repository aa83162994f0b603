from .resnet18 import BackboneResnet18
