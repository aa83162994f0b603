"""
DINOtool CLI: Extract and visualize DINO features from images and videos.
"""

import argparse
import os
import pickle
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Literal, Optional, Tuple, Union

import numpy as np
import pandas as pd
import torch
import xarray as xr
from tqdm import tqdm

import dinotool
from dinotool import data
from dinotool.model import (
    DinoFeatureExtractor,
    DinoV3FeatureExtractor,
    OpenCLIPFeatureExtractor,
    RADIOFeatureExtractor,
    TIPSv2FeatureExtractor,
    PCAModule,
    load_model,
)
from dinotool.utils import BatchHandler, frame_visualizer


# Configuration
MODEL_SHORTCUTS = {
    "vit-s": "dinov2_vits14_reg",
    "vit-b": "dinov2_vitb14_reg",
    "vit-l": "dinov2_vitl14_reg",
    "vit-g": "dinov2_vitg14_reg",

    "dinov2-s": "dinov2_vits14_reg",
    "dinov2-b": "dinov2_vitb14_reg",
    "dinov2-l": "dinov2_vitl14_reg",
    "dinov2-g": "dinov2_vitg14_reg",

    "siglip1": "hf-hub:timm/ViT-B-16-SigLIP-i18n-256",

    "siglip2": "hf-hub:timm/ViT-B-16-SigLIP2-512",
    "siglip2-so400m-384": "hf-hub:timm/ViT-SO400M-16-SigLIP2-384",
    "siglip2-so400m-512": "hf-hub:timm/ViT-SO400M-16-SigLIP2-512",
    "siglip2-b16-256": "hf-hub:timm/ViT-B-16-SigLIP2-256",
    "siglip2-b16-512": "hf-hub:timm/ViT-B-16-SigLIP2-512",
    "siglip2-b32-256": "hf-hub:timm/ViT-B-32-SigLIP2-256",

    "clip": "hf-hub:timm/vit_base_patch16_clip_224.openai",

    "dinov3-s": "facebook/dinov3-vits16-pretrain-lvd1689m",
    "dinov3-splus": "facebook/dinov3-vits16plus-pretrain-lvd1689m",
    "dinov3-b": "facebook/dinov3-vitb16-pretrain-lvd1689m",
    "dinov3-l": "facebook/dinov3-vitl16-pretrain-lvd1689m",
    "dinov3-hplus": "facebook/dinov3-vith16plus-pretrain-lvd1689m",
    "dinov3-7b": "facebook/dinov3-vit7b16-pretrain-lvd1689m",
    "dinov3-l-sat": "facebook/dinov3-vitl16-pretrain-sat493m",
    "dinov3-7b-sat": "facebook/dinov3-vit7b16-pretrain-sat493m",

    "radio-b": "NVlabs/RADIO/c-radio_v3-b",
    "radio-l": "NVlabs/RADIO/c-radio_v3-l",
    "radio-h": "NVlabs/RADIO/c-radio_v3-h",
    "radio-g": "NVlabs/RADIO/c-radio_v3-g",

    "tipsv2-b": "google/tipsv2-b14",
    "tipsv2-l": "google/tipsv2-l14",
    "tipsv2-so400m" : "google/tipsv2-so400m14",
    "tipsv2-g": "google/tipsv2-g14",

}

