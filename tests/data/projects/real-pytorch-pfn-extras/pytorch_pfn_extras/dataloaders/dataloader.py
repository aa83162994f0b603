# Kept for backward compatibility
from torch.utils.data.dataloader import *  # NOQA
