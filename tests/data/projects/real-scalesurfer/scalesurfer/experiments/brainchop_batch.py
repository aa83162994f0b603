"""Batch launcher for BrainChop's Python API.

The upstream CLI accepts multiple inputs and a ``--batch-size`` option, but
currently calls ``segment`` separately for every input.  This experiment-side
launcher uses the public list API so ``shard_size`` is an actual subject batch.
It is run with BrainChop's own Python environment by ``segmentation.py``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from time import perf_counter

import brainchop.api as brainchop_api
from brainchop.api import Volume, load, save, segment


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--batch-size", type=int, required=True)
    parser.add_argument("--timing-json", type=Path, required=True)
    args = parser.parse_args()
    if args.batch_size < 1:
        parser.error("--batch-size must be positive")

    records = json.loads(args.manifest.read_text(encoding="utf-8"))
    if not records:
        parser.error("manifest contains no cases")
    volumes = [load(str(Path(record["input"]).resolve())) for record in records]
    native_timings: list[dict] = []
    original_run = brainchop_api._run_with_fuse_chunk

    def timed_run(model, batched, model_name, tta=False):
        started = perf_counter()
        result = original_run(model, batched, model_name, tta=tta)
        # tinygrad is lazy; realize here so the measured interval is the actual
        # native shard execution rather than only graph construction.
        result.realize()
        native_timings.append(
            {"n_subjects": int(result.shape[0]), "elapsed_sec": perf_counter() - started}
        )
        return result

    brainchop_api._run_with_fuse_chunk = timed_run
    try:
        results = segment(
            volumes,
            f"file://{args.model_dir.resolve()}",
            shard_size=min(args.batch_size, len(volumes)),
        )
    finally:
        brainchop_api._run_with_fuse_chunk = original_run
    if not isinstance(results, list) or len(results) != len(records):
        raise RuntimeError("BrainChop returned an unexpected number of batch outputs")
    for result, record in zip(results, records):
        if not isinstance(result, Volume):
            raise TypeError(f"BrainChop returned {type(result)!r}, expected Volume")
        output = Path(record["output"])
        output.parent.mkdir(parents=True, exist_ok=True)
        save(result, str(output))
    args.timing_json.parent.mkdir(parents=True, exist_ok=True)
    args.timing_json.write_text(
        json.dumps({"batches": native_timings}, indent=2) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