class PrintModelsAction(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        print("Available model shortcuts:")
        for shortcut, model in MODEL_SHORTCUTS.items():
            print(f"  {shortcut} \t->\t{model}")
        print("\nMost timm models from Huggingface Hub should work with the prefix 'hf-hub:timm/<model>'",
              "\nMore information:",
              "\n - DINOv2: https://github.com/facebookresearch/dinov2",
              "\n - DINOv3: https://github.com/facebookresearch/dinov3",
              "\n - RADIO: https://github.com/NVlabs/RADIO",
              "\n - TIPSv2: https://github.com/google-deepmind/tips")
        parser.exit()

VALID_IMAGE_EXTENSIONS = (".jpg", ".png")
VALID_VIDEO_EXTENSIONS = (".mp4", ".avi")
VALID_OUTPUT_EXTENSIONS = VALID_IMAGE_EXTENSIONS + VALID_VIDEO_EXTENSIONS


@dataclass
class DinotoolConfig:
    """Configuration for DINOtool processing."""

    input: str
    output: str
    model_name: str = "dinov2_vits14_reg"
    input_size: Optional[Tuple[int, int]] = None
    batch_size: int = 1
    only_pca: bool = False
    save_features: Optional[str] = None
    no_vis: bool = False
    resume: bool = False
    tmpdir_base: Optional[str] = None


class ArgumentValidator:
    """Validates command-line arguments."""

    @staticmethod
    def validate_input_path(input_path: str) -> None:
        """Validate that input path exists."""
        if not os.path.exists(input_path):
            raise argparse.ArgumentTypeError(
                f"Input path '{input_path}' does not exist."
            )

    @staticmethod
    def validate_output_path(output_path: str, force: bool) -> None:
        """Validate output path doesn't exist unless force is used."""
        if os.path.exists(output_path) and not force:
            raise argparse.ArgumentTypeError(
                f"Output path '{output_path}' already exists. Use --force to overwrite."
            )

    @staticmethod
    def validate_feature_files(output_path: str, save_features: str) -> None:
        """Validate feature output files."""
        if save_features == "full":
            nc_file = f"{output_path}.nc"
            zarr_dir = f"{output_path}.zarr"

            if os.path.exists(nc_file):
                print(
                    f"Warning: Output file '{nc_file}' already exists and will be overwritten."
                )

            if os.path.exists(zarr_dir):
                raise argparse.ArgumentTypeError(
                    f"Output directory '{zarr_dir}' already exists. Please remove it first."
                )

    @staticmethod
    def validate_output_extension(
        input_type: str, output_path: str, no_vis: bool
    ) -> None:
        """Validate output file extension."""
        if (
            not no_vis
            and not output_path.endswith(VALID_OUTPUT_EXTENSIONS)
            and input_type != "image_directory"
        ):
            raise argparse.ArgumentTypeError(
                f"Output file must have a valid extension {VALID_OUTPUT_EXTENSIONS}. "
                "Use --no-vis to skip visualization."
            )

    @staticmethod
    def validate_vis_and_features(no_vis: bool, save_features: Optional[str]) -> None:
        """Validate that either visualization or feature saving is enabled."""
        if no_vis and not save_features:
            raise argparse.ArgumentTypeError(
                "If --no-vis is set, you must also set --save-features to save features."
            )

    @staticmethod
    def validate_input_type_and_vis_and_batch(
        input_type: str, input_size, no_vis: bool, input_path: str, batch_size: int
    ) -> None:
        if input_type == "image_directory" and batch_size > 1:
            if not no_vis:
                raise argparse.ArgumentTypeError(
                    "Visualization of image directories with batch size > 1 is not supported. "
                    "Set --no-vis or set --batch-size to 1."
                )
            if input_size is None:
                raise argparse.ArgumentTypeError(
                    "Batch size > 1 is not (currently) supported for image directories. "
                    "with varying input sizes. "
                    "Do not set --batch-size or set it to 1, or set --input-size to a fixed size."
                )


class ArgumentParser:
    """Handles command-line argument parsing."""

    def __init__(self):
        self.parser = self._create_parser()

    def _create_parser(self) -> argparse.ArgumentParser:
        """Create the argument parser."""
        parser = argparse.ArgumentParser(
            description="🦕 DINOtool: Extract and visualize ViT features from images and videos."
        )

        # Required arguments
        parser.add_argument(
            "input", type=str, help="Path to an image, video file, or folder of images."
        )
        parser.add_argument(
            "--output",
            "-o",
            type=str,
            required=True,
            help="Path to output file or directory where features and visualizations will be saved.",
        )

        # Model arguments
        parser.add_argument(
            "--model-name",
            "-m",
            type=str,
            default="dinov2_vits14_reg",
            help="Model to use (default: dinov2_vits14_reg). OpenCLIP/timm models can be used with 'hf-hub:timm/<model_name>' format.",
        )
        parser.add_argument(
            "--input-size",
            type=int,
            nargs=2,
            default=None,
            help="Resizes input to this size before passing it to the model. Mandatory for image directories with batch size > 1. ",
        )

        # Processing arguments
        parser.add_argument(
            "--batch-size",
            "-b",
            type=int,
            default=1,
            help="Batch size for processing (default: 1).",
        )

        # Feature arguments
        parser.add_argument(
            "--only-pca",
            action="store_true",
            help="Only visualize PCA features (default: False).",
        )
        parser.add_argument(
            "--save-features",
            "-s",
            type=str,
            default=None,
            choices=["full", "flat", "frame", "all"],
            help="Save features to file (netCDF for images, zarr for videos)."
            " 'full' saves local features with spatial information, 'flat' saves local flattened features,"
            " 'frame' saves global frame-level features, 'all' saves both flat local and global frame features.",
        )

        # Output arguments
        parser.add_argument(
            "--no-vis",
            action="store_true",
            help="Do not visualize features, only save them (default: False).",
        )
        parser.add_argument(
            "--force",
            "-f",
            action="store_true",
            help="Force overwrite output file if it exists (default: False).",
        )
        parser.add_argument(
            "--resume",
            "-r",
            action="store_true",
            help="Resume a previously interrupted run. Skips already-processed batches found in the temp directory (video/image-directory inputs with --save-features only).",
        )
        parser.add_argument(
            "--tmpdir",
            default=None,
            metavar="DIR",
            help="Parent directory for the temporary working directory (default: same directory as output).",
        )
        parser.add_argument(
            "--models",
            action=PrintModelsAction,
            nargs=0,
            help="List available model shortcuts and exit.",
        )

        # Version
        parser.add_argument(
            "--version",
            action="version",
            version=dinotool.__version__,
            help="Show the version of DINOtool.",
        )

        return parser

    def parse(self) -> DinotoolConfig:
        """Parse arguments and return configuration."""
        args = self.parser.parse_args()

        # Validate arguments
        try:
            _, input_type = data.InputProcessor.find_source(args.input)
            print(f"Input type: {input_type}")
            ArgumentValidator.validate_input_path(args.input)
            ArgumentValidator.validate_output_path(args.output, args.force)
            ArgumentValidator.validate_output_extension(
                input_type, args.output, args.no_vis
            )
            ArgumentValidator.validate_vis_and_features(args.no_vis, args.save_features)
            ArgumentValidator.validate_input_type_and_vis_and_batch(
                input_type, args.input_size, args.no_vis, args.input, args.batch_size
            )

            if args.save_features:
                ArgumentValidator.validate_feature_files(
                    args.output, args.save_features
                )

        except argparse.ArgumentTypeError as e:
            self.parser.error(str(e))

        # Handle model shortcuts
        model_name = args.model_name
        if model_name in MODEL_SHORTCUTS:
            print(
                f"Using model shortcut: {model_name} -> {MODEL_SHORTCUTS[model_name]}"
            )
            model_name = MODEL_SHORTCUTS[model_name]

        return DinotoolConfig(
            input=args.input,
            output=args.output,
            model_name=model_name,
            input_size=tuple(args.input_size) if args.input_size else None,
            batch_size=args.batch_size,
            only_pca=args.only_pca,
            save_features=args.save_features,
            no_vis=args.no_vis,
            resume=args.resume,
            tmpdir_base=args.tmpdir,
        )


class FeatureSaver:
    """Handles saving features in different formats."""

    @staticmethod
    def save_batch_features(
        batch_frames: List[data.FrameData], method: Literal["full", "flat"], output: str
    ) -> None:
        """Save features from a batch of frames to a file."""
        if batch_frames[0].filename is not None:
            identifier = "filename"
        else:
            identifier = "frame_idx"

        if method == "full":
            f_data = data.create_xarray_from_batch_frames(
                batch_frames, identifier=identifier
            )
            f_data.to_netcdf(f"{output}.nc")
        elif method == "flat":
            f_data = data.create_dataframe_from_batch_frames(
                batch_frames, identifier=identifier
            )
            f_data.to_parquet(f"{output}.parquet")

    @staticmethod
    def combine_frame_features(
        method: Literal["full", "flat"], tmpdir: str, feature_out_name: str
    ) -> None:
        """Combine features from temporary files into a single output."""
        if method == "full":
            FeatureSaver._combine_netcdf_files(tmpdir, feature_out_name)
        elif method == "flat":
            FeatureSaver._combine_parquet_files(tmpdir, feature_out_name)

        print(f"Saved features to {feature_out_name}")

    @staticmethod
    def _combine_netcdf_files(tmpdir: str, output_name: str) -> None:
        """Combine netCDF files into a zarr directory."""
        nc_files = sorted(Path(tmpdir).glob("*.nc"))

        def load_dataset(path):
            with xr.open_dataset(path) as ds:
                ds.load()
                return ds

        with xr.open_dataset(nc_files[0]) as _ds:
            identifier = "filename" if "filename" in _ds.dims else "frame_idx"

        xr_data = xr.concat([load_dataset(path) for path in nc_files], dim=identifier)
        xr_data.to_zarr(output_name)

    @staticmethod
    def _combine_parquet_files(tmpdir: str, output_name: str) -> None:
        """Combine parquet files into a partitioned directory."""
        Path(output_name).mkdir(parents=True, exist_ok=True)
        parquet_files = sorted(Path(tmpdir).glob("*.parquet"))

        for idx, file in enumerate(parquet_files):
            file.rename(Path(output_name) / f"part.{idx}.parquet")


class ExtractorFactory:
    """Factory for creating feature extractors."""

    @staticmethod
    def create_extractor(
        model_name: str,
        model: torch.nn.Module,
        device: str = "cuda",
    ) -> DinoFeatureExtractor:
        """Create appropriate feature extractor based on model name."""
        if model_name.startswith("hf-hub:timm"):
            return OpenCLIPFeatureExtractor(model, device=device)
        
        elif model_name.startswith("facebook/dinov3"):
            return DinoV3FeatureExtractor(model, device=device)
        elif model_name.startswith("NVlabs/RADIO/"):
            return RADIOFeatureExtractor(model, device=device)
        elif model_name.startswith("google/tipsv2"):
            return TIPSv2FeatureExtractor(model, device=device)
        else:
            return DinoFeatureExtractor(model, device=device)


def create_video_from_frames(
    tmpdir: str, output_path: str, framerate: float = 30
) -> None:
    """Create video from frame images using ffmpeg."""
    output_path = Path(output_path)
    if not output_path.parent.exists():
        output_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            [
                "ffmpeg",
                "-y",
                "-framerate",
                str(framerate),
                "-i",
                f"{tmpdir}/%05d.jpg",
                "-c:v",
                "libx264",
                "-pix_fmt",
                "yuv420p",
                str(output_path),
            ],
            check=True,
        )

        print(f"Saved visualization to {output_path}")
    except FileNotFoundError:
        raise FileNotFoundError(
            "ffmpeg is not installed. Please install ffmpeg to create video outputs."
        )
    except subprocess.CalledProcessError as e:
        raise RuntimeError(
            f"Failed to create video from frames: {e}. "
        )
    except Exception as e:
        raise RuntimeError(
            f"An unexpected error occurred while creating video: {e}"
        ) from e
    


