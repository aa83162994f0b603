from simple_clip.encoders.image_encoders import resnet18, resnet50, efficientnet_v2_s
from simple_clip.encoders.text_encoders import TextEncoder
