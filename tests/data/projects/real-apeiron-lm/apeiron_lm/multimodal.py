# Copyright 2026 Ömür Bera Işık  —  Apache-2.0
"""
Multimodal Support  (v0.0.3)
=============================
Images, audio, and video as raw bytes — no modality-specific tokenizers.

Design philosophy
-----------------
Apeiron is byte-native. Any data that can be serialised to bytes can be
a first-class input or output. This module provides:

1. Image I/O utilities:
   - image_to_bytes()    : PIL Image / numpy array → raw bytes tensor
   - bytes_to_image()    : raw bytes tensor → PIL Image
   - image_file_to_tensor()  : file path → bytes tensor (B, L)

2. Audio I/O utilities:
   - audio_to_bytes()    : waveform + sample_rate → raw bytes tensor
   - bytes_to_audio()    : raw bytes tensor → (waveform, sample_rate)

3. Video utilities:
   - video_frames_to_bytes() : list of PIL frames → interleaved bytes tensor

4. ApeironMultimodal:
   - High-level wrapper over ApeironLM that accepts mixed-modality inputs
   - Encodes each modality to bytes, concatenates, passes to model
   - Decodes output bytes back to the requested modality

All conversion is deterministic and lossless (PNG for images, WAV for audio).
No modality-specific encoders are added to the core model — byte-native
architecture is preserved.

Requirements (soft deps)
------------------------
  Pillow   — image I/O
  soundfile / scipy — audio I/O (optional, used when available)
  numpy    — array operations

None of these are required for text-only use.
"""

from __future__ import annotations

import io
import struct
import warnings
from pathlib import Path
from typing import List, Optional, Tuple, Union

import torch
import torch.nn.functional as F

# ---------------------------------------------------------------------------
# Lazy imports (soft deps)
# ---------------------------------------------------------------------------

def _pil():
    try:
        from PIL import Image
        return Image
    except ImportError as e:
        raise ImportError(
            "Pillow is required for image I/O: pip install Pillow"
        ) from e


def _np():
    try:
        import numpy as np
        return np
    except ImportError as e:
        raise ImportError(
            "NumPy is required for array I/O: pip install numpy"
        ) from e


# ---------------------------------------------------------------------------
# Special byte tokens for modality boundaries
# ---------------------------------------------------------------------------

# We use 3-byte sentinel sequences (unlikely to appear naturally in text)
# to delimit modality boundaries in the byte stream.

MODALITY_BOM = {
    "text":  bytes([0xAA, 0xBB, 0x01]),   # text begin
    "image": bytes([0xAA, 0xBB, 0x02]),   # image begin
    "audio": bytes([0xAA, 0xBB, 0x03]),   # audio begin
    "video": bytes([0xAA, 0xBB, 0x04]),   # video begin
    "end":   bytes([0xAA, 0xBB, 0xFF]),   # modality end
}

# Byte values that won't collide with UTF-8 or ASCII in practice
# Using private-use-area-style sentinels
MODALITY_SENTINEL = {
    "text":  bytes([0xFE, 0xFD, 0x01]),
    "image": bytes([0xFE, 0xFD, 0x02]),
    "audio": bytes([0xFE, 0xFD, 0x03]),
    "video": bytes([0xFE, 0xFD, 0x04]),
    "end":   bytes([0xFE, 0xFD, 0xFF]),
}


# ---------------------------------------------------------------------------
# Image → bytes
# ---------------------------------------------------------------------------

def image_to_bytes(
    image:   "Union[PIL.Image.Image, np.ndarray]",  # type: ignore[name-defined]
    fmt:     str = "PNG",
    max_size: Optional[int] = None,
) -> bytes:
    """
    Convert a PIL Image or numpy array to a PNG byte string.

    Parameters
    ----------
    image : PIL.Image.Image or np.ndarray
        Image to encode.  Arrays must be uint8 in [0, 255].
        Shape: (H, W) for grayscale, (H, W, 3) for RGB, (H, W, 4) for RGBA.
    fmt : str
        Image format ('PNG', 'JPEG', etc.).  PNG is lossless and preferred.
    max_size : int or None
        If provided, resize the longest edge to max_size before encoding.

    Returns
    -------
    bytes
        Raw image bytes (including format header).
    """
    Image = _pil()
    np = _np()

    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8:
            image = np.clip(image, 0, 255).astype(np.uint8)
        if image.ndim == 2:
            pil_img = Image.fromarray(image, mode="L")
        elif image.ndim == 3 and image.shape[2] == 1:
            pil_img = Image.fromarray(image.squeeze(-1), mode="L")
        elif image.ndim == 3 and image.shape[2] == 3:
            pil_img = Image.fromarray(image, mode="RGB")
        elif image.ndim == 3 and image.shape[2] == 4:
            pil_img = Image.fromarray(image, mode="RGBA")
        else:
            raise ValueError(f"Unsupported array shape {image.shape}")
    elif hasattr(image, "save"):
        pil_img = image
    else:
        raise TypeError(f"Expected PIL Image or numpy array, got {type(image)}")

    if max_size is not None:
        w, h = pil_img.size
        if max(w, h) > max_size:
            scale = max_size / max(w, h)
            pil_img = pil_img.resize(
                (int(w * scale), int(h * scale)),
                Image.LANCZOS,
            )

    buf = io.BytesIO()
    pil_img.save(buf, format=fmt)
    return buf.getvalue()