class DinotoolProcessor:
    """Main processor for DINOtool operations."""

    def __init__(self, config: DinotoolConfig):
        self.config = config
        self.device = "cuda" if torch.cuda.is_available() else "cpu"

    @property
    def _local_save_method(self) -> str:
        return "flat" if self.config.save_features == "all" else self.config.save_features

    def run(self) -> None:
        """Run the main processing pipeline."""
        # Load model and setup
        model: torch.nn.Module = load_model(self.config.model_name)
        print(f"Using model: {self.config.model_name}")
        print(f"Model patch size: {model.patch_size}")
        print(f"Using device: {self.device}")

        # Setup input pipeline
        input_processor = data.InputProcessor(
            model_name=self.config.model_name,
            input_path=self.config.input,
            patch_size=model.patch_size,
            batch_size=self.config.batch_size,
            resize_size=self.config.input_size,
        )
        input_data: data.InputData = input_processor.process()

        # Create extractor
        extractor = ExtractorFactory.create_extractor(
            model_name=self.config.model_name,
            model=model,
            device=self.device,
        )

        # Route to appropriate processing method
        if input_data.input_type == "single_image":
            self._process_single_image(input_data, extractor)
        elif input_data.input_type == "image_directory" and self.config.input_size is None:
            self._process_per_image(input_data, extractor)
        else:
            # video_file, video_dir, image_directory with input_size
            self._process_batched(input_data, extractor)

    @staticmethod
    def _setup_pca(
        extractor: DinoFeatureExtractor,
        dataloader,
        feature_map_size: Tuple[int, int],
    ) -> PCAModule:
        """Fit PCA on the first batch of a dataloader."""
        first_batch = next(iter(dataloader))
        pca = PCAModule(n_components=3, feature_map_size=feature_map_size)
        first_features = extractor(first_batch["img"])
        pca.fit(first_features.flat().tensor)
        return pca

    def _process_single_image(
        self, input_data: data.InputData, extractor: DinoFeatureExtractor
    ) -> None:
        """Process a single image."""
        needs_global = self.config.save_features in ["frame", "all"]
        needs_local = self.config.save_features in ["full", "flat", "all"] or (not self.config.no_vis and not needs_global)

        Path(self.config.output).parent.mkdir(parents=True, exist_ok=True)
        output_stem = Path(self.config.output).with_suffix("")

        if needs_local and needs_global:
            features, global_tensor = extractor(input_data.data, return_both=True)
            global_features = global_tensor.cpu().numpy()
        elif needs_global:
            global_features = extractor(input_data.data, return_clstoken=True).cpu().numpy()
        elif needs_local:
            features = extractor(input_data.data)

        if needs_global:
            np.savetxt(f"{output_stem}.txt", global_features, delimiter=",")
            print(f"Saved frame features to {output_stem}.txt")

        if needs_local:
            if not self.config.no_vis:
                pca = PCAModule(
                    n_components=3, feature_map_size=input_data.feature_map_size
                )
                pca.fit(features.flat().tensor)
                pca_array = pca.transform(features.flat().tensor, flattened=False)[0]
            else:
                pca_array = None

            frame = data.FrameData(
                img=input_data.source,
                features=features,
                pca=pca_array,
                frame_idx=0,
            )

            if not self.config.no_vis:
                out_img = frame_visualizer(
                    frame, output_size=input_data.input_size, only_pca=self.config.only_pca
                )
                out_img.save(self.config.output)
                print(f"Saved visualization to {self.config.output}")

            if self.config.save_features:
                FeatureSaver.save_batch_features(
                    [frame], method=self._local_save_method, output=str(output_stem)
                )
                extension = ".nc" if self._local_save_method == "full" else ".parquet"
                print(f"Saved features to {output_stem}{extension}")

    def _process_batched(
        self, input_data: data.InputData, extractor: DinoFeatureExtractor
    ) -> None:
        """Process batched input (video file, video dir, or image directory with fixed input size)."""
        needs_global = self.config.save_features in ["frame", "all"]
        needs_local = self.config.save_features in ["full", "flat", "all"] or (not self.config.no_vis and not needs_global)

        # Setup output paths for local features
        feature_out_name = None
        if needs_local and self.config.save_features:
            extension = ".zarr" if self._local_save_method == "full" else ".parquet"
            feature_out_name = Path(self.config.output).with_suffix(extension)

        # Deterministic tmpdir so interrupted runs can be resumed with --resume
        output_stem = Path(self.config.output).with_suffix("")
        if self.config.tmpdir_base:
            tmpdir = str(Path(self.config.tmpdir_base) / f"{output_stem.name}.dinotool_tmp")
        else:
            tmpdir = f"{output_stem}.dinotool_tmp"
        if os.path.exists(tmpdir) and not self.config.resume:
            shutil.rmtree(tmpdir, ignore_errors=True)
        os.makedirs(tmpdir, exist_ok=True)

        # When saving both local and global, write global parquets to a subdir to avoid name collision
        global_tmpdir = tmpdir
        if needs_local and needs_global:
            global_tmpdir = f"{tmpdir}/global"
            os.makedirs(global_tmpdir, exist_ok=True)

        # Setup PCA for local features — cache to tmpdir so resume skips refitting
        pca = None
        if needs_local and not self.config.no_vis:
            pca_cache = Path(tmpdir) / "pca.pkl"
            if self.config.resume and pca_cache.exists():
                with open(pca_cache, "rb") as f:
                    pca = pickle.load(f)
            else:
                pca = self._setup_pca(extractor, input_data.data, input_data.feature_map_size)
                with open(pca_cache, "wb") as f:
                    pickle.dump(pca, f)

        progbar = tqdm(total=len(input_data.source))

        if needs_local:
            batch_handler = BatchHandler(
                input_data.source, extractor, pca, progress_bar=progbar
            )

        try:
            self._process_batched_loop(
                input_data, extractor, tmpdir,
                batch_handler=batch_handler if needs_local else None,
                needs_local=needs_local, needs_global=needs_global,
                global_tmpdir=global_tmpdir,
                progbar=progbar,
            )

            # Create output video (only for video inputs with visualization)
            if needs_local and not self.config.no_vis:
                try:
                    framerate = input_data.source.framerate
                except (ValueError, AttributeError):
                    framerate = 30
                create_video_from_frames(tmpdir, self.config.output, framerate)

            # Combine local features
            if needs_local and self.config.save_features:
                FeatureSaver.combine_frame_features(
                    method=self._local_save_method,
                    tmpdir=tmpdir,
                    feature_out_name=str(feature_out_name),
                )

            # Combine global features
            if needs_global:
                global_out = (
                    f"{output_stem}_frame.parquet"
                    if self.config.save_features == "all"
                    else f"{output_stem}.parquet"
                )
                FeatureSaver._combine_parquet_files(global_tmpdir, global_out)
                print(f"Saved frame features to {global_out}")

            shutil.rmtree(tmpdir, ignore_errors=True)

        except (KeyboardInterrupt, Exception):
            print(f"\nProcessing interrupted. Temp files saved to '{tmpdir}'.")
            print("Re-run with --resume to continue from where it stopped.")
            raise

    def _batch_already_done(
        self, idx: int, tmpdir: str, global_tmpdir: str, needs_local: bool, needs_global: bool
    ) -> bool:
        """Return True if batch idx's output files already exist in tmpdir."""
        if needs_local and self.config.save_features:
            ext = ".nc" if self._local_save_method == "full" else ".parquet"
            if not Path(f"{tmpdir}/{idx:05d}{ext}").exists():
                return False
        if needs_global:
            if not Path(global_tmpdir, f"{idx:05d}.parquet").exists():
                return False
        return (needs_local and bool(self.config.save_features)) or needs_global

    def _process_batched_loop(
        self,
        input_data: data.InputData,
        extractor: DinoFeatureExtractor,
        tmpdir: str,
        batch_handler: Optional[BatchHandler],
        needs_local: bool,
        needs_global: bool,
        global_tmpdir: str,
        progbar,
    ) -> None:
        """Inner loop for batched processing."""
        idx = 0
        for batch in input_data.data:
            if self.config.resume and self._batch_already_done(
                idx, tmpdir, global_tmpdir, needs_local, needs_global
            ):
                progbar.update(len(batch["img"]))
                idx += 1
                continue

            if needs_local and needs_global:
                local_feats, global_tensor = extractor(batch["img"], return_both=True)
                batch_frames = batch_handler.process_features(local_feats, batch)
                global_features = global_tensor.cpu().numpy()
            elif needs_local:
                batch_frames = batch_handler(batch)
            elif needs_global:
                global_features = (
                    extractor(batch["img"], return_clstoken=True).cpu().numpy()
                )

            if needs_local:
                # Save visualization frames
                if not self.config.no_vis:
                    for frame in batch_frames:
                        out_img = frame_visualizer(
                            frame,
                            output_size=input_data.input_size,
                            only_pca=self.config.only_pca,
                        )
                        out_img.save(f"{tmpdir}/{frame.frame_idx:05d}.jpg")

                # Save local features
                if self.config.save_features:
                    output_path = f"{tmpdir}/{idx:05d}"
                    FeatureSaver.save_batch_features(
                        batch_frames,
                        method=self._local_save_method,
                        output=output_path,
                    )

            if needs_global:
                if "frame_idx" in batch:
                    frame_idx = batch["frame_idx"].cpu().numpy()
                    columns = [f"feature_{i}" for i in range(global_features.shape[1])]
                    df = pd.DataFrame(global_features, index=frame_idx, columns=columns)
                    df.index.set_names(["frame_idx"], inplace=True)
                else:
                    filename = batch["filename"]
                    columns = [f"feature_{i}" for i in range(global_features.shape[1])]
                    df = pd.DataFrame(global_features, index=list(filename), columns=columns)
                    df.index.set_names(["filename"], inplace=True)
                df.to_parquet(Path(global_tmpdir) / f"{idx:05d}.parquet")
                if not needs_local:  # BatchHandler already ticks progbar when needs_local
                    progbar.update(len(batch["img"]))

            idx += 1

    def _process_per_image(
        self, input_data: data.InputData, extractor: DinoFeatureExtractor
    ) -> None:
        """Process a directory of images one at a time (variable sizes). Batch size 1."""
        needs_global = self.config.save_features in ["frame", "all"]
        needs_local = self.config.save_features in ["full", "flat", "all"] or (not self.config.no_vis and not needs_global)

        out_dir = Path(self.config.output)
        out_dir.mkdir(parents=True, exist_ok=True)

        all_global_dfs = []
        progbar = tqdm(total=len(input_data.source))
        for batch in input_data.data:
            filename = batch["filename"][0]
            filename_stem = Path(filename).stem

            feature_map_size = tuple(x.item() for x in batch["feature_map_size"])
            input_size = extractor.patch_size * np.array(feature_map_size)
            progbar.set_description(f"Processing {filename}. Input size: {input_size}")

            if needs_local and needs_global:
                features, global_tensor = extractor(batch["img"], return_both=True)
                global_features = global_tensor.cpu().numpy()
            elif needs_global:
                global_features = (
                    extractor(batch["img"], return_clstoken=True).cpu().numpy()
                )
            elif needs_local:
                features = extractor(batch["img"])

            if needs_global:
                columns = [f"feature_{i}" for i in range(global_features.shape[1])]
                df = pd.DataFrame(global_features, index=[filename], columns=columns)
                df.index.set_names(["filename"], inplace=True)
                all_global_dfs.append(df)

            if needs_local:
                if not self.config.no_vis:
                    pca = PCAModule(n_components=3, feature_map_size=feature_map_size)
                    pca.fit(features.flat().tensor, verbose=False)
                    pca_array = pca.transform(features.flat().tensor, flattened=False)[0]
                else:
                    pca_array = None

                frame = data.FrameData(
                    img=input_data.source.get_by_name(filename),
                    features=features.full()[0],
                    frame_idx=0,
                    pca=pca_array,
                )

                if not self.config.no_vis:
                    out_img = frame_visualizer(
                        frame, output_size=input_size, only_pca=self.config.only_pca
                    )
                    out_img_path = os.path.join(self.config.output, f"{filename_stem}.jpg")
                    out_img.save(out_img_path)

                if self.config.save_features:
                    output_stem = Path(self.config.output).with_suffix("")
                    out_path = os.path.join(str(output_stem), f"{filename_stem}")
                    FeatureSaver.save_batch_features(
                        [frame], method=self._local_save_method, output=out_path
                    )
                    extension = ".nc" if self._local_save_method == "full" else ".parquet"
                    print(f"Saved features to {out_path}{extension}")

            progbar.update(1)

        # Save combined global features
        if needs_global and all_global_dfs:
            combined_df = pd.concat(all_global_dfs, axis=0)
            final_output_path = Path(self.config.output).with_suffix(".parquet")
            combined_df.to_parquet(final_output_path)
            print(f"Saved combined frame features to {final_output_path}")



