from laia.models.htr.conv_block import ConvBlock
from laia.models.htr.gated_crnn import GatedConv2d, GatedCRNN
from laia.models.htr.laia_crnn import LaiaCRNN
