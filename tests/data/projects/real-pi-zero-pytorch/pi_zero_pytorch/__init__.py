from memmap_replay_buffer import (
    ReplayBuffer
)

from pi_zero_pytorch.pi_zero import (
    PiZero, π0,
    SigLIP,
    SoftMaskInpainter,
    RTCGuidance,
    EFPO,
    PiZeroSix,
    JoinedReplayDataset
)
