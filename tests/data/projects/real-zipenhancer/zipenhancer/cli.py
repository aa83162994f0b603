import io
import os
import sys
import time
from pathlib import Path

import numpy as np
import click
import soundfile as sf

from zipenhancer import (
    denoise as denoise_fn,
    write as write_audio,
    FORMATS,
    get_supported_formats,
    MODEL_ZIPENHANCER,
    MODEL_FRCRN,
    MODEL_MOSSFORMER2,
    normalize_audio,
)

MODEL_MAP = {
    "zipenhancer": MODEL_ZIPENHANCER,
    "frcrn": MODEL_FRCRN,
    "mossformer2": MODEL_MOSSFORMER2,
}

AUDIO_EXTENSIONS = {".wav", ".mp3", ".m4a", ".flac", ".ogg", ".aac", ".wma"}


# 辅助函数
def _log(msg, fg=None):
    """输出日志到 stderr，不影响 stdout 管道"""
    click.secho(f"  {msg}", fg=fg, err=True)


def _read_audio(path):
    """从文件或 stdin 读取音频，返回 (audio, sr)"""
    if path == "-":
        raw = sys.stdin.buffer.read()
        if not raw:
            raise click.ClickException("stdin 为空，请通过管道传入音频数据")
        try:
            with io.BytesIO(raw) as buf:
                return sf.read(buf)
        except Exception as e:
            raise click.ClickException(
                f"无法解码 stdin 音频数据: {e}\n"
                "  提示: 确保输入为 WAV 格式，例如:\n"
                "    ffmpeg -i input.mp3 -f wav - | zipenhancer denoise - -o output.wav"
            )
    else:
        path = os.path.abspath(path)
        if not os.path.exists(path):
            raise click.ClickException(f"文件不存在: {path}")
        return sf.read(path)


def _detect_format(output_path, fmt_specified):
    """从输出路径扩展名或参数推断格式"""
    if fmt_specified:
        return fmt_specified
    if output_path:
        ext = Path(output_path).suffix.lower()
        for name, cfg in FORMATS.items():
            if cfg.ext == ext:
                return name
    return "wav"


def _make_output_path(input_path, fmt):
    """自动生成输出路径（仅在输入为文件时可用）"""
    if input_path == "-":
        return None
    stem = Path(input_path).stem
    cfg = FORMATS.get(fmt, FORMATS["wav"])
    return f"{stem}_denoised{cfg.ext}"


def _format_size(path):
    """格式化文件大小"""
    size = os.path.getsize(path)
    if size < 1024:
        return f"{size}B"
    elif size < 1024**2:
        return f"{size/1024:.1f}KB"
    elif size < 1024**3:
        return f"{size/1024**2:.1f}MB"
    return f"{size/1024**3:.2f}GB"


# 命令
@click.group(invoke_without_command=False)
@click.version_option(package_name="zipenhancer", prog_name="zipenhancer")
def main():
    """ZipEnhancer — 语音降噪工具

    支持 ZipEnhancer / FRCRN / MossFormer2 三种模型，
    输出 WAV / FLAC / MP3 / OGG 格式。
    """


