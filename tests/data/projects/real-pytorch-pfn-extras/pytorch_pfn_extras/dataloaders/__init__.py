from pytorch_pfn_extras.dataloaders import utils  # NOQA
from pytorch_pfn_extras.dataloaders.dataloader import DataLoader  # NOQA
