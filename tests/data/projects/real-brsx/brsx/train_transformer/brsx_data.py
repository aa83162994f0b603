"""
brsx_data.py — Data reading + asking the user for data

Flow:
  "Do you have data?"
    Yes → ask for path → read .txt or .jsonl → return text
    No  → ask "what's the model's domain?" → (v0.1: suggestion/skeleton)

Format:
  .txt   → plain text, as-is
  .jsonl → each line is a JSON; use the "text" field if present, otherwise the whole line

Large file (above LARGE_THRESHOLD) → don't load it all into RAM, read in chunks.
"""

import os
import json
import math


LARGE_THRESHOLD = 200 * 1024 * 1024   # above 200MB counts as "large" (reasonable for testing)


# ─── Automatic vocab size based on data size ─────────────────────────
def auto_vocab_size(text_len: int) -> int:
    """
    Choose a reasonable BPE vocab size based on data size.
    A large vocab is pointless on small data (not enough repetition), valuable on large.
    Logarithmic scale: grows with data but saturates.
      ~10KB   → ~512
      ~1MB    → ~2000
      ~100MB  → ~8000
      ~1GB+   → ~16000 (ceiling 32000)
    """
    if text_len < 4096:
        return 256          # very small → only byte-level makes sense
    # log10-based scale
    mb = text_len / (1024 * 1024)
    v = int(1000 * math.log10(max(mb, 0.01) * 100 + 10))
    return max(512, min(v, 32000))


def _extract_text_from_line(line: str, ext: str) -> str:
    """Convert a line to text. For .jsonl extract the 'text' field, for .txt keep as-is."""
    line = line.rstrip("\n")
    if ext == ".jsonl":
        line = line.strip()
        if not line:
            return ""
        try:
            obj = json.loads(line)
            if isinstance(obj, dict) and "text" in obj:
                return str(obj["text"])
            if isinstance(obj, dict):
                return " ".join(str(v) for v in obj.values())
            return str(obj)
        except json.JSONDecodeError:
            return line
    return line


def stream_lines(path: str):
    """
    Read the file line by line (doesn't load it all into RAM). Yield each line's text.
    Supports .txt and .jsonl. Generator → only one line stays in RAM.
    """
    ext = os.path.splitext(path)[1].lower()
    with open(path, "r", encoding="utf-8", errors="ignore") as f:
        for line in f:
            txt = _extract_text_from_line(line, ext)
            if txt:
                yield txt


def sample_head(path: str, sample_bytes: int = 16 * 1024 * 1024) -> str:
    """
    Collect ~sample_bytes of text from the START of the file for tokenizer training.
    Reads via stream, only holds as much as the sample in RAM.
    """
    parts, total = [], 0
    for txt in stream_lines(path):
        parts.append(txt)
        total += len(txt)
        if total >= sample_bytes:
            break
    sample = "\n".join(parts)
    print(f"  Tokenizer sample: ~{len(sample)/(1024*1024):.1f}MB (from file start)")
    return sample


def file_size_mb(path: str) -> float:
    return os.path.getsize(path) / (1024 * 1024)


# ─── File reading ────────────────────────────────────────────────────
def _read_txt(path: str, max_bytes: int = None) -> str:
    """Read plain text. If max_bytes is given, read that much (large-file sampling)."""
    with open(path, 'r', encoding='utf-8', errors='ignore') as f:
        return f.read(max_bytes) if max_bytes else f.read()


def _read_jsonl(path: str, max_bytes: int = None) -> str:
    """
    Read JSONL. Each line is a JSON record.
    Use the 'text' field if present, otherwise convert the whole line to a string.
    """
    parts = []
    read = 0
    with open(path, 'r', encoding='utf-8', errors='ignore') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
                if isinstance(obj, dict) and "text" in obj:
                    txt = str(obj["text"])
                elif isinstance(obj, dict):
                    # no text → join all values
                    txt = " ".join(str(v) for v in obj.values())
                else:
                    txt = str(obj)
            except json.JSONDecodeError:
                txt = line  # if not JSON, take it as a plain line
            parts.append(txt)
            read += len(txt)
            if max_bytes and read >= max_bytes:
                break
    return "\n".join(parts)


def load_data(path: str) -> str:
    """
    Load text from the given file path. Supports .txt and .jsonl.
    For a large file it doesn't load it all, takes a sample (up to LARGE_THRESHOLD).
    """
    if not os.path.exists(path):
        raise FileNotFoundError(f"File not found: {path}")

    size = os.path.getsize(path)
    is_large = size > LARGE_THRESHOLD
    max_bytes = LARGE_THRESHOLD if is_large else None

    ext = os.path.splitext(path)[1].lower()
    if ext == ".jsonl":
        text = _read_jsonl(path, max_bytes)
    elif ext == ".txt":
        text = _read_txt(path, max_bytes)
    else:
        # unknown extension → try treating it as plain text
        text = _read_txt(path, max_bytes)

    note = ""
    if is_large:
        note = (f"  (large file: {size/(1024**2):.0f}MB → first "
                f"{LARGE_THRESHOLD/(1024**2):.0f}MB sampled)")
    print(f"  Data loaded: {len(text)/(1024**2):.2f}MB text{note}")

    if len(text) < 100:
        raise ValueError("Data too short (must be at least 100 characters).")
    return text


