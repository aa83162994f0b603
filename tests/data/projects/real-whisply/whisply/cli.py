import os
from pathlib import Path
from typing import Annotated

import typer
from rich import print

from whisply import output_utils
from whisply import post_correction as post
from whisply.little_helper import DeviceChoice
from whisply.output_utils import ExportFormats

cli_app = typer.Typer(no_args_is_help=True)


@cli_app.command("run", no_args_is_help=True)
def run_cmd(
    files: Annotated[
        list[str] | None,
        typer.Option(
            "--files",
            "-f",
            help="Path to file, folder, URL or .list to process.",
        ),
    ] = None,
    output_dir: Annotated[
        Path,
        typer.Option(
            "--output_dir",
            "-o",
            file_okay=False,
            dir_okay=True,
            writable=True,
            readable=True,
            resolve_path=True,
            help="Output folder",
        ),
    ] = Path("./transcriptions"),
    device: Annotated[
        DeviceChoice,
        typer.Option(
            "--device",
            "-d",
            help="CPU, GPU (NVIDIA), MLX (Mac M1-M5)",
        ),
    ] = DeviceChoice.AUTO,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            "-m",
            help='Whisper model (run "whisply list" to see options)',
        ),
    ] = "large-v3-turbo",
    lang: Annotated[
        str | None,
        typer.Option(
            "--language",
            "-l",
            help='Language of your file(s) ("en", "de") (Default: auto-detect)',
        ),
    ] = None,
    annotate: Annotated[
        bool,
        typer.Option(
            "--annotate",
            "-a",
            help="Enable speaker annotation (Default: False)",
        ),
    ] = False,
    num_speakers: Annotated[
        int | None,
        typer.Option(
            "--num_speakers",
            "-num",
            help="Number of speakers to annotate (Default: auto-detect)",
        ),
    ] = None,
    hf_token: Annotated[
        str | None,
        typer.Option(
            "--hf_token",
            "-hf",
            help="HuggingFace Access token required for speaker annotation",
        ),
    ] = None,
    subtitle: Annotated[
        bool,
        typer.Option(
            "--subtitle",
            "-s",
            help="Create subtitles (Default: False)",
        ),
    ] = False,
    sub_length: Annotated[
        int,
        typer.Option(
            "--subtitle_length",
            "-sub_length",
            help="Subtitle segment length in words",
        ),
    ] = 5,
    translate: Annotated[
        bool,
        typer.Option(
            "--translate",
            "-t",
            help="Translate transcription to English (Default: False)",
        ),
    ] = False,
    export_format: Annotated[
        ExportFormats,
        typer.Option(
            "--export",
            "-e",
            help="Choose the export format",
        ),
    ] = ExportFormats.ALL,
    del_originals: Annotated[
        bool,
        typer.Option(
            "--del_originals",
            "-del",
            help="Delete input files after file conversion. (Default: False)",
        ),
    ] = False,
    download_lang: Annotated[
        str | None,
        typer.Option(
            "--download_language",
            "-dl",
            help=(
                'Specify a language code ("en", "de" ...) to transcribe a '
                'specific audio track of a URL. (Default: auto-detect)'
            ),
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="Path to configuration file",
        ),
    ] = None,
    post_correction: Annotated[
        Path | None,
        typer.Option(
            "--post_correction",
            "-post",
            help="Path to YAML file for post-correction",
        ),
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Print text chunks during transcription (Default: False)",
        ),
    ] = False,
):
    """
    Transcribe files with whisply
    """
    from whisply import little_helper, models

    # Load configuration from config.json if provided
    if config:
        config_data = little_helper.load_config(config)
        files = [(
            files or Path(config_data.get("files"))
            if config_data.get("files") else files
        )]
        output_dir = (
            Path(config_data.get("output_dir"))
            if config_data.get("output_dir") else output_dir
        )
        device = DeviceChoice(config_data.get("device", device.value))
        model = config_data.get("model", model)
        lang = config_data.get("language", lang)
        annotate = config_data.get("annotate", annotate)
        num_speakers = config_data.get(
            "num_speakers", num_speakers
        )
        translate = config_data.get("translate", translate)
        hf_token = config_data.get("hf_token", hf_token)
        subtitle = config_data.get("subtitle", subtitle)
        sub_length = config_data.get("subtitle_length", sub_length)
        verbose = config_data.get("verbose", verbose)
        del_originals = config_data.get("delete_originals", del_originals)
        download_lang = config_data.get("download_language", download_lang)
        post_correction = config_data.get("post_correction", post_correction)

    # Check if provided model is available
    if not models.ensure_model(model):
        msg = f"""→ Model "{model}" not available.\n→ Available models:\n..."""
        msg += '\n... '.join(models.WHISPER_MODELS.keys())
        print(f"{msg}")
        raise typer.Exit()

    # Check for HuggingFace Access Token if speaker annotation is enabled
    if annotate and not hf_token:
        hf_token = os.getenv('HF_TOKEN')
        if not hf_token:
            print('→ Please provide a HuggingFace access token with option')
            print('  (--hf_token / -hf) to enable speaker annotation.')
            raise typer.Exit()

    # Determine the computation device
    device_str = little_helper.get_device(device=device)

    deps_ok, deps_message = little_helper.check_dependencies_for_device(
        device=device_str,
        requested_device=device
    )
    if not deps_ok:
        print(f"[blue1]→ {deps_message}")
        raise typer.Exit(code=1)

    # Determine the ExportFormats
    export_formats = output_utils.determine_export_formats(
        export_format,
        annotate,
        subtitle
    )

    # Load corrections if post_correction is provided
    if post_correction:
        corrections = post.load_correction_list(post_correction)

    # Transcription
    if files:
        from whisply.transcription import TranscriptionHandler

        # Instantiate TranscriptionHandler
        try:
            service = TranscriptionHandler(
                base_dir=output_dir,
                device=device_str,
                model=model,
                file_language=lang,
                annotate=annotate,
                num_speakers=num_speakers,
                translate=translate,
                hf_token=hf_token,
                subtitle=subtitle,
                sub_length=sub_length,
                verbose=verbose,
                del_originals=del_originals,
                download_lang=download_lang,
                corrections=corrections if post_correction else None,
                export_formats=export_formats
            )
        except RuntimeError as exc:
            print(f"[blue1]→ {exc}")
            raise typer.Exit(code=1)

        # Process files
        service.process_files(files)
    else:
        print("[bold]→ Please provide a Path to a file, folder,")
        print("  URL or .list to start the transcription.")
        raise typer.Exit()


