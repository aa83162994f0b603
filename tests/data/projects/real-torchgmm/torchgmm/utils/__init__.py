from .lightning_module import NonparametricLightningModule

__all__ = ["NonparametricLightningModule"]