# public API classes
class DinoToolModel:
    """A high-level interface for feature extraction and visualization with DINOtool
    
    Args:
        model_name (str): Model name or shortcut to use. Default is "dinov2_vits14_reg".
        device (str, optional): Device to use ("cuda" or "cpu"). Defaults to None, which selects "cuda" if available.
        verbose (bool): Whether to print model and device information. Default is True.
    Attributes:
        model_name (str): The full model name being used.
        device (str): The device being used.
        model (torch.nn.Module): The loaded model.
        extractor (DinoFeatureExtractor): The feature extractor.
        transform_factory (data.TransformFactory): Factory for input transformations.
    Methods:
        __call__(input, features="full", normalized=True): Extract features from input tensor. features can be "full", "flat", "frame", or "all".
        get_transform(input_size): Get the appropriate input transformation for a given size.
        pca(features, n_components=3): Apply PCA to local features and return the transformed array.    
    Example:
    """
    def __init__(self, model_name: str = "dinov2_vits14_reg", device: Optional[str] = None, verbose: bool = True):
        """Initialize DinoToolModel with specified model and device.
        
        Args:
            model_name (str): Model name or shortcut to use. Default is "dinov2_vits14_reg".
            device (str, optional): Device to use ("cuda" or "cpu"). Defaults to None, which selects "cuda" if available.
            verbose (bool): Whether to print model and device information. Default is True.
        """
        if model_name in MODEL_SHORTCUTS:
            self.model_name_shortcut = model_name
            if verbose:
                print(
                    f"Using model shortcut: {model_name} -> {MODEL_SHORTCUTS[model_name]}"
                )
            model_name = MODEL_SHORTCUTS[model_name]
        else:
            self.model_name_shortcut = None
        self.model_name = model_name

        if device is None:
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        else:
            self.device = device

        self.model = load_model(self.model_name).to(self.device)

        if verbose:
            print(f"Using model: {self.model_name} on device: {self.device}")
        
        self.extractor = ExtractorFactory.create_extractor(
            model_name=self.model_name,
            model=self.model,
            device=self.device,
        )

        self.transform_factory = data.TransformFactory(model_name=self.model_name, patch_size=self.model.patch_size)
    
    def __repr__(self) -> str:
        return f"DinoToolModel(model_name='{self.model_name}', device='{self.device}')"
    
    def __call__(self, input: torch.Tensor, features: Literal["full", "flat", "frame", "all"] = "full", normalized: bool = True) -> Union[data.LocalFeatures, torch.Tensor, Tuple[data.LocalFeatures, torch.Tensor]]:
        """Extract features from input tensor.
        Args:
            input (torch.Tensor): Input tensor of shape (B, C, H, W).
            features (str): Type of features to extract. Default is "full".
                - "full": local patch features with spatial layout (B, H, W, F).
                - "flat": local patch features flattened to (B, H*W, F).
                - "frame": global CLS token only, shape (B, F).
                - "all": both local and global in one pass; returns (LocalFeatures, cls_tensor).
            normalized (bool): Whether to return normalized features. Default is True.
        Returns:
            data.LocalFeatures: for "full" and "flat".
            torch.Tensor: for "frame" (shape B x F).
            Tuple[data.LocalFeatures, torch.Tensor]: for "all" (local, cls).
        Example:
            >>> from dinotool import DinoToolModel
            >>> from PIL import Image
            >>> model = DinoToolModel("dinov2_vits14_reg")
            >>> transform = model.get_transform((224, 224))
            >>> img = transform(Image.open("path/to/image.jpg")).unsqueeze(0)
            >>> features = model(img, features="full")
            >>> local, cls = model(img, features="all")
        """
        if features == "all":
            return self.extractor(input, return_both=True, normalized=normalized)
        if features == "frame":
            return self.extractor(input, return_clstoken=True, normalized=normalized)
        flattened = features == "flat"
        return self.extractor(input, flattened=flattened, normalized=normalized)
    
    def get_transform(self, input_size: Tuple[int, int]) -> torch.nn.Module:
        """Get the appropriate input transformation for a given size.
        Args:
            input_size (Tuple[int, int]): Desired input size (W, H).
        Returns:
            torch.nn.Module: Transformation module.
        Example:
            >>> from dinotool import DinoToolModel
            >>> from PIL import Image
            >>> model = DinoToolModel("dinov2_vits14_reg")
            >>> transform = model.get_transform((224, 224))
        """
        return self.transform_factory.get_transform(input_size)
    
    def pca(self, features: data.LocalFeatures, n_components: int = 3) -> np.ndarray:
        """Apply PCA to local features and return the transformed array.
        Args:
            features (dinotool.data.LocalFeatures): Local features to apply PCA on.
            n_components (int): Number of PCA components to retain. Default is 3.
        Returns:
            np.ndarray: PCA transformed features.
        Example:
            >>> from dinotool import DinoToolModel
            >>> from PIL import Image
            >>> model = DinoToolModel("dinov2_vits14_reg")
            >>> transform = model.get_transform((224, 224))
            >>> img = transform(Image.open("path/to/image.jpg")).unsqueeze(0)
            >>> features = model(img)
            >>> pca_features = model.pca(features, n_components=3)
        """
        pca = PCAModule(n_components=n_components,
                        feature_map_size=(features.w, features.h))
        pca.fit(features.flat().tensor, verbose=False)
        pca_array = pca.transform(features.flat().tensor, flattened=False)
        if pca_array.shape[0] == 1:
            pca_array = pca_array[0]
        return pca_array
    
    @classmethod
    def available_models(cls) -> Dict[str, str]:
        """Get available model shortcuts.
        Returns:
            Dict[str, str]: Dictionary of model shortcuts and their full names.
        Example:
            >>> from dinotool import DinoToolModel
            >>> model = DinoToolModel()
            >>> print(model.available_models)
        """
        return MODEL_SHORTCUTS

def main() -> None:
    """Main entry point."""
    try:
        parser = ArgumentParser()
        config = parser.parse()
        processor = DinotoolProcessor(config)
        processor.run()
    except KeyboardInterrupt:
        print("\nOperation cancelled by user.")
    except Exception as e:
        print(f"Error: {e}")
        raise


def cli() -> None:
    """CLI entry point."""
    main()


if __name__ == "__main__":
    main()
