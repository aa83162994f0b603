from AK_SSL.multimodal.models.utils.clip.datasets import (CustomClipDataset,
                                                          get_image_transform)

__all__ = ["get_image_transform", "CustomClipDataset"]