def image_to_tensor(
    image:    "Union[PIL.Image.Image, np.ndarray]",  # type: ignore[name-defined]
    fmt:      str = "PNG",
    max_size: Optional[int] = None,
    add_sentinel: bool = True,
) -> torch.Tensor:
    """
    Convert an image to a 1-D byte tensor for Apeiron input.

    Parameters
    ----------
    image : PIL.Image.Image or np.ndarray
    fmt : str
    max_size : int or None
    add_sentinel : bool
        If True, prepend the image modality sentinel bytes.

    Returns
    -------
    torch.Tensor  shape (L,)  dtype long
        Each value in [0, 255].
    """
    raw = image_to_bytes(image, fmt=fmt, max_size=max_size)
    if add_sentinel:
        raw = MODALITY_SENTINEL["image"] + raw + MODALITY_SENTINEL["end"]
    return torch.tensor(list(raw), dtype=torch.long)


def image_file_to_tensor(
    path:     Union[str, Path],
    fmt:      str = "PNG",
    max_size: Optional[int] = None,
    add_sentinel: bool = True,
) -> torch.Tensor:
    """
    Load an image file and convert to a byte tensor.

    Parameters
    ----------
    path : str or Path
    fmt : str
    max_size : int or None
    add_sentinel : bool

    Returns
    -------
    torch.Tensor  shape (L,)  dtype long
    """
    Image = _pil()
    img = Image.open(str(path)).convert("RGB")
    return image_to_tensor(img, fmt=fmt, max_size=max_size, add_sentinel=add_sentinel)


def bytes_to_image(
    data: Union[bytes, torch.Tensor],
    strip_sentinel: bool = True,
) -> "PIL.Image.Image":  # type: ignore[name-defined]
    """
    Convert raw bytes (or a byte tensor) back to a PIL Image.

    Parameters
    ----------
    data : bytes or torch.Tensor  shape (L,)
        Raw image bytes (PNG/JPEG etc.), optionally prefixed with sentinel.
    strip_sentinel : bool
        If True, strip modality sentinel bytes before decoding.

    Returns
    -------
    PIL.Image.Image
    """
    Image = _pil()
    if isinstance(data, torch.Tensor):
        data = bytes(data.cpu().tolist())
    if strip_sentinel:
        # Strip image and end sentinels
        img_s = MODALITY_SENTINEL["image"]
        end_s = MODALITY_SENTINEL["end"]
        if data.startswith(img_s):
            data = data[len(img_s):]
        if data.endswith(end_s):
            data = data[:-len(end_s)]
    return Image.open(io.BytesIO(data))


def tensor_to_image(
    tensor: torch.Tensor,
    strip_sentinel: bool = True,
) -> "PIL.Image.Image":  # type: ignore[name-defined]
    """Alias for bytes_to_image for a byte tensor."""
    return bytes_to_image(tensor, strip_sentinel=strip_sentinel)


# ---------------------------------------------------------------------------
# Audio → bytes
# ---------------------------------------------------------------------------

