from .watermark import WatermarkDecoder, WatermarkEncoder
