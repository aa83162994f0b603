#
# DeepLabCut Toolbox (deeplabcut.org)
# © A. & M.W. Mathis Labs
# https://github.com/DeepLabCut/DeepLabCut
#
# Please see AUTHORS for contributors.
# https://github.com/DeepLabCut/DeepLabCut/blob/main/AUTHORS
#
# Licensed under GNU Lesser General Public License v3.0
#
from dlclive.pose_estimation_pytorch.models.modules.conv_block import (
    AdaptBlock,
    BasicBlock,
    Bottleneck,
)
from dlclive.pose_estimation_pytorch.models.modules.conv_module import (
    HighResolutionModule,
)
from dlclive.pose_estimation_pytorch.models.modules.gated_attention_unit import (
    GatedAttentionUnit,
)
from dlclive.pose_estimation_pytorch.models.modules.norm import (
    ScaleNorm,
)
