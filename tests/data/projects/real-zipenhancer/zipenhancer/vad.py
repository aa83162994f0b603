import logging
from typing import List, Optional, Tuple

import numpy as np
import torch

import silero_vad

logger = logging.getLogger(__name__)

VAD_SR = 16000  # Silero VAD 原生采样率

# 全局 VAD 模型缓存（避免重复加载）
_vad_model: Optional[torch.nn.Module] = None


def _load_vad():
    """加载 Silero VAD 模型（全局缓存，只加载一次）"""
    global _vad_model
    if _vad_model is not None:
        return _vad_model

    logger.info("加载 Silero VAD 模型...")
    _vad_model = silero_vad.load_silero_vad()
    logger.info("Silero VAD 加载完成")
    return _vad_model


def _estimate_adaptive_threshold(audio_16k: torch.Tensor, model) -> float:
    """
    自适应 VAD 阈值。

    用音频前 1s 统计 VAD 概率的 30 分位作为噪声底，
    threshold = noise_floor + 0.15，限制在 [0.3, 0.6]。
    """
    probe = audio_16k[:VAD_SR]  # 前 1 秒
    if len(probe) < VAD_SR // 2:  # <0.5s 就用整段
        probe = audio_16k

    with torch.no_grad():
        probs = []
        for i in range(0, len(probe) - 511, 512):
            chunk = probe[i : i + 512].unsqueeze(0)
            prob = model(chunk, VAD_SR).item()
            probs.append(prob)

    if not probs:
        return 0.5

    noise_floor = float(np.percentile(probs, 30))
    threshold = max(0.3, min(noise_floor + 0.15, 0.6))
    logger.debug(f"自适应阈值: noise_floor={noise_floor:.3f}, threshold={threshold:.3f}")
    return threshold


def _crossfade_splice(
    audio: np.ndarray,
    segments: List[dict],
    crossfade_samples: int,
) -> np.ndarray:
    """
    将多个语音段用交叉渐变拼接。

    段间用 linear cross-fade 平滑过渡，避免拼接口咔嗒声。
    """
    if len(segments) == 0:
        return np.array([], dtype=audio.dtype)

    chunks = [audio[s["start"] : s["end"]] for s in segments]

    if len(chunks) == 1:
        return chunks[0]

    # 逐段拼接，段间做 cross-fade
    result = chunks[0]
    for i in range(1, len(chunks)):
        prev = result
        curr = chunks[i]

        cf = min(crossfade_samples, len(prev), len(curr))
        if cf <= 0:
            result = np.concatenate([prev, curr])
            continue

        fade_out = np.linspace(1, 0, cf, dtype=prev.dtype)
        fade_in = np.linspace(0, 1, cf, dtype=curr.dtype)

        overlap = prev[-cf:] * fade_out + curr[:cf] * fade_in
        result = np.concatenate([prev[:-cf], overlap, curr[cf:]])

    return result


def remove_silence(
    audio: np.ndarray,
    sample_rate: int,
    threshold: Optional[float] = None,
    hold_time: float = 0.5,
    crossfade_ms: int = 10,
    min_speech_duration: float = 0.1,
) -> Tuple[np.ndarray, List[Tuple[float, float]]]:
    """
    自动切除静音段。

    Args:
        audio: 输入音频，形状 (samples,) 或 (channels, samples)。
        sample_rate: 输入采样率。
        threshold: VAD 概率阈值。None=自适应计算，固定值=强制使用。
        hold_time: VAD 低于阈值后等多久才判定为静音（秒）。
                   相当于状态机的 PENDING→SILENCE 超时。
        crossfade_ms: 段间拼接的交叉渐变时长（毫秒）。
        min_speech_duration: 最短语音段长度（秒），短于此的被丢弃。

    Returns:
        (clean_audio, segments)
        clean_audio: 切除静音后的音频，声道数与输入一致。
        segments: [(start_sec, end_sec), ...] 原始音频中的语音段时间戳。
    """
    if len(audio) == 0:
        return np.array([], dtype=audio.dtype), []

    orig_ndim = audio.ndim
    orig_channels = audio.shape[0] if audio.ndim > 1 else 1

    # 转单声道做 VAD
    if audio.ndim > 1:
        audio_mono = audio.mean(axis=0)
    else:
        audio_mono = audio.copy()

    # 重采样到 16kHz（Silero VAD 要求）
    if sample_rate != VAD_SR:
        import librosa

        audio_mono = librosa.resample(
            audio_mono, orig_sr=sample_rate, target_sr=VAD_SR
        )

    audio_tensor = torch.from_numpy(audio_mono).float()
    model = _load_vad()

    # 自适应阈值
    if threshold is None:
        threshold = _estimate_adaptive_threshold(audio_tensor, model)

    # 用 Silero VAD 检测语音段
    timestamps = silero_vad.get_speech_timestamps(
        audio_tensor,
        model,
        sampling_rate=VAD_SR,
        threshold=threshold,
        min_speech_duration_ms=int(min_speech_duration * 1000),
        min_silence_duration_ms=int(hold_time * 1000),
        return_seconds=True,
    )

    if not timestamps:
        logger.warning("VAD 未检测到语音段，返回原始音频")
        return audio.copy(), []

    # 在段边界做平滑 padding（hold_time 的 30% 平滑扩边）
    pad_sec = hold_time * 0.3
    total_len = len(audio_mono) / VAD_SR
    for t in timestamps:
        t["start"] = max(0, t["start"] - pad_sec)
        t["end"] = min(total_len, t["end"] + pad_sec)

    # 转为 sample 索引（16kHz 域）
    segments_16k = []
    for t in timestamps:
        start = max(0, int(round(t["start"] * VAD_SR)))
        end = min(len(audio_mono), int(round(t["end"] * VAD_SR)))
        if end - start > 0:
            segments_16k.append({"start": start, "end": end})

    # Cross-fade 拼接
    cf_samples = int(crossfade_ms * VAD_SR / 1000)
    result_16k = _crossfade_splice(audio_mono, segments_16k, cf_samples)

    # 重采样回原始采样率
    if sample_rate != VAD_SR:
        import librosa

        result = librosa.resample(
            result_16k, orig_sr=VAD_SR, target_sr=sample_rate
        )
    else:
        result = result_16k

    # 恢复声道数
    if orig_channels > 1:
        result = np.column_stack([result] * orig_channels)

    return result, [(t["start"], t["end"]) for t in timestamps]
