# Based on https://github.com/urgent-challenge/urgent2025_challenge/blob/main/evaluation_metrics/calculate_intrusive_se_metrics.py
import torch
from asem.base import BaseMetric


class LSD(BaseMetric):
    higher_is_better = False
    EXPECTED_SAMPLING_RATE = 16000

    def __init__(self, sample_rate: int = 16000, use_gpu: bool = False):
        super().__init__(sample_rate, use_gpu)
        self.nfft = int(self.EXPECTED_SAMPLING_RATE * 0.032)
        self.hop = int(self.EXPECTED_SAMPLING_RATE * 0.016)
        self.p = 2
        self.eps = 1e-8
        self.window = torch.hann_window(self.nfft, device=self.device)

    def torch_stft(self, signal: torch.Tensor) -> torch.Tensor:
        # Gives the same result as np.abs(librosa.stft(ref, hop_length=hop, n_fft=nfft))

        spectrogram = torch.stft(
            signal,
            n_fft=self.nfft,
            hop_length=self.hop,
            window=self.window,
            center=True,
            pad_mode="constant",
            return_complex=True,
        )
        return spectrogram.abs()

    def compute_metric(
        self, clean_speech: torch.Tensor | None, denoised_speech: torch.Tensor, lengths: torch.Tensor | None = None
    ) -> list[dict[str, float]]:
        assert clean_speech is not None
        batch_size = clean_speech.shape[0]

        # Adjust lengths if resampling occurred
        if lengths is not None and self.sample_rate != self.EXPECTED_SAMPLING_RATE:
            lengths = (lengths * self.EXPECTED_SAMPLING_RATE / self.sample_rate).long()

        if lengths is not None:
            time_idx = torch.arange(clean_speech.shape[1], device=clean_speech.device)
            time_mask = time_idx.unsqueeze(0) < lengths.unsqueeze(1)

            clean_masked = clean_speech * time_mask
            denoised_masked = denoised_speech * time_mask

            scaling_factor = torch.sum(clean_masked * denoised_masked, dim=1, keepdim=True) / (
                torch.sum(denoised_masked**2, dim=1, keepdim=True) + self.eps
            )
        else:
            scaling_factor = torch.sum(clean_speech * denoised_speech, dim=1, keepdim=True) / (
                torch.sum(denoised_speech**2, dim=1, keepdim=True) + self.eps
            )

        denoised_speech = denoised_speech * scaling_factor

        speech = torch.cat([clean_speech, denoised_speech], dim=0)
        speech_spectrogram = self.torch_stft(speech)
        clean_speech_spectrogram = speech_spectrogram[:batch_size]
        denoised_speech_spectrogram = speech_spectrogram[batch_size:]

        lsds = torch.log(
            clean_speech_spectrogram.square() / ((denoised_speech_spectrogram + self.eps).square()) + self.eps
        ).pow(self.p)

        lsd_freq_mean = lsds.mean(dim=1).pow(1 / self.p)

        if lengths is not None:
            spectrogram_lengths = lengths // self.hop + 1

            time_idx = torch.arange(lsd_freq_mean.shape[-1], device=lsd_freq_mean.device)
            time_mask = time_idx.unsqueeze(0) < spectrogram_lengths.unsqueeze(1)

            lsd_freq_mean_masked = lsd_freq_mean * time_mask
            lsd_time_sum = lsd_freq_mean_masked.sum(dim=1)
            lsds = lsd_time_sum / spectrogram_lengths.float()
        else:
            lsds = lsd_freq_mean.mean(dim=1)

        return [{"LSD": lsd.item()} for lsd in lsds]
