"""Analytical model-complexity accounting for the segmentation benchmark.

The primary quantity is a scalar multiply-accumulate (MAC).  Counts cover
learned convolutions/linear maps and the two activation-by-activation matrix
products in self-attention.  Bias adds, normalization, nonlinearities,
interpolation, preprocessing, postprocessing, and I/O are deliberately out of
scope.  This makes the boundary independent of framework and implementation.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable


INPUT_EDGE = 256
INPUT_VOXELS = INPUT_EDGE**3


@dataclass(frozen=True)
class ComponentComplexity:
    method: str
    component: str
    parameters: int
    weight_macs_per_execution: int
    attention_macs_per_execution: int = 0
    executions_per_subject: int = 1
    parameter_bits: int = 32
    arithmetic_bits: int = 32
    unique_parameter_group: str = ""
    input_shape: str = ""
    notes: str = ""

    @property
    def macs_per_execution(self) -> int:
        return self.weight_macs_per_execution + self.attention_macs_per_execution

    @property
    def macs_per_subject(self) -> int:
        return self.macs_per_execution * self.executions_per_subject


def _conv(
    spatial: Iterable[int],
    in_channels: int,
    out_channels: int,
    kernel: int | Iterable[int],
    *,
    bias: bool = True,
    groups: int = 1,
) -> tuple[int, int]:
    spatial = tuple(int(v) for v in spatial)
    kernel = (kernel,) * len(spatial) if isinstance(kernel, int) else tuple(kernel)
    weights = out_channels * (in_channels // groups) * math.prod(kernel)
    parameters = weights + (out_channels if bias else 0)
    macs = math.prod(spatial) * weights
    return parameters, macs


def _scalesurfer_component() -> ComponentComplexity:
    """Count the FS7 TransUNet3D graph used by notebook 11."""

    channels = (12, 20, 32, 48, 64, 96)
    n_classes = 118
    parameters = 0
    weight_macs = 0

    def add_conv(spatial, cin, cout, kernel=3):
        nonlocal parameters, weight_macs
        p, m = _conv(spatial, cin, cout, kernel, bias=False)
        parameters += p
        weight_macs += m

    add_conv((256,) * 3, 1, channels[0])
    add_conv((256,) * 3, channels[0], channels[0])
    for level in range(1, len(channels)):
        spatial = (256 // 2**level,) * 3
        add_conv(spatial, channels[level - 1], channels[level])
        add_conv(spatial, channels[level], channels[level])
        add_conv(spatial, channels[level], channels[level])
    add_conv((8,) * 3, channels[-1], channels[-1])
    add_conv((8,) * 3, channels[-1], channels[-1])

    # Two affine GroupNorms in every encoder block plus the bottleneck.
    parameters += 4 * sum(channels) + 4 * channels[-1]

    sequence_length = 8**3
    embedding = channels[-1]
    transformer_depth = 2
    # Q/K/V and output projections, two FFN projections, their biases, and two
    # affine LayerNorms.  FFN width is 4E.
    transformer_parameters = (
        3 * embedding**2 + 3 * embedding
        + embedding**2 + embedding
        + embedding * (4 * embedding) + 4 * embedding
        + (4 * embedding) * embedding + embedding
        + 4 * embedding
    )
    parameters += transformer_depth * transformer_parameters
    weight_macs += transformer_depth * (
        4 * sequence_length * embedding**2
        + 8 * sequence_length * embedding**2
    )
    attention_macs = transformer_depth * 2 * sequence_length**2 * embedding

    for level in range(4, -1, -1):
        spatial = (256 // 2**level,) * 3
        cin, cout = channels[level + 1], channels[level]
        add_conv(spatial, cin, cout, kernel=1)
        add_conv(spatial, 2 * cout, cout)
        add_conv(spatial, cout, cout)
        parameters += 4 * cout

    parameters += 2 * channels[0]  # dense token LayerNorm
    classifier_parameters, classifier_macs = _conv(
        (256,) * 3, channels[0], n_classes, 1, bias=True
    )
    parameters += classifier_parameters
    weight_macs += classifier_macs
    if parameters != 2_620_554:
        raise AssertionError(f"Unexpected ScaleSurfer parameter count: {parameters}")

    return ComponentComplexity(
        method="scalesurfer",
        component="FS7 TransUNet3D",
        parameters=parameters,
        weight_macs_per_execution=weight_macs,
        attention_macs_per_execution=attention_macs,
        parameter_bits=32,
        arithmetic_bits=16,
        unique_parameter_group="scalesurfer_fs7",
        input_shape="1 x 1 x 256 x 256 x 256",
        notes="One pass; BF16 benchmark inference; FP32 checkpoint storage.",
    )


def _brainchop_component(model_json: Path | None = None) -> ComponentComplexity:
    if model_json is None:
        model_json = Path(__file__).with_name(".segmentation_tools") / (
            "brainchop-models/model24chan104cls_synth/model.json"
        )
    if not model_json.exists():
        raise FileNotFoundError(f"BrainChop model config not found: {model_json}")
    config = json.loads(model_json.read_text(encoding="utf-8"))
    parameters = 0
    weight_macs = 0
    for index, layer in enumerate(config["layers"]):
        p, m = _conv(
            (256,) * 3,
            int(layer["in_channels"]),
            int(layer["out_channels"]),
            int(layer["kernel_size"]),
            bias=bool(layer.get("bias", config.get("bias", False))),
        )
        parameters += p
        weight_macs += m
        if index < len(config["layers"]) - 1 and config.get("bnorm") and config.get("affine"):
            parameters += 2 * int(layer["out_channels"])
    return ComponentComplexity(
        method="brainchop",
        component="DKatlas MeshNet",
        parameters=parameters,
        weight_macs_per_execution=weight_macs,
        unique_parameter_group="brainchop_dkatlas",
        input_shape="1 x 1 x 256 x 256 x 256",
        notes="Fourteen full-resolution 3D convolutions; FP32 in notebook 11.",
    )


def _unet3d(
    *,
    in_channels: int,
    out_channels: int,
    base_features: int = 24,
    kernel: int = 3,
    levels: int = 5,
    skip_n_concatenations: int = 0,
) -> tuple[int, int]:
    """Mirror the Keras UNet builder embedded in FreeSurfer mri_synthseg."""

    parameters = 0
    macs = 0
    channels = in_channels
    encoder_channels: list[int] = []
    for level in range(levels):
        out = base_features * 2**level
        spatial = (INPUT_EDGE // 2**level,) * 3
        for _ in range(2):
            p, m = _conv(spatial, channels, out, kernel, bias=True)
            parameters += p
            macs += m
            channels = out
        parameters += 2 * out  # trainable gamma/beta in one BN per level
        encoder_channels.append(out)

    for decoder_level in range(levels - 1):
        source_level = levels - 2 - decoder_level
        out = base_features * 2**source_level
        spatial = (INPUT_EDGE // 2**source_level,) * 3
        if decoder_level < levels - skip_n_concatenations - 1:
            channels += encoder_channels[source_level]
        for _ in range(2):
            p, m = _conv(spatial, channels, out, kernel, bias=True)
            parameters += p
            macs += m
            channels = out
        parameters += 2 * out

    p, m = _conv((INPUT_EDGE,) * 3, channels, out_channels, 1, bias=True)
    return parameters + p, macs + m


def _synthseg_components(robust: bool) -> list[ComponentComplexity]:
    method = "synthseg_robust" if robust else "synthseg"
    components: list[ComponentComplexity] = []
    if robust:
        specs = [
            ("SynthSeg+ first UNet", dict(in_channels=1, out_channels=5), "synthseg_plus_first"),
            (
                "SynthSeg+ denoiser",
                dict(in_channels=5, out_channels=5, base_features=16, kernel=5, skip_n_concatenations=2),
                "synthseg_plus_denoiser",
            ),
            ("SynthSeg+ second UNet", dict(in_channels=6, out_channels=33), "synthseg_plus_second"),
        ]
        for name, kwargs, group in specs:
            params, macs = _unet3d(**kwargs)
            components.append(ComponentComplexity(
                method=method,
                component=name,
                parameters=params,
                weight_macs_per_execution=macs,
                unique_parameter_group=group,
                input_shape="1 x 256 x 256 x 256 x channels",
                notes="One FP32 execution.",
            ))
    else:
        params, macs = _unet3d(in_channels=1, out_channels=33)
        components.append(ComponentComplexity(
            method=method,
            component="SynthSeg segmentation UNet",
            parameters=params,
            weight_macs_per_execution=macs,
            executions_per_subject=2,
            unique_parameter_group="synthseg_segmentation",
            input_shape="1 x 256 x 256 x 256 x 1",
            notes="Same FP32 weights execute on original and left-right-flipped inputs.",
        ))

    params, macs = _unet3d(in_channels=3, out_channels=69)
    components.append(ComponentComplexity(
        method=method,
        component="SynthSeg parcellation UNet",
        parameters=params,
        weight_macs_per_execution=macs,
        unique_parameter_group=f"{method}_parcellation",
        input_shape="1 x 256 x 256 x 256 x 3",
        notes="One FP32 execution after segmentation.",
    ))
    return components


_FASTSURFER_FALLBACK = {
    "axial": (1_854_632, 54_293_550_080, 79),
    "coronal": (1_854_632, 54_293_550_080, 79),
    "sagittal": (1_852_616, 54_089_978_880, 51),
}


def _fastsurfer_probe(home: Path) -> dict[str, tuple[int, int, int]]:
    """Instantiate each exact VINN config and count Conv2d MACs for one slice."""

    python = home / ".venv/bin/python"
    if not python.exists():
        return _FASTSURFER_FALLBACK
    program = r'''
import json, sys, torch
from pathlib import Path
from FastSurferCNN.models.networks import build_model
from FastSurferCNN.utils.load_config import load_config
root = Path(sys.argv[1])
rows = {}
for plane in ("axial", "coronal", "sagittal"):
    cfg = load_config(str(root / f"FastSurferVINN_{plane}.yaml"))
    cfg.MODEL.OUT_TENSOR_WIDTH = cfg.DATA.PADDED_SIZE
    cfg.MODEL.OUT_TENSOR_HEIGHT = cfg.DATA.PADDED_SIZE
    model = build_model(cfg).eval()
    count = [0]
    def hook(module, inputs, output):
        count[0] += output.numel() * (module.in_channels // module.groups) * math.prod(module.kernel_size)
    import math
    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    with torch.inference_mode():
        model(torch.zeros(1, cfg.MODEL.NUM_CHANNELS, cfg.DATA.PADDED_SIZE, cfg.DATA.PADDED_SIZE), torch.ones(1, 2))
    for handle in handles:
        handle.remove()
    rows[plane] = [sum(p.numel() for p in model.parameters()), count[0], cfg.MODEL.NUM_CLASSES]
print(json.dumps(rows))
'''
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(
        part for part in (str(home), env.get("PYTHONPATH", "")) if part
    )
    result = subprocess.run(
        [str(python), "-c", program, str(home / "FastSurferCNN/config")],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    payload = json.loads(result.stdout.strip().splitlines()[-1])
    return {key: tuple(int(v) for v in value) for key, value in payload.items()}


def _fastsurfer_components(tool_root: Path | None = None) -> list[ComponentComplexity]:
    if tool_root is None:
        tool_root = Path(__file__).with_name(".segmentation_tools")
    home = Path(os.environ.get("FASTSURFER_HOME", tool_root / "FastSurfer"))
    rows = _fastsurfer_probe(home) if home.exists() else _FASTSURFER_FALLBACK
    output: list[ComponentComplexity] = []
    for plane in ("axial", "coronal", "sagittal"):
        parameters, slice_macs, n_classes = rows[plane]
        expected = _FASTSURFER_FALLBACK[plane]
        if (parameters, slice_macs, n_classes) != expected:
            raise AssertionError(
                f"FastSurfer {plane} graph differs from the pinned v2.5.4 baseline: "
                f"{(parameters, slice_macs, n_classes)} != {expected}"
            )
        output.append(ComponentComplexity(
            method="fastsurfer",
            component=f"VINN {plane}",
            parameters=parameters,
            weight_macs_per_execution=slice_macs,
            executions_per_subject=256,
            unique_parameter_group=f"fastsurfer_{plane}",
            input_shape="1 x 7 x 320 x 320",
            notes=f"One FP32 execution per conformed slice; {n_classes} logits.",
        ))
    return output


def component_table(*, probe_fastsurfer: bool = True):
    import pandas as pd

    fastsurfer = _fastsurfer_components() if probe_fastsurfer else [
        ComponentComplexity(
            method="fastsurfer",
            component=f"VINN {plane}",
            parameters=values[0],
            weight_macs_per_execution=values[1],
            executions_per_subject=256,
            unique_parameter_group=f"fastsurfer_{plane}",
            input_shape="1 x 7 x 320 x 320",
            notes=f"One FP32 execution per conformed slice; {values[2]} logits.",
        )
        for plane, values in _FASTSURFER_FALLBACK.items()
    ]
    components = [
        _scalesurfer_component(),
        _brainchop_component(),
        *fastsurfer,
        *_synthseg_components(False),
        *_synthseg_components(True),
    ]
    rows = []
    for component in components:
        row = asdict(component)
        row.update({
            "macs_per_execution": component.macs_per_execution,
            "macs_per_subject": component.macs_per_subject,
            "tmacs_per_subject": component.macs_per_subject / 1e12,
        })
        rows.append(row)
    return pd.DataFrame(rows)


DISPLAY_NAMES = {
    "scalesurfer": "ScaleSurfer",
    "brainchop": "BrainChop DKatlas",
    "fastsurfer": "FastSurferCNN",
    "synthseg": "SynthSeg + parc",
    "synthseg_robust": "SynthSeg+ + parc",
}


def pipeline_table(components=None):
    import pandas as pd

    if components is None:
        components = component_table()
    rows = []
    for method, frame in components.groupby("method", sort=False):
        # unique_parameter_group makes the intended deduplication explicit.
        unique = frame.drop_duplicates("unique_parameter_group")
        parameters = int(unique.parameters.sum())
        macs = int(frame.macs_per_subject.sum())
        weight_macs = int((frame.weight_macs_per_execution * frame.executions_per_subject).sum())
        attention_macs = int((frame.attention_macs_per_execution * frame.executions_per_subject).sum())
        arithmetic_bits = ", ".join(str(v) for v in sorted(frame.arithmetic_bits.unique()))
        rows.append({
            "method": method,
            "display_name": DISPLAY_NAMES[method],
            "parameters": parameters,
            "parameters_million": parameters / 1e6,
            "fp32_weight_mib": parameters * 4 / 2**20,
            "effective_weight_mib": float((unique.parameters * unique.arithmetic_bits / 8).sum() / 2**20),
            "arithmetic_bits": arithmetic_bits,
            "weight_macs": weight_macs,
            "attention_macs": attention_macs,
            "macs": macs,
            "tmacs": macs / 1e12,
            "flops_2_per_mac": 2 * macs,
            "tflops_2_per_mac": 2 * macs / 1e12,
            "input": "one 256 x 256 x 256 conformed T1",
        })
    return pd.DataFrame(rows)


def write_complexity_tables(output_root: str | Path, *, probe_fastsurfer: bool = True):
    output_root = Path(output_root)
    output_root.mkdir(parents=True, exist_ok=True)
    components = component_table(probe_fastsurfer=probe_fastsurfer)
    pipelines = pipeline_table(components)
    component_path = output_root / "model_complexity_components.tsv"
    pipeline_path = output_root / "model_complexity.tsv"
    components.to_csv(component_path, index=False, sep="\t")
    pipelines.to_csv(pipeline_path, index=False, sep="\t")
    return pipeline_path, component_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output-root", type=Path, default=Path("data/method_comparison"))
    parser.add_argument("--no-fastsurfer-probe", action="store_true")
    args = parser.parse_args()
    paths = write_complexity_tables(
        args.output_root,
        probe_fastsurfer=not args.no_fastsurfer_probe,
    )
    print("\n".join(str(path) for path in paths))


if __name__ == "__main__":
    main()
