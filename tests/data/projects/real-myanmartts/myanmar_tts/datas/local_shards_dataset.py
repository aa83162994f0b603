import os, random, io
import soundfile as sf
import pyarrow.parquet as pq
import torch
import torchaudio
from torch.utils.data import IterableDataset, get_worker_info
from ..text import cleaned_text_to_sequence
from ..text.burmese import burmese_to_ipa2

def _intersperse(lst, item):
    result = [item] * (len(lst) * 2 + 1)
    result[1::2] = lst
    return result

class LocalShardsDataset(IterableDataset):
    def __init__(self, shard_paths, target_sr=44100, min_sec=0.6, max_sec=18.0):
        self.shard_paths = list(shard_paths)
        self.target_sr = target_sr
        self.min_sec = min_sec
        self.max_sec = max_sec

    def _process_sample(self, row):
        try:
            text = (row.get("clean_text") or row.get("original_text") or "").strip()
            if not text:
                return None
            a = row["audio"]
            if isinstance(a, dict) and a.get("bytes") is not None:
                data, sr = sf.read(io.BytesIO(a["bytes"]), dtype="float32")
            elif isinstance(a, dict) and a.get("array") is not None:
                import numpy as np
                data = np.asarray(a["array"], dtype="float32")
                sr = a["sampling_rate"]
            else:
                return None
            wav = torch.from_numpy(data)
            if wav.dim() > 1:
                wav = wav.mean(dim=-1)
            if sr != self.target_sr:
                wav = torchaudio.functional.resample(wav, sr, self.target_sr)
            dur = wav.numel() / self.target_sr
            if dur < self.min_sec or dur > self.max_sec:
                return None
            phones = burmese_to_ipa2(text)
            ids = cleaned_text_to_sequence(phones)
            if len(ids) < 3:
                return None
            phone = torch.tensor(_intersperse(ids, 0), dtype=torch.long)
            return wav, phone
        except Exception:
            return None

    def __iter__(self):
        info = get_worker_info()
        wid = info.id if info else 0
        nw = info.num_workers if info else 1
        my = self.shard_paths[wid::nw]
        rng = random.Random(42 + wid)
        while True:
            rng.shuffle(my)
            for path in my:
                try:
                    pf = pq.ParquetFile(path)
                    for batch in pf.iter_batches(batch_size=64):
                        d = batch.to_pydict()
                        for i in range(len(batch)):
                            row = {k: d[k][i] for k in d}
                            out = self._process_sample(row)
                            if out is not None:
                                yield out
                except Exception as e:
                    print(f"[skip] {path}: {e}")
                    continue
