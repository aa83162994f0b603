from .pointnet import PointNet
from .pointconv import create_pointconv
from .dgcnn import DGCNN
from .ppfnet import PPFNet
from .pooling import Pooling

from .classifier import Classifier
from .segmentation import Segmentation

from .dcp import DCP
from .prnet import PRNet
from .pcrnet import iPCRNet
from .pointnetlk import PointNetLK
from .rpmnet import RPMNet
from .pcn import PCN
from .deepgmr import DeepGMR
from .masknet import MaskNet
from .masknet2 import MaskNet2
from .curvenet import CurveNet

try:
	from .flownet3d import FlowNet3D
except:
	print("Error raised in pointnet2 module for FlowNet3D Network!\nEither don't use pointnet2_utils or retry it's setup.")