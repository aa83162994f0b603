from .attention import SelfAttention2D
from .downsample import DownSample2D
from .residual import ResidualBlock2D
from .time_dense import TimeDense2D
from .transformer import TransformerBlock2D
from .upsample import UpSample2D
