from .watermark import WatermarkEncoder, WatermarkDecoder