@main.command("denoise")
@click.argument("input", type=click.STRING)
@click.option("-o", "--output", default=None, help="输出路径（不指定则自动生成）")
@click.option(
    "--model", default="zipenhancer", show_default=True,
    type=click.Choice(list(MODEL_MAP.keys())),
    help="降噪模型",
)
@click.option(
    "--strength", default=1.0, show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="降噪强度 (0.0~1.0)",
)
@click.option(
    "-f", "--format", "fmt", default=None,
    type=click.Choice(list(FORMATS.keys())),
    help="输出格式（默认从输出路径扩展名推断）",
)
@click.option("--bitrate", default=None, help="比特率 (mp3/ogg)，如 192k")
@click.option(
    "--compression", type=int, default=None,
    help="压缩级别 (flac 0-8)",
)
@click.option("--no-normalize", is_flag=True, help="关闭音量归一化")
@click.option(
    "--target-sr", type=int, default=0,
    help="输出采样率（0=保持原始）",
)
@click.option("--vad", is_flag=True, help="启用 VAD 自动静音切除")
@click.option(
    "--vad-hold", type=float, default=0.5,
    show_default=True,
    help="VAD 静音判定等待时间（秒）",
)
@click.option(
    "--vad-crossfade", type=int, default=10,
    show_default=True,
    help="VAD 段间交叉渐变时长（毫秒）",
)
def denoise_cmd(input, output, model, strength, fmt, bitrate, compression,
                no_normalize, target_sr, vad, vad_hold, vad_crossfade):
    """降噪单个音频文件

    INPUT 是音频文件路径，或 "-" 从 stdin 读取。

    使用示例:

        zipenhancer denoise recording.wav

        zipenhancer denoise test.wav -o clean.flac --format flac

        zipenhancer denoise test.wav --model frcrn --strength 0.7

        zipenhancer denoise test.wav --vad  （降噪后切除静音）

        ffmpeg -i meeting.mp3 -f wav - | zipenhancer denoise -
    """
    # 解析格式
    fmt = _detect_format(output, fmt)
    if output is None:
        output = _make_output_path(input, fmt)

    # 读取音频
    _log("读取音频...", fg="cyan")
    read_start = time.time()
    audio, sr = _read_audio(input)
    orig_channels = audio.shape[1] if audio.ndim > 1 else 1
    duration = audio.shape[0] / sr
    _log(f"  采样率: {sr}Hz, 声道: {orig_channels}, "
         f"时长: {duration:.1f}s")

    # 降噪（可选 VAD）
    _log(f"降噪中 (模型: {model}, 强度: {strength})...", fg="cyan")
    vad_kwargs = {"hold_time": vad_hold, "crossfade_ms": vad_crossfade} if vad else None
    denoised, proc_time, _ = denoise_fn(
        audio, sr,
        model=MODEL_MAP[model],
        normalize=not no_normalize,
        target_sr=target_sr,
        strength=strength,
        vad=vad,
        vad_kwargs=vad_kwargs,
    )

    # 输出
    if output is None:
        # 写入 stdout（管道模式）
        _log("写入 stdout...", fg="cyan")
        buf = io.BytesIO()
        sf.write(buf, denoised, target_sr if target_sr > 0 else sr,
                 format="WAV", subtype="PCM_16")
        sys.stdout.buffer.write(buf.getvalue())
    else:
        # 写入文件
        _log(f"写入文件: {output}", fg="cyan")
        result = write_audio(
            output, denoised, target_sr if target_sr > 0 else sr,
            fmt=fmt, bitrate=bitrate, compression=compression,
        )
        _log(
            f"  [{result.format}.{result.subtype}] "
            f"{_format_size(result.path)}",
            fg="green",
        )

    _log(
        f"完成: {proc_time:.2f}s (x{duration/proc_time:.1f} 实时比)",
        fg="green",
    )