# ─── Asking the user ─────────────────────────────────────────────────
# Domain → HF dataset file (brsx-labs/datasets)
HF_REPO = "brsx-labs/datasets"
DOMAINS = {
    "1": ("code",  "code generation / programming (code.txt)",  "code.txt"),
    "2": ("general", "general knowledge / encyclopedic (general.txt)", "general.txt"),
    "3": ("math",  "mathematics (math.txt)",                  "math.txt"),
    "4": ("chat",  "dialogue / conversation (chat.txt)",      "chat.txt"),
}


def download_domain(domain_key: str, cache_dir: str = "brsx_data_cache") -> str:
    """
    Download the selected domain's data from brsx-labs/datasets, return the local path.
    Uses hf_hub_download (the file is cached, won't download again).
    """
    name, desc, filename = DOMAINS[domain_key]
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        print("  ! huggingface_hub not installed. Installing...")
        import subprocess, sys
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "huggingface_hub"],
                       check=True)
        from huggingface_hub import hf_hub_download

    print(f"  Downloading '{name}' data ({filename}) — the first time may take a while...")
    path = hf_hub_download(
        repo_id=HF_REPO,
        filename=filename,
        repo_type="dataset",
        cache_dir=cache_dir,
    )
    size = os.path.getsize(path)
    print(f"  ✓ downloaded: {size/(1024*1024):.1f}MB → {path}")
    return path


def ask_for_data() -> dict:
    """
    Ask the user for data.
    Returns: {"has_data": bool, "text": str|None, "domain": str|None}
    """
    print("=" * 60)
    print("  DATA")
    print("=" * 60)
    while True:
        ans = input("  Do you have training data? (y/n): ").strip().lower()
        if ans in ("y", "yes", "e", "evet"):
            has = True
            break
        if ans in ("n", "no", "h", "hayir", "hayır"):
            has = False
            break
        print("  ! Type 'y' or 'n'.")

    if has:
        while True:
            path = input("  Data file path (.txt / .jsonl): ").strip().strip('"')
            if not os.path.exists(path):
                print(f"  ! File not found: {path}. Try again.")
                continue
            ext = os.path.splitext(path)[1].lower()
            if ext not in (".txt", ".jsonl"):
                print(f"  ! Only .txt / .jsonl. Try again.")
                continue
            size = os.path.getsize(path)
            if size < 100:
                print(f"  ! File too small. Try again.")
                continue
            print(f"  Data: {size/(1024*1024):.1f}MB ({ext}) → will be read via stream")
            # Stream mode: DON'T load all data into RAM, just pass the path.
            return {"has_data": True, "text": None, "path": path, "domain": None}
    else:
        # No → pick a domain → download from HF → return path (read via stream)
        print("\n  You have no data. What should the model's domain be?")
        for k, (name, desc, fn) in DOMAINS.items():
            print(f"    {k}) {desc}")
        while True:
            sel = input("  Choice (1-4): ").strip()
            if sel in DOMAINS:
                domain = DOMAINS[sel][0]
                print(f"\n  '{domain}' domain selected.")
                try:
                    path = download_domain(sel)
                except Exception as e:
                    print(f"  ! Download error: {e}")
                    print("  ! Check your internet connection and try again.")
                    continue
                print(f"  Data: will be read via stream")
                return {"has_data": True, "text": None, "path": path, "domain": domain}
            print("  ! Pick between 1-4.")


def ask_for_tokenizer(text: str = None, path: str = None):
    """
    Ask the user for a tokenizer.
      Have one → ask for path → load
      None     → train BPE from the data. If a path is given, takes a stream sample
                 from the file start (doesn't load all data into RAM), otherwise
                 trains from the given text.
    Returns: BPETokenizer (trained/loaded)
    """
    from brsx_tokenizer import BPETokenizer

    print("=" * 60)
    print("  TOKENIZER")
    print("=" * 60)
    while True:
        ans = input("  Do you have a ready tokenizer? (y/n): ").strip().lower()
        if ans in ("y", "yes", "e", "evet"):
            has = True; break
        if ans in ("n", "no", "h", "hayir", "hayır"):
            has = False; break
        print("  ! Type 'y' or 'n'.")

    tok = BPETokenizer()
    if has:
        while True:
            tpath = input("  Tokenizer file path (.json): ").strip().strip('"')
            try:
                tok.load(tpath)
                print(f"  Tokenizer loaded | vocab={tok.vocab_size}")
                return tok
            except Exception as e:
                print(f"  ! Couldn't load: {e}. Try again.")
    else:
        # Training sample: if a path exists, take ~16MB via stream from file start (RAM-friendly)
        if path is not None:
            sample = sample_head(path, 16 * 1024 * 1024)
        else:
            sample = text if text else ""
        vsize = auto_vocab_size(len(sample))
        print(f"  No tokenizer → training from data (auto vocab={vsize})")
        tok.train(sample, vocab_size=vsize)
        return tok


if __name__ == "__main__":
    # Quick test: create sample files, read them
    print("=== brsx_data test ===\n")

    # .txt test
    with open("_test.txt", "w", encoding="utf-8") as f:
        f.write("training a model with brsx should be easy. " * 20)
    print("txt:", len(load_data("_test.txt")), "characters")

    # .jsonl test
    with open("_test.jsonl", "w", encoding="utf-8") as f:
        for i in range(20):
            f.write(json.dumps({"text": f"this is example sentence number {i} and it is for testing."}) + "\n")
    print("jsonl:", len(load_data("_test.jsonl")), "characters")

    os.remove("_test.txt")
    os.remove("_test.jsonl")
    print("\n✓ both read successfully")
