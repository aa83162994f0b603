"""MyanmarTTS - Burmese text-to-speech, from scratch, CC0."""
import os
from huggingface_hub import hf_hub_download

HF_REPO = "freococo/MyanmarTTS"
MODEL_FILE = "model_fp16.safetensors"
VOCODER_FILE = "vocos.pt"
REF_AUDIO = "samples/sample_0.wav"

__version__ = "1.0.2"


class MyanmarTTS:
    def __init__(self, device="cuda"):
        self.device = device
        self._model = None
        self._ref = None

    def _load(self):
        if self._model is not None:
            return
        print(f"Downloading model files from {HF_REPO}...")
        model_path = hf_hub_download(repo_id=HF_REPO, filename=MODEL_FILE)
        vocos_path = hf_hub_download(repo_id=HF_REPO, filename=VOCODER_FILE)
        self._ref = hf_hub_download(repo_id=HF_REPO, filename=REF_AUDIO)

        from .api import StableTTSAPI
        print("Loading model...")
        self._model = StableTTSAPI(model_path, vocos_path, "vocos")
        self._model.to(self.device)
        print("Ready.")

    def tts(self, text, solver="euler", step=12, cfg=3.0):
        """Return a numpy float32 waveform at 44100 Hz.

        Args:
            text: Burmese text to synthesize
            solver: 'euler' (fast, default) or 'dopri5' (accurate but slow)
            step: number of ODE steps. Default 12.
                  Use 8 for fastest, 16/24/32 for higher quality.
            cfg: classifier-free guidance (default 3.0)
        """
        self._load()
        audio, _ = self._model.inference(
            text, self._ref, "burmese",
            step=step, solver=solver, cfg=cfg
        )
        return audio.squeeze(0).cpu().numpy()


__all__ = ["MyanmarTTS"]