@main.command("batch")
@click.argument("input_dir", type=click.Path(exists=True, file_okay=False))
@click.argument("output_dir", type=click.Path())
@click.option(
    "--model", default="zipenhancer", show_default=True,
    type=click.Choice(list(MODEL_MAP.keys())),
    help="降噪模型",
)
@click.option(
    "--strength", default=1.0, show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="降噪强度 (0.0~1.0)",
)
@click.option(
    "-f", "--format", "fmt", default="wav",
    type=click.Choice(list(FORMATS.keys())),
    help="输出格式",
)
@click.option("--bitrate", default=None, help="比特率 (mp3/ogg)，如 192k")
@click.option(
    "--compression", type=int, default=None,
    help="压缩级别 (flac 0-8)",
)
@click.option("--no-normalize", is_flag=True, help="关闭音量归一化")
@click.option(
    "--target-sr", type=int, default=0,
    help="输出采样率（0=保持原始）",
)
@click.option("--vad", is_flag=True, help="启用 VAD 自动静音切除")
@click.option(
    "--vad-hold", type=float, default=0.5,
    show_default=True,
    help="VAD 静音判定等待时间（秒）",
)
@click.option(
    "--vad-crossfade", type=int, default=10,
    show_default=True,
    help="VAD 段间交叉渐变时长（毫秒）",
)
def batch_cmd(input_dir, output_dir, model, strength, fmt, bitrate,
              compression, no_normalize, target_sr, vad, vad_hold, vad_crossfade):
    """批量降噪目录中的所有音频文件"""
    # 扫描音频文件
    files = sorted(
        f for f in os.listdir(input_dir)
        if Path(f).suffix.lower() in AUDIO_EXTENSIONS
    )
    if not files:
        raise click.ClickException(
            f"输入目录中没有音频文件: {input_dir}"
        )

    os.makedirs(output_dir, exist_ok=True)
    ctx = click.get_current_context()
    cfg = FORMATS[fmt]

    _log(
        f"批量处理: {len(files)} 个文件, "
        f"模型={model}, 格式={fmt}, 强度={strength}",
        fg="cyan",
    )

    results = {"success": 0, "failed": 0, "total": len(files)}
    total_start = time.time()

    with click.progressbar(
        files,
        label="处理中",
        item_show_func=lambda f: f or "",
        width=40,
        file=sys.stderr,
    ) as bar:
        for filename in bar:
            in_path = os.path.join(input_dir, filename)
            stem = Path(filename).stem
            out_path = os.path.join(output_dir, f"{stem}_denoised{cfg.ext}")

            try:
                audio, sr = sf.read(in_path)
                vad_kwargs = {"hold_time": vad_hold, "crossfade_ms": vad_crossfade} if vad else None
                denoised, proc_time, duration = denoise_fn(
                    audio, sr,
                    model=MODEL_MAP[model],
                    normalize=not no_normalize,
                    target_sr=target_sr,
                    strength=strength,
                    vad=vad,
                    vad_kwargs=vad_kwargs,
                )
                write_audio(
                    out_path, denoised,
                    target_sr if target_sr > 0 else sr,
                    fmt=fmt, bitrate=bitrate, compression=compression,
                )
                results["success"] += 1
            except Exception as e:
                _log(f"  失败: {filename} - {e}", fg="red")
                results["failed"] += 1

    total_time = time.time() - total_start
    _log(
        f"批量完成: {results['success']}/{results['total']} 成功, "
        f"耗时 {total_time:.1f}s",
        fg="green",
    )

    # 如果有失败，用非零退出码
    if results["failed"] > 0:
        ctx.exit(1)


@main.command("list")
def list_cmd():
    """列出可用模型和输出格式"""
    click.echo("可用模型:")
    descs = {
        "zipenhancer": "轻量降噪（默认）",
        "frcrn": "实时降噪",
        "mossformer2": "高质量降噪",
    }
    for key, model_id in MODEL_MAP.items():
        click.echo(f"  {key:12s} {descs[key]:12s} {model_id}")
    click.echo()

    click.echo("输出格式:")
    for cfg in get_supported_formats():
        desc = cfg["description"]
        extras = ""
        if "bitrate_range" in cfg:
            extras += f" 比特率:{cfg['default_bitrate']}"
        if "compression_range" in cfg:
            extras += f" 压缩:0-{cfg['compression_range'][1]}"
        click.echo(f"  {cfg['format']:6s} {desc}{extras}")


@main.command("info")
@click.argument("input", type=click.Path(exists=True))
def info_cmd(input):
    """查看音频文件信息"""
    info = sf.info(input)

    click.echo(f"文件:   {input}")
    click.echo(f"大小:   {_format_size(input)}")
    click.echo(f"时长:   {info.duration:.2f}s")
    click.echo(f"采样率: {info.samplerate} Hz")
    click.echo(f"声道:   {info.channels}")
    click.echo(f"编码:   {info.subtype}")

    # 读取样本评估响度
    audio, _ = sf.read(input)
    peak = float(np.max(np.abs(audio)))
    click.echo(f"峰值:   {peak:.4f}")
    if peak > 1e-10:
        db = 20.0 * np.log10(peak)
        click.echo(f"峰值电平: {db:.1f} dBFS")


if __name__ == "__main__":
    main()
