from terratorch.models.detr.terratorch_detr import TerraTorchDeformableDETR as DeformableDETR
from terratorch.models.detr.terratorch_detr import TerraTorchDETR as DETR  # noqa: N814
from terratorch.models.detr.terratorch_detr import TerraTorchRFDETR as RFDETR  # noqa: N814

__all__ = ["DETR", "DeformableDETR", "RFDETR"]  # noqa: RUF022
