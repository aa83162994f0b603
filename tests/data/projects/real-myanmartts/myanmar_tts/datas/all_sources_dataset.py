import os, random, io, glob, tarfile
import pyarrow.parquet as pq
import soundfile as sf
import torch
import torchaudio
from torch.utils.data import IterableDataset, get_worker_info

from ..config import MelConfig
from ..text import cleaned_text_to_sequence
from ..text.burmese import burmese_to_ipa2


def _intersperse(lst, item):
    r = [item] * (len(lst) * 2 + 1)
    r[1::2] = lst
    return r


SCRATCH = "/mnt/local-scratch"

SOURCES = [
    ("parquet", "/content/shards/data/run*/shard-*.parquet",          "clean_text",     1.0),
    ("parquet", f"{SCRATCH}/data_all/95k/data/run*/shard-*.parquet",  "original_text",  1.0),
    ("parquet", f"{SCRATCH}/data_all/bible/data/train-*.parquet",     "transcript_char",1.0),
    ("parquet", f"{SCRATCH}/data_all/6k/data/shard-*.parquet",        "original_text",  1.0),
    ("parquet", f"{SCRATCH}/data_all/qtext/data/train-*.parquet",     "original_field", 0.5),
    ("parquet", f"{SCRATCH}/data_all/synth_mix/data/train-*.parquet", "meta_words",     0.5),
    ("parquet", f"{SCRATCH}/data_all/synth_6pr/data/train-*.parquet", "meta_words",     0.5),
    ("parquet", f"{SCRATCH}/data_all/synth_6p/data/train-*.parquet",  "meta_words",     0.5),
    ("parquet", f"{SCRATCH}/data_all/synth_vox/data/train-*.parquet", "myanmar_text",   0.5),
    ("tar",     f"{SCRATCH}/data_all/1m/audio_tars/*.tar",            "csv",            1.0),
]


class AllSourcesDataset(IterableDataset):
    def __init__(self, sources=SOURCES, target_sr=None, min_sec=0.5, max_sec=11.0):
        self.target_sr = target_sr or MelConfig().sample_rate
        self.min_sec = min_sec
        self.max_sec = max_sec

        self.entries = []
        for kind, pattern, field, weight in sources:
            paths = sorted(glob.glob(pattern))
            for p in paths:
                self.entries.append((kind, p, field, weight))
        print(f"[AllSources] {len(self.entries)} shards across {len(sources)} sources | target_sr={self.target_sr}")

        self.tar_meta = {}
        csv_path = f"{SCRATCH}/data_all/1m/train_1m_combined_24k.csv"
        if os.path.exists(csv_path):
            print("[AllSources] parsing CSV...")
            with open(csv_path, "r", encoding="utf-8") as f:
                next(f, None)
                for line in f:
                    parts = line.rstrip("\n").split("|", 1)
                    if len(parts) == 2:
                        fname = os.path.basename(parts[0])
                        self.tar_meta[fname] = parts[1].strip()
            print(f"[AllSources] indexed {len(self.tar_meta)} CSV entries")

    def _get_text(self, t):
        if t is None:
            return ""
        if isinstance(t, list):
            return " ".join(str(x) for x in t if x).strip()
        return str(t).strip()

    def _to_wav_phone(self, wav_bytes, text, given_sr=None):
        try:
            if not text:
                return None
            data, sr = sf.read(io.BytesIO(wav_bytes), dtype="float32")
            if data.size == 0:
                return None
            wav = torch.from_numpy(data)
            if wav.dim() > 1:
                wav = wav.mean(dim=-1)
            if wav.abs().max().item() < 0.001:
                return None

            actual_sr = given_sr or sr
            if actual_sr != self.target_sr:
                wav = torchaudio.functional.resample(wav, actual_sr, self.target_sr)

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

    def _iter_parquet(self, path, field):
        try:
            pf = pq.ParquetFile(path)
            for batch in pf.iter_batches(batch_size=64):
                d = batch.to_pydict()
                for i in range(len(batch)):
                    text = self._get_text(d[field][i])
                    if not text:
                        continue
                    a = d["audio"][i]
                    if not isinstance(a, dict):
                        continue
                    if a.get("bytes") is not None:
                        out = self._to_wav_phone(a["bytes"], text)
                    elif a.get("array") is not None:
                        arr = a["array"]
                        sr = a["sampling_rate"]
                        bio = io.BytesIO()
                        sf.write(bio, arr, sr, format="WAV")
                        out = self._to_wav_phone(bio.getvalue(), text, given_sr=sr)
                    else:
                        continue
                    if out is not None:
                        yield out
        except Exception as e:
            print(f"[skip parquet] {path}: {e}")
            return

    def _iter_tar(self, path):
        try:
            with tarfile.open(path, "r:") as tf:  # seekable mode (not stream)
                for member in tf:
                    if not member.name.endswith(".wav"):
                        continue
                    fname = os.path.basename(member.name)
                    text = self.tar_meta.get(fname)
                    if not text:
                        continue
                    f = tf.extractfile(member)
                    if f is None:
                        continue
                    out = self._to_wav_phone(f.read(), text)
                    if out is not None:
                        yield out
        except Exception as e:
            print(f"[skip tar] {path}: {e}")
            return

    def __iter__(self):
        info = get_worker_info()
        wid = info.id if info else 0
        nw = info.num_workers if info else 1
        my = self.entries[wid::nw]
        rng = random.Random(42 + wid)
        while True:
            rng.shuffle(my)
            for kind, path, field, weight in my:
                if weight < 1.0 and rng.random() > weight:
                    continue
                if kind == "parquet":
                    yield from self._iter_parquet(path, field)
                else:
                    yield from self._iter_tar(path)
