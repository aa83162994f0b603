"""cardamage — phát hiện tổn thất vật lý trên ô tô bằng Mask R-CNN R-101-DC5.

    from cardamage import AutoModel
    model = AutoModel.from_pretrained("Naiscorp/car-damage-maskrcnn-r101-dc5").eval()
    overlay = model.inference(pil_image)          # PIL.Image đã vẽ mask
    result = model.predict(pil_image)             # dict boxes/scores/labels/masks
"""

from .model import (
    DAMAGE_CLASSES_EN,
    DAMAGE_CLASSES_VI,
    CarDamageModel,
    paste_masks_in_image,
)

# Alias thân thiện, giống cách BEN2 đặt tên.
AutoModel = CarDamageModel

__version__ = "0.1.3"
__all__ = [
    "AutoModel",
    "CarDamageModel",
    "DAMAGE_CLASSES_VI",
    "DAMAGE_CLASSES_EN",
    "paste_masks_in_image",
]
