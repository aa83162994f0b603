# Copyright (c) OpenMMLab. All rights reserved.
from .builder import (COMPONENTS, DECODERS, ENCODERS, FLOW_ESTIMATORS,
                      build_components, build_decoder, build_encoder,
                      build_flow_estimator)
from .decoders import (FlowNetCDecoder, FlowNetSDecoder, FlowRefine,
                       GMADecoder, IRRPWCDecoder, MaskFlowNetDecoder,
                       MaskFlowNetSDecoder, NetE, OccRefine,
                       OccShuffleUpsample, PWCNetDecoder)
from .encoders import (CorrEncoder, FlowNetEncoder, FlowNetSDEncoder, NetC,
                       PWCNetEncoder, RAFTEncoder)
from .flow_estimators import (IRRPWC, FlowNet2, FlowNetC, FlowNetCSS, FlowNetS,
                              LiteFlowNet, MaskFlowNet, MaskFlowNetS, PWCNet)
from .losses import (MultiLevelBCE, MultiLevelCharbonnierLoss, MultiLevelEPE,
                     SequenceLoss)

__all__ = [
    'FlowNetEncoder', 'PWCNetEncoder', 'RAFTEncoder', 'NetC',
    'FlowNetSDEncoder', 'CorrEncoder', 'FlowNetCDecoder', 'FlowNetSDecoder',
    'PWCNetDecoder', 'MaskFlowNetSDecoder', 'NetE', 'FlowNetC', 'FlowNetS',
    'LiteFlowNet', 'PWCNet', 'MaskFlowNetS', 'ENCODERS', 'DECODERS',
    'build_encoder', 'build_decoder', 'FLOW_ESTIMATORS',
    'build_flow_estimator', 'COMPONENTS', 'build_components', 'MultiLevelBCE',
    'MultiLevelEPE', 'MultiLevelCharbonnierLoss', 'SequenceLoss', 'IRRPWC',
    'IRRPWCDecoder', 'FlowRefine', 'OccRefine', 'OccShuffleUpsample',
    'FlowNet2', 'FlowNetCSS', 'MaskFlowNetDecoder', 'MaskFlowNet', 'GMADecoder'
]
