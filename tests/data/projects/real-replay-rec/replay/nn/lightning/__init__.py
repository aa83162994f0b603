from .module import LightningModule