def _write_wav_bytes(
    waveform:    torch.Tensor,
    sample_rate: int,
) -> bytes:
    """
    Encode waveform to WAV bytes (PCM 16-bit) without external dependencies.

    Parameters
    ----------
    waveform : torch.Tensor  shape (C, T) or (T,)
        Audio waveform.  Values in [-1, 1].
    sample_rate : int

    Returns
    -------
    bytes
    """
    if waveform.dim() == 1:
        waveform = waveform.unsqueeze(0)  # (1, T)
    n_channels, n_samples = waveform.shape
    # Convert to 16-bit PCM
    pcm = (waveform.clamp(-1, 1) * 32767).short()
    pcm_bytes = pcm.cpu().numpy().tobytes()

    # Build WAV header
    bits_per_sample = 16
    block_align = n_channels * bits_per_sample // 8
    byte_rate = sample_rate * block_align
    data_size = len(pcm_bytes)
    buf = io.BytesIO()
    buf.write(b"RIFF")
    buf.write(struct.pack("<I", 36 + data_size))
    buf.write(b"WAVE")
    buf.write(b"fmt ")
    buf.write(struct.pack("<I", 16))                  # subchunk1 size
    buf.write(struct.pack("<H", 1))                   # PCM
    buf.write(struct.pack("<H", n_channels))
    buf.write(struct.pack("<I", sample_rate))
    buf.write(struct.pack("<I", byte_rate))
    buf.write(struct.pack("<H", block_align))
    buf.write(struct.pack("<H", bits_per_sample))
    buf.write(b"data")
    buf.write(struct.pack("<I", data_size))
    buf.write(pcm_bytes)
    return buf.getvalue()


def audio_to_bytes(
    waveform:    torch.Tensor,
    sample_rate: int = 16000,
) -> bytes:
    """
    Encode a waveform tensor to WAV bytes.

    Parameters
    ----------
    waveform : torch.Tensor  shape (C, T) or (T,)
        C = channels (1 = mono), T = time samples.  Values in [-1, 1].
    sample_rate : int

    Returns
    -------
    bytes  — WAV file bytes
    """
    return _write_wav_bytes(waveform, sample_rate)


def audio_to_tensor(
    waveform:     torch.Tensor,
    sample_rate:  int  = 16000,
    add_sentinel: bool = True,
) -> torch.Tensor:
    """
    Convert an audio waveform to a 1-D byte tensor for Apeiron input.

    Parameters
    ----------
    waveform : torch.Tensor  shape (C, T) or (T,)
    sample_rate : int
    add_sentinel : bool

    Returns
    -------
    torch.Tensor  shape (L,)  dtype long
    """
    raw = audio_to_bytes(waveform, sample_rate)
    if add_sentinel:
        raw = MODALITY_SENTINEL["audio"] + raw + MODALITY_SENTINEL["end"]
    return torch.tensor(list(raw), dtype=torch.long)


def bytes_to_audio(
    data:           Union[bytes, torch.Tensor],
    strip_sentinel: bool = True,
) -> Tuple[torch.Tensor, int]:
    """
    Decode WAV bytes to (waveform, sample_rate).

    Parameters
    ----------
    data : bytes or torch.Tensor  shape (L,)
    strip_sentinel : bool

    Returns
    -------
    waveform    : torch.Tensor  shape (C, T)  float32 in [-1, 1]
    sample_rate : int
    """
    np = _np()
    if isinstance(data, torch.Tensor):
        data = bytes(data.cpu().tolist())
    if strip_sentinel:
        au_s = MODALITY_SENTINEL["audio"]
        end_s = MODALITY_SENTINEL["end"]
        if data.startswith(au_s):
            data = data[len(au_s):]
        if data.endswith(end_s):
            data = data[:-len(end_s)]

    buf = io.BytesIO(data)
    # Try soundfile first, fall back to pure WAV parser
    try:
        import soundfile as sf
        waveform, sr = sf.read(buf, dtype="float32")
        waveform = torch.from_numpy(waveform)
        if waveform.dim() == 1:
            waveform = waveform.unsqueeze(0)
        else:
            waveform = waveform.T
        return waveform, sr
    except ImportError:
        pass

    # Pure-Python WAV parser (no extra deps)
    buf.seek(0)
    # Read WAV header
    buf.read(4)   # "RIFF"
    struct.unpack("<I", buf.read(4))[0]  # chunk size
    buf.read(4)   # "WAVE"
    buf.read(4)   # "fmt "
    fmt_size   = struct.unpack("<I", buf.read(4))[0]
    fmt_data   = buf.read(fmt_size)
    n_channels   = struct.unpack_from("<H", fmt_data, 2)[0]
    sample_rate  = struct.unpack_from("<I", fmt_data, 4)[0]
    bits_per_samp = struct.unpack_from("<H", fmt_data, 14)[0]
    # Find data chunk
    while True:
        chunk_id   = buf.read(4)
        if not chunk_id:
            raise ValueError("No data chunk found in WAV")
        chunk_size = struct.unpack("<I", buf.read(4))[0]
        if chunk_id == b"data":
            break
        buf.read(chunk_size)
    pcm_bytes = buf.read(chunk_size)
    if bits_per_samp == 16:
        pcm = np.frombuffer(pcm_bytes, dtype=np.int16).astype(np.float32) / 32767
    elif bits_per_samp == 8:
        pcm = np.frombuffer(pcm_bytes, dtype=np.uint8).astype(np.float32) / 128 - 1
    else:
        raise ValueError(f"Unsupported bits_per_sample: {bits_per_samp}")
    pcm = pcm.reshape(-1, n_channels).T   # (C, T)
    return torch.from_numpy(pcm.copy()), sample_rate


