# Copyright (c) OpenMMLab. All rights reserved.
from .liteflownet_stage_loading import LiteFlowNetStageLoadHook
from .multistagelr_updater import MultiStageLrUpdaterHook

__all__ = ['MultiStageLrUpdaterHook', 'LiteFlowNetStageLoadHook']
