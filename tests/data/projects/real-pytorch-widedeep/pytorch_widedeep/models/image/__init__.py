from pytorch_widedeep.models.image.vision import Vision