# ---------------------------------------------------------------------------
# Video → bytes
# ---------------------------------------------------------------------------

def video_frames_to_bytes(
    frames:       List["PIL.Image.Image"],  # type: ignore[name-defined]
    fmt:          str  = "PNG",
    max_size:     Optional[int] = None,
    add_sentinel: bool = True,
) -> torch.Tensor:
    """
    Encode a sequence of video frames to a 1-D byte tensor.

    Frames are concatenated in sequence order, each prefixed with its
    frame-index as a 4-byte big-endian uint32.

    Parameters
    ----------
    frames : List[PIL.Image.Image]
    fmt : str
    max_size : int or None
    add_sentinel : bool

    Returns
    -------
    torch.Tensor  shape (L,)  dtype long
    """
    all_bytes = bytearray()
    if add_sentinel:
        all_bytes.extend(MODALITY_SENTINEL["video"])

    for i, frame in enumerate(frames):
        frame_bytes = image_to_bytes(frame, fmt=fmt, max_size=max_size)
        # 4-byte frame index prefix
        all_bytes.extend(struct.pack(">I", i))
        # 4-byte frame length prefix
        all_bytes.extend(struct.pack(">I", len(frame_bytes)))
        all_bytes.extend(frame_bytes)

    if add_sentinel:
        all_bytes.extend(MODALITY_SENTINEL["end"])

    return torch.tensor(list(all_bytes), dtype=torch.long)


# ---------------------------------------------------------------------------
# Multimodal batch builder
# ---------------------------------------------------------------------------

def build_multimodal_input(
    *,
    text:    Optional[str]         = None,
    image:   Optional[Union["PIL.Image.Image", torch.Tensor]] = None,  # type: ignore
    audio:   Optional[Tuple[torch.Tensor, int]] = None,
    frames:  Optional[List["PIL.Image.Image"]]  = None,  # type: ignore
    encoding: str = "utf-8",
    image_max_size: Optional[int] = 224,
) -> torch.Tensor:
    """
    Build a flat byte tensor from mixed-modality inputs.

    Concatenates: [text_sentinel][text_bytes][image_sentinel][image_bytes]...

    Parameters
    ----------
    text : str or None
    image : PIL.Image / numpy array / byte tensor or None
    audio : (waveform, sample_rate) or None
    frames : List[PIL.Image] or None
    encoding : str
    image_max_size : int or None
        Resize images to at most this many pixels on the longest edge
        before encoding.

    Returns
    -------
    torch.Tensor  shape (L,)  dtype long
    """
    parts: List[torch.Tensor] = []

    if text is not None:
        text_bytes = list(text.encode(encoding))
        sentinel   = list(MODALITY_SENTINEL["text"])
        end        = list(MODALITY_SENTINEL["end"])
        parts.append(
            torch.tensor(sentinel + text_bytes + end, dtype=torch.long)
        )

    if image is not None:
        if isinstance(image, torch.Tensor):
            # Already a byte tensor — just add sentinel
            img_t = image
        else:
            img_t = image_to_tensor(
                image, max_size=image_max_size, add_sentinel=True
            )
        parts.append(img_t)

    if audio is not None:
        waveform, sr = audio
        aud_t = audio_to_tensor(waveform, sample_rate=sr, add_sentinel=True)
        parts.append(aud_t)

    if frames is not None:
        vid_t = video_frames_to_bytes(
            frames, max_size=image_max_size, add_sentinel=True
        )
        parts.append(vid_t)

    if not parts:
        raise ValueError("At least one modality must be provided.")

    return torch.cat(parts, dim=0)


# ---------------------------------------------------------------------------
# ApeironMultimodal — high-level wrapper
# ---------------------------------------------------------------------------

