"""Dataset utilities for TinyStories: offline pre-tokenization, memmap loading, and streaming."""

from typing import Optional, Union, List
import os
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

from fiveattn.tokenizer import SmolLMTokenizer, get_tokenizer


class MemmapTokenDataset(Dataset):
    """Zero-copy memory-mapped binary token dataset (fastest for local/remote training)."""

    def __init__(self, bin_path: str, seq_len: int = 512):
        self.bin_path = bin_path
        self.seq_len = seq_len

        if not os.path.exists(bin_path):
            raise FileNotFoundError(f"Binary token file not found at: {bin_path}")

        # Load uint16 (or uint32) memmap
        self.data = np.memmap(bin_path, dtype=np.uint16, mode="r")
        self.num_chunks = max(1, len(self.data) // self.seq_len)

    def close(self):
        """Releases the memory-mapped file handle (important on Windows)."""
        if hasattr(self, "data") and self.data is not None:
            if hasattr(self.data, "_mmap") and self.data._mmap is not None:
                self.data._mmap.close()
            del self.data
            self.data = None

    def __del__(self):
        self.close()

    def __len__(self) -> int:
        return self.num_chunks

    def __getitem__(self, idx: int) -> dict[str, torch.Tensor]:
        start_idx = idx * self.seq_len
        end_idx = start_idx + self.seq_len
        chunk = torch.from_numpy(self.data[start_idx:end_idx].astype(np.int64))
        return {
            "input_ids": chunk,
            "targets": chunk,
        }


class SyntheticTokenDataset(Dataset):
    """Offline synthetic token dataset for testing without internet or downloads."""

    def __init__(self, vocab_size: int = 49152, seq_len: int = 512, num_samples: int = 500):
        self.seq_len = seq_len
        self.num_samples = num_samples
        torch.manual_seed(42)
        total_tokens = num_samples * seq_len
        self.tokens = torch.randint(0, vocab_size, (total_tokens,), dtype=torch.long)

    def __len__(self) -> int:
        return self.num_samples

    def __getitem__(self, idx: int) -> dict[str, torch.Tensor]:
        start_idx = idx * self.seq_len
        end_idx = start_idx + self.seq_len
        chunk = self.tokens[start_idx:end_idx]
        return {
            "input_ids": chunk,
            "targets": chunk,
        }


class TinyStoriesDataset(Dataset):
    """Online / parquet dataset for TinyStories."""

    VALIDATION_FILE = "data/validation-00000-of-00001-869c898b519ad725.parquet"
    TRAIN_FILE_0 = "data/train-00000-of-00004-2d5a1467fff1081b.parquet"

    def __init__(
        self,
        split: str = "validation",
        seq_len: int = 512,
        tokenizer: Optional[SmolLMTokenizer] = None,
        max_samples: Optional[int] = None,
    ):
        self.split = split
        self.seq_len = seq_len
        self.tokenizer = tokenizer or get_tokenizer()
        self.tokens = self._load_and_tokenize(max_samples)
        self.num_chunks = max(1, len(self.tokens) // self.seq_len)

    def _load_and_tokenize(self, max_samples: Optional[int]) -> torch.Tensor:
        from huggingface_hub import hf_hub_download
        import pyarrow.parquet as pq

        target_file = self.VALIDATION_FILE if self.split in ("val", "validation") else self.TRAIN_FILE_0
        file_path = hf_hub_download(
            repo_id="roneneldan/TinyStories",
            filename=target_file,
            repo_type="dataset",
        )

        table = pq.read_table(file_path)
        texts = table["text"]
        limit = min(len(texts), max_samples) if max_samples is not None else len(texts)

        all_token_ids: List[int] = []
        eos_id = self.tokenizer.eos_token_id or 0

        for i in range(limit):
            text_chunk = texts[i].as_py()
            if not text_chunk:
                continue
            ids = self.tokenizer.tokenizer.encode(text_chunk, add_special_tokens=False)
            all_token_ids.extend(ids)
            all_token_ids.append(eos_id)

        if len(all_token_ids) < self.seq_len:
            all_token_ids.extend([eos_id] * (self.seq_len - len(all_token_ids)))

        return torch.tensor(all_token_ids, dtype=torch.long)

    def __len__(self) -> int:
        return self.num_chunks

    def __getitem__(self, idx: int) -> dict[str, torch.Tensor]:
        start_idx = idx * self.seq_len
        end_idx = start_idx + self.seq_len
        chunk = self.tokens[start_idx:end_idx]
        return {
            "input_ids": chunk,
            "targets": chunk,
        }


def prepare_tinystories(
    output_dir: str = "data/tinystories",
    split: str = "train",
    max_samples: Optional[int] = None,
    tokenizer_name: str = "HuggingFaceTB/SmolLM-135M",
) -> str:
    """Pre-tokenizes TinyStories parquet from Hugging Face into memory-mapped .bin file.

    Run this CLI command on your remote server to tokenize data in advance.
    """
    from huggingface_hub import hf_hub_download
    import pyarrow.parquet as pq

    os.makedirs(output_dir, exist_ok=True)
    out_file = os.path.join(output_dir, f"{split}.bin")

    print(f"[prepare-data] Loading tokenizer '{tokenizer_name}'...")
    tokenizer = get_tokenizer(tokenizer_name)
    eos_id = tokenizer.eos_token_id or 0

    if split in ("val", "validation"):
        files = [TinyStoriesDataset.VALIDATION_FILE]
    else:
        files = [
            f"data/train-{i:05d}-of-00004-{h}.parquet"
            for i, h in [
                (0, "2d5a1467fff1081b"),
                (1, "5852b56a2bd28fd9"),
                (2, "a26307300439e943"),
                (3, "d243063613e5a057"),
            ]
        ]

    print(f"[prepare-data] Processing {len(files)} parquet file(s) for split '{split}'...")
    all_tokens = []

    for file_name in files:
        print(f"[prepare-data] Fetching {file_name}...")
        parquet_path = hf_hub_download(
            repo_id="roneneldan/TinyStories",
            filename=file_name,
            repo_type="dataset",
        )
        table = pq.read_table(parquet_path)
        texts = table["text"]
        limit = min(len(texts), max_samples) if max_samples is not None else len(texts)

        for i in range(limit):
            t = texts[i].as_py()
            if not t:
                continue
            ids = tokenizer.tokenizer.encode(t, add_special_tokens=False)
            all_tokens.extend(ids)
            all_tokens.append(eos_id)

            if (i + 1) % 50000 == 0:
                print(f"[prepare-data] Tokenized {i + 1:,} stories ({len(all_tokens):,} tokens so far)...")

        if max_samples is not None and len(all_tokens) >= max_samples:
            break

    print(f"[prepare-data] Saving {len(all_tokens):,} tokens to {out_file} (uint16 memmap)...")
    arr = np.array(all_tokens, dtype=np.uint16)
    arr.tofile(out_file)
    print(f"[prepare-data] Done! Output saved at {out_file} ({os.path.getsize(out_file) / (1024 * 1024):.2f} MB)")
    return out_file


def get_dataloader(
    data_path: Optional[str] = None,
    split: str = "validation",
    seq_len: int = 512,
    batch_size: int = 8,
    max_samples: Optional[int] = None,
    synthetic: bool = False,
    shuffle: bool = True,
    vocab_size: int = 49152,
) -> DataLoader:
    """Creates a DataLoader using memmap binary file, online parquet, or synthetic data."""
    if data_path and os.path.exists(data_path):
        dataset = MemmapTokenDataset(data_path, seq_len=seq_len)
    elif synthetic:
        dataset = SyntheticTokenDataset(
            vocab_size=vocab_size,
            seq_len=seq_len,
            num_samples=max_samples or 1000,
        )
    else:
        dataset = TinyStoriesDataset(
            split=split,
            seq_len=seq_len,
            max_samples=max_samples,
        )

    return DataLoader(
        dataset,
        batch_size=batch_size,
        shuffle=shuffle,
        drop_last=True,
    )
