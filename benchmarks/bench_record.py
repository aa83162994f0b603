"""Overhead of ``envsnap.record`` and ``envsnap.verify`` on a small transformer, as ratios to a plain forward.

Baseline: the same 2-layer encoder (d_model 256, batch 16 × 64 tokens, training-mode forward,
dropout 0: the eval fast path would run each layer as one fused op and hide the modules), same
input, no envsnap, timed in this same run. Measured, per forward, everything the block costs:
hooks, stats of every module output, the guard's op accounting, and writing the bundle
(``measure=False``, ``environment="none"``: the replays for noise/timing and the probes are
separate, opt-out costs, reported on their own line):

- record, stats only (``keep=0``: the final output is still kept in full);
- record, keeping every tensor (``keep="1GB"``);
- verify against the kept bundle (every output compared in full).

Also the bundle size per million activation elements (stats-only and kept), and the cost of the
default replays (``measure=True``). CPU time of this process (``time.process_time``), one torch
thread, rounds interleaved, median and minimum reported (see bench_guard.py for why).

Then the overhead target of issue 23: ``envsnap.record`` with *every default* (environment probes
once per process, on a worker thread overlapping the first block; the guard on the block;
keep="64MB"; two timing samples: the block's own forward less the hooks' time when the first
replay, also the noise check, agrees with it, else two replays) on a ~27M-parameter GPT-style
decoder, wall clock against a plain forward in the same run (target: ≤ 3×), next to keep="256MB",
stats only, and no replays, the process's first record (probes not cached), and with the float64
golden (``golden="cpu-fp64"``), a bare float64 forward of the model (what any fp64 golden of the
outputs costs at least on the recording side), and the golden verify makes by default when a float32
value fails (CPU float32 and float64 copies of the model, one replay each: none of it on record's side).

Usage: python benchmarks/bench_record.py [--rounds R]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import envsnap  # noqa: E402
from envsnap.inprocess.bundle.check import check_bundle  # noqa: E402

BATCH, SEQ, D_MODEL, HEADS, LAYERS = 16, 64, 256, 4, 2


def _model() -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(
        D_MODEL, HEADS, dim_feedforward=4 * D_MODEL, dropout=0.0, batch_first=True
    )
    return nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False).train()


def _cpu_seconds(run: Callable[[], None]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    model = _model()
    x = torch.randn(BATCH, SEQ, D_MODEL, generator=torch.Generator().manual_seed(1))
    folder = Path(tempfile.mkdtemp(prefix="bench-record-"))
    stats_only, kept = folder / "stats", folder / "kept"
    common = {"environment": "none", "measure": False}

    def plain() -> None:
        model(x)

    def record(path: Path, keep: str | int) -> Callable[[], None]:
        def run() -> None:
            with envsnap.record(path, model=model, keep=keep, **common):  # type: ignore[arg-type]
                model(x)

        return run

    def verify() -> None:
        with envsnap.verify(kept, model=model, slow=None, **common) as v:  # type: ignore[arg-type]
            model(v.inputs)

    runs = {
        "plain forward": plain,
        "record, stats only": record(stats_only, 0),
        "record, all tensors kept": record(kept, "1GB"),
        "verify (full tensors)": verify,
    }
    plain()
    record(kept, "1GB")()  # warm-up, and the bundle verify reads
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            times[name].append(_cpu_seconds(run))
    base = statistics.median(times["plain forward"])
    print(
        f"model: {LAYERS}-layer TransformerEncoder d={D_MODEL}, batch {BATCH}×{SEQ}, "
        "train-mode forward, 1 thread"
    )
    print(f"{'':28}{'median':>10}{'min':>10}{'ratio':>8}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:28}{median * 1e3:>8.1f}ms{min(values) * 1e3:>8.1f}ms{median / base:>7.2f}×")
    manifest = check_bundle(kept).manifest
    elements = sum(leaf.stats.numel for call in manifest.calls for leaf in call.outputs)
    per_million = 1e6 / elements
    print(f"activations recorded: {len(manifest.calls)} module calls, {elements / 1e6:.2f} M elements")
    print(
        f"bundle size per M activation elements: stats only {_size(stats_only) * per_million / 1e6:.3f} MB, "
        f"kept {_size(kept) * per_million / 1e6:.3f} MB"
    )
    replay = folder / "replay"
    measured = _cpu_seconds(lambda: _record_measured(model, x, replay))
    print(
        f"record with the default replays (grad enabled: the block's forward is no timing sample, "
        f"2 timed replays, the first also the noise check): "
        f"{measured / base:.1f}× one plain forward"
    )
    shutil.rmtree(folder, ignore_errors=True)


def _record_measured(model: nn.Module, x: torch.Tensor, path: Path) -> None:
    with envsnap.record(path, model=model, keep=0, environment="none"):
        model(x)


GPT_VOCAB, GPT_WIDTH, GPT_HEADS, GPT_LAYERS, GPT_BATCH, GPT_SEQ = 8192, 512, 8, 6, 4, 256


class _GPT(nn.Module):
    """A GPT-style decoder of ~27M parameters: embeddings, 6 causal pre-LN layers, an LM head."""

    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(GPT_VOCAB, GPT_WIDTH)
        self.wpe = nn.Embedding(GPT_SEQ, GPT_WIDTH)
        layer = nn.TransformerEncoderLayer(
            GPT_WIDTH, GPT_HEADS, 4 * GPT_WIDTH, dropout=0.0, batch_first=True, norm_first=True
        )
        self.h = nn.TransformerEncoder(layer, GPT_LAYERS, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(GPT_WIDTH)
        self.lm_head = nn.Linear(GPT_WIDTH, GPT_VOCAB, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        mask = nn.Transformer.generate_square_subsequent_mask(idx.shape[1])
        out: torch.Tensor = self.lm_head(self.ln_f(self.h(x, mask=mask, is_causal=True)))
        return out


def _wall(run: Callable[[], None]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def defaults_at_25m(rounds: int) -> None:
    """``envsnap.record`` with every default (environment="full", keep="64MB", measure=True)
    against a plain forward of a ~27M-parameter GPT, wall clock, at the thread count set by the caller."""
    import copy

    from envsnap.inprocess.bundle.check import check_bundle as check

    torch.manual_seed(0)
    model = _GPT().train()  # dropout 0; train mode keeps the modules visible (no fused eval fast path)
    idx = torch.randint(0, GPT_VOCAB, (GPT_BATCH, GPT_SEQ), generator=torch.Generator().manual_seed(1))
    params = sum(p.numel() for p in model.parameters())
    folder = Path(tempfile.mkdtemp(prefix="bench-record-25m-"))
    block_samples: list[int] = []

    def plain() -> None:
        with torch.no_grad():
            model(idx)

    def record(**options: object) -> Callable[[], None]:
        def run() -> None:
            with torch.no_grad(), envsnap.record(folder / "b", model=model, **options):  # type: ignore[arg-type]
                model(idx)

        return run

    def fp64_forward() -> None:
        """The least a float64 golden of the outputs costs: a float64 copy of the model, one forward."""
        with torch.no_grad():
            copy.deepcopy(model).to(torch.float64)(idx)

    def verify_golden() -> None:
        """What verify adds when a float32 value fails: the model copied to the CPU in float32 and
        float64, the recorded call replayed on each (verify/golden.py); nothing on record's side."""
        from envsnap.inprocess.verify.golden import replay

        replay(model, [((idx,), {})], {}, None, None)

    runs = {
        "plain forward": plain,
        "record, defaults": record(),
        "record, defaults but keep=256MB": record(keep="256MB"),
        "record, defaults + golden='cpu-fp64'": record(golden="cpu-fp64"),
        "record, defaults but environment='none'": record(environment="none"),
        "record, block only (measure=False, 'none')": record(measure=False, environment="none"),
        "  the same, keep=0": record(measure=False, environment="none", keep=0),
        "float64 copy + forward (no envsnap)": fp64_forward,
        "verify-side golden (when a value fails)": verify_golden,
    }
    plain()
    first = _wall(record())  # the process's first record: its probes run (beside the block, given 2+ CPUs)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            times[name].append(_wall(run))
            if name == "record, defaults":  # read back untimed: did the block's forward count?
                measurements = check(folder / "b").manifest.measurements
                timing = measurements.timing if measurements is not None else None
                block_samples.append(getattr(timing, "block_samples", 0) if timing is not None else -1)
    base = min(times["plain forward"])
    print(
        f"\nmodel: GPT-style decoder, {params / 1e6:.1f} M parameters, batch {GPT_BATCH}×{GPT_SEQ} tokens, "
        f"{torch.get_num_threads()} threads, wall clock, {rounds} rounds interleaved"
    )
    print(f"{'':42}{'median':>10}{'min':>10}{'min ratio':>11}  ratio of each round")
    for name, values in times.items():
        print(
            f"{name:42}{statistics.median(values) * 1e3:>8.0f}ms{min(values) * 1e3:>8.0f}ms"
            f"{min(values) / base:>10.2f}×  {' '.join(f'{v / base:.2f}' for v in values)}"
        )
    defaults = times["record, defaults"]
    medians = statistics.median(defaults) / statistics.median(times["plain forward"])
    print(
        f"default overhead (issue 23 target ≤ 3×): {min(defaults) / base:.2f}× the plain forward "
        f"(fastest of {rounds} each; medians {medians:.2f}×); "
        f"the block's own forward counted as a timing sample in {sum(b == 1 for b in block_samples)} of "
        f"{len(block_samples)} default records"
    )
    print(f"the process's first record (probes not yet cached): {first / base:.2f}×")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
    defaults_at_25m(5)