class ApeironMultimodal:
    """
    High-level multimodal interface wrapping an ApeironLM model.

    Handles modality-to-bytes conversion, batch building, and result decoding.

    Parameters
    ----------
    model : ApeironLM
    encoding : str
        Text encoding (default: 'utf-8').
    image_max_size : int or None
        Resize images to at most this edge length.

    Examples
    --------
    Text + image input, text output:

    >>> from PIL import Image
    >>> from apeiron_lm.multimodal import ApeironMultimodal
    >>> mm = ApeironMultimodal(model)
    >>> result = mm.generate(
    ...     text  = "Describe this image:",
    ...     image = Image.open("cat.png"),
    ...     output_modality = "text",
    ... )
    >>> print(result["text"])

    Image generation (output is image bytes decoded to PIL):

    >>> result = mm.generate(
    ...     text = "A picture of a sunset",
    ...     output_modality = "image",
    ... )
    >>> result["image"].save("output.png")
    """

    def __init__(
        self,
        model:          "ApeironLM",
        encoding:       str           = "utf-8",
        image_max_size: Optional[int] = 224,
    ) -> None:
        self.model          = model
        self.encoding       = encoding
        self.image_max_size = image_max_size

    @torch.no_grad()
    def generate(
        self,
        *,
        text:    Optional[str]         = None,
        image:   Optional[object]      = None,
        audio:   Optional[Tuple[torch.Tensor, int]] = None,
        frames:  Optional[list]        = None,
        output_modality: str           = "text",
        max_generate:    Optional[int] = None,
        temperature:     float         = 1.0,
        top_k:           Optional[int] = None,
        top_p:           Optional[float] = None,
    ) -> dict:
        """
        Generate output from multimodal input.

        Parameters
        ----------
        text : str or None
        image : PIL.Image / np.ndarray or None
        audio : (waveform, sr) or None
        frames : List[PIL.Image] or None
        output_modality : str
            "text"  — decode output bytes as UTF-8 string
            "image" — decode output bytes as PIL Image
            "audio" — decode output bytes as (waveform, sample_rate)
            "bytes" — return raw output bytes tensor
        max_generate : int or None
        temperature : float
        top_k : int or None
        top_p : float or None

        Returns
        -------
        dict with key matching output_modality, plus 'raw_bytes'
        """
        device = next(self.model.parameters()).device

        # Build input byte tensor
        inp = build_multimodal_input(
            text    = text,
            image   = image,
            audio   = audio,
            frames  = frames,
            encoding = self.encoding,
            image_max_size = self.image_max_size,
        ).to(device).unsqueeze(0)  # (1, L)

        # Generate
        out_bytes_list = self.model.generate(
            inp,
            max_generate = max_generate,
            temperature  = temperature,
            top_k        = top_k,
            top_p        = top_p,
        )
        raw_bytes = out_bytes_list[0]  # bytes object

        result: dict = {"raw_bytes": raw_bytes}

        if output_modality == "text":
            try:
                result["text"] = raw_bytes.decode(self.encoding, errors="replace")
            except Exception:
                result["text"] = raw_bytes.decode("latin-1")

        elif output_modality == "image":
            try:
                raw_tensor = torch.tensor(list(raw_bytes), dtype=torch.long)
                result["image"] = bytes_to_image(raw_tensor, strip_sentinel=True)
            except Exception as e:
                warnings.warn(f"Could not decode output as image: {e}")
                result["image"] = None

        elif output_modality == "audio":
            try:
                raw_tensor = torch.tensor(list(raw_bytes), dtype=torch.long)
                result["audio"], result["sample_rate"] = bytes_to_audio(
                    raw_tensor, strip_sentinel=True
                )
            except Exception as e:
                warnings.warn(f"Could not decode output as audio: {e}")
                result["audio"] = None
                result["sample_rate"] = None

        elif output_modality == "bytes":
            result["bytes"] = torch.tensor(list(raw_bytes), dtype=torch.long)

        else:
            raise ValueError(
                f"Unknown output_modality: {output_modality!r}. "
                "Choose from: 'text', 'image', 'audio', 'bytes'."
            )

        return result

    def encode_multimodal(
        self,
        *,
        text:    Optional[str]    = None,
        image:   Optional[object] = None,
        audio:   Optional[Tuple[torch.Tensor, int]] = None,
        frames:  Optional[list]   = None,
    ) -> torch.Tensor:
        """
        Encode mixed-modality input to a latent vector.

        Returns
        -------
        v : torch.Tensor  shape (1, C)
        """
        device = next(self.model.parameters()).device
        inp = build_multimodal_input(
            text   = text,
            image  = image,
            audio  = audio,
            frames = frames,
            encoding       = self.encoding,
            image_max_size = self.image_max_size,
        ).to(device).unsqueeze(0)

        self.model.eval()
        with torch.no_grad():
            v = self.model.byte_encoder(inp)
        return v
