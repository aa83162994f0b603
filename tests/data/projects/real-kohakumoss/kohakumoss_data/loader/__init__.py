"""Whole-batch loading: decode, materialise plans, stateless iteration with resume."""

from kohakumoss_data.loader.decode import BACKGROUNDS, Decoder, decode_image
from kohakumoss_data.loader.stateless import BatchStream, Loader

__all__ = ["BACKGROUNDS", "BatchStream", "Decoder", "Loader", "decode_image"]