@cli_app.command("app")
def app_cmd():
    """
    Launch the whisply app
    """
    from whisply import little_helper

    deps_ok, deps_message = little_helper.check_app_dependencies()
    if not deps_ok:
        print(f"[blue1]→ {deps_message}")
        raise typer.Exit(code=1)

    from whisply.app import main as run_gradio_app
    run_gradio_app()


@cli_app.command("list")
def list_cmd():
    """
    List available models
    """
    from whisply.models import WHISPER_MODELS

    impl_device_map = {
        'faster-whisper': ['cpu', 'gpu'],
        'whisperx': ['cpu', 'gpu'],
        'mlx-whisper': ['mlx'],
    }
    device_order = ['cpu', 'gpu', 'mlx']

    print("[bold]Available models for each device:[/bold]")
    for model_key, info in WHISPER_MODELS.items():
        device_support = {device: False for device in device_order}
        for impl, devices in impl_device_map.items():
            if info.get(impl):
                for device in devices:
                    device_support[device] = True

        supported_devices = [d for d in device_order if device_support[d]]
        devices_str = ", ".join(supported_devices)

        print(
            f"[blue bold]{model_key:<18}[/][gold3]→ [deep_pink4]{devices_str}"
        )


def run():
    cli_app()


if __name__ == "__main__":
    run()
