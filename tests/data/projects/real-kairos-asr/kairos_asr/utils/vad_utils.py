import logging

import torch
from typing import List, Tuple

from ..utils.audio_utils import load_audio

logger = logging.getLogger(__name__)

class SileroVAD:
    def __init__(self):
        """
        SileroVAD для разбиения длинного аудио на сегменты.
        
        Примечание: Silero VAD работает только на CPU по задумке разработчиков.
        Параметр device игнорируется, модель всегда использует CPU.
        """
        logger.debug("Initialization: SileroVAD")

        self.silero_model, self.utils = self.get_silero_model()
        self.get_speech_timestamps, _, self.read_audio, _, _ = self.utils
        logger.info(f"Model SileroVAD loaded on CPU (GPU not supported by Silero VAD)")

    @staticmethod
    def get_silero_model():
        """
        Загружает модель Silero VAD и необходимые утилиты через torch.hub.
        """
        model, utils = torch.hub.load(
            repo_or_dir='snakers4/silero-vad',
            model='silero_vad',
            force_reload=False,
            trust_repo=True,
            verbose=False
        )
        model.eval()
        return model, utils

    @staticmethod
    def preprocessing(audio: torch.Tensor) -> torch.Tensor:
        """
        Подготовка аудио для сегментации.
        :param audio:
        :return:
        """
        if audio.dim() > 1 and audio.shape[0] > 1:
            return audio.mean(dim=0, keepdim=False)
        elif audio.dim() > 1:
            return audio.squeeze()
        else:
            return audio

    @staticmethod
    def _update_segments(
            strict_limit_duration,
            segments,
            audio,
            boundaries,
            sr,
            curr_start: float,
            curr_end: float,
            curr_duration: float):
        """
        Обновление сегментов.
        :param strict_limit_duration:
        :param segments:
        :param boundaries:
        :param sr:
        :param curr_start:
        :param curr_end:
        :param curr_duration:
        :return:
        """
        if curr_duration > strict_limit_duration:
            max_segments = int(curr_duration / strict_limit_duration) + 1
            segment_duration = curr_duration / max_segments
            curr_end = curr_start + segment_duration
            for _ in range(max_segments - 1):
                segments.append(audio[int(curr_start * sr): int(curr_end * sr)])
                boundaries.append((curr_start, curr_end))
                curr_start = curr_end
                curr_end += segment_duration
        segments.append(audio[int(curr_start * sr): int(curr_end * sr)])
        boundaries.append((curr_start, curr_end))

    def segment_audio_tensor(
            self,
            audio: torch.Tensor,
            sr: int = 16000,
            max_duration: float = 22.0,
            min_duration: float = 15.0,
            strict_limit_duration: float = 30.0,
            new_chunk_threshold: float = 0.2,
    ) -> Tuple[List[torch.Tensor], List[Tuple[float, float]]]:
        """
        Сегментирует аудио тензор на чанки, используя Silero VAD.
        
        :param audio: Аудио тензор [samples] или [channels, samples]
        :param sr: Частота дискретизации
        :param max_duration: Максимальная длительность сегмента
        :param min_duration: Минимальная длительность сегмента
        :param strict_limit_duration: Жесткий лимит длительности
        :param new_chunk_threshold: Порог для нового чанка
        :return: Кортеж (сегменты, границы)
        """
        logger.debug(f"VAD Segmentation from tensor: start")
        audio_for_vad = self.preprocessing(audio)
        
        speech_timestamps_samples = self.get_speech_timestamps(
            audio_for_vad,
            self.silero_model,
            sampling_rate=sr,
            threshold=0.5,
            min_speech_duration_ms=250,
            min_silence_duration_ms=100
        )
        logger.debug(f"Processing of received segments")

        # ToDo segments находятся в памяти, возможно не стоит хранить их так

        segments: List[torch.Tensor] = []
        curr_duration = 0.0
        curr_start = 0.0
        curr_end = 0.0
        boundaries: List[Tuple[float, float]] = []

        for segment in speech_timestamps_samples:
            start = max(0, segment['start'] / sr)
            end = min(audio.shape[0] / sr, segment['end'] / sr)
            if curr_duration > new_chunk_threshold and (
                    curr_duration + (end - curr_end) > max_duration
                    or curr_duration > min_duration
            ):
                self._update_segments(
                    strict_limit_duration, segments, audio, boundaries, sr,
                    curr_start, curr_end, curr_duration)
                curr_start = start
            curr_end = end
            curr_duration = curr_end - curr_start

        if curr_duration > new_chunk_threshold:
            self._update_segments(
                strict_limit_duration, segments, audio, boundaries, sr,
                curr_start, curr_end, curr_duration)

        logger.debug(f"VAD Segmentation : complete")
        return segments, boundaries

    def segment_audio_file(
            self,
            wav_file: str,
            sr: int = 16000,
            max_duration: float = 22.0,
            min_duration: float = 15.0,
            strict_limit_duration: float = 30.0,
            new_chunk_threshold: float = 0.2,
    ) -> Tuple[List[torch.Tensor], List[Tuple[float, float]]]:
        """
        Сегментирует аудиофайл на чанки, используя Silero VAD 5/6.
        :param wav_file:
        :param sr:
        :param max_duration:
        :param min_duration:
        :param strict_limit_duration:
        :param new_chunk_threshold:
        :return:
        """
        logger.debug(f"VAD Segmentation : start")
        audio = load_audio(wav_file)
        return self.segment_audio_tensor(
            audio, sr, max_duration, min_duration, strict_limit_duration, new_chunk_threshold
        )
