import logging

import torch
import numpy as np

from ..core.feature_extractor import FeatureExtractor
from ..models.onnx_model import ONNXModel
from ..utils.device_utils import check_device, normalize_device, prepare_audio_tensor

logger = logging.getLogger(__name__)

class KairosEncoder:
    """
    Encoder для KairosASR.
    """
    def __init__(
        self,
        encoder_path: str,
        device: str = "auto",
    ):
        """
        Инициализирует Encoder-модель.

        :param encoder_path: Путь к encoder.onnx (опционально)
        :param device: Устройство ('auto', 'cuda', 'cuda:0', 'mps', 'metal' или 'cpu').
        """
        logger.debug("Starting initialization of KairosEncoder")

        self.sample_rate = 16000
        self.dtype = torch.float32
        self.max_letters_per_frame = 10

        device_norm = normalize_device(device)
        self.device = check_device(device_norm)

        logger.debug(f"Device: {self.device}")

        self.encoder = ONNXModel(encoder_path, device=device_norm)
        self.feature_extractor = FeatureExtractor(sample_rate=self.sample_rate, device=device_norm)

        logger.info(f"KairosEncoder initialized on device: {self.device}")

    def _encode(self, features: np.ndarray) -> np.ndarray:
        """
        Прогон акустических признаков через encoder ONNX-модель.

        :param features: Акустические признаки формы [B, C, T].
        :return: Encoder-выходы формы [B, D, T_enc].
        """
        length = np.array([features.shape[-1]], dtype=np.int64)
        inputs = [features.astype(np.float32), length]
        return self.encoder.run(self.encoder.get_input_dict(inputs))[0]

    def encode_segment(self, segment: torch.Tensor) -> [np.ndarray | None, float | None]:
        """
        Обработка сегмента: извлекает слова с точными timestamps.

        :param segment: Аудио-сегмент (torch.Tensor).
        :return:
            enc_features — encoder-выходы или None,
            frame_duration — длительность одного encoder-фрейма (сек) или None.
        """
        logger.debug(f"Encode segment")
        wav = prepare_audio_tensor(segment)
        features = self.feature_extractor(wav)

        if features.shape[-1] == 0:
            return None, None

        enc_features = self._encode(features)
        if enc_features.shape[-1] == 0:
            return None, None

        audio_len_sec = wav.shape[-1] / self.sample_rate
        frame_duration = audio_len_sec / enc_features.shape[-1]

        return enc_features, frame_duration
