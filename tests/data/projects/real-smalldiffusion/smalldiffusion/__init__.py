from .diffusion import (
    Schedule, ScheduleLogLinear, ScheduleDDPM, ScheduleLDM, ScheduleCosine,
    ScheduleSigmoid, ScheduleFlow, ScheduleLogNormalFlow, generate_train_sample,
    training_loop, samples,
)

from .data import (
    Swissroll, DatasaurusDozen, MappedDataset, img_train_transform, img_normalize,
    TreeDataset,
)

from .model import (
    ModelMixin,
    Scaled, PredX0, PredV, PredFlow,
    TimeInputMLP, IdealDenoiser,
    get_sigma_embeds,
    SigmaEmbedderSinCos,
    CondEmbedderLabel,
    ConditionalMLP,
    TimestepEmbedder,
)

from .model_dit import DiT

from .model_unet import Unet
