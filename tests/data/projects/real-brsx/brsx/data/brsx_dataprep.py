"""
==============================================================
  brsx_dataprep.py  —  dataset preparation tool
==============================================================
Turns messy/various inputs into a clean .txt or .jsonl ready for brsx training.

Reads:  .txt (one or many)  .jsonl  .json (fixes broken ones)  .csv  .parquet
        or a FOLDER (scans all supported files inside)
Cleans: drop empty/too-short lines, drop duplicates, normalize whitespace,
        split over-long lines, fix broken encoding — each optional (asked).
Writes: .txt  (plain text, one document per line)
        .jsonl ({"text": "..."} per line)
Reports: line count, size, estimated tokens, suggested BPE vocab.

Requires: pandas + pyarrow (for .parquet/.csv). In the brsx package deps.

Run:  python brsx_dataprep.py
==============================================================
"""

import os
import sys
import json
import glob
import math
import re


SUPPORTED = (".txt", ".jsonl", ".json", ".csv", ".parquet")


# ─── Input helpers ───────────────────────────────────────────────────
def ask(msg, default=None, cast=str, hint=None):
    if hint:
        print(f"   ({hint})")
    sfx = f" [{default}]" if default is not None else ""
    while True:
        raw = input(f" > {msg}{sfx}: ").strip()
        if not raw and default is not None:
            return default
        if not raw:
            print("   Enter a value."); continue
        try:
            return cast(raw)
        except ValueError:
            print("   Invalid, try again.")


def ask_yesno(msg, default=True):
    d = "Y/n" if default else "y/N"
    while True:
        raw = input(f" > {msg} ({d}): ").strip().lower()
        if not raw:
            return default
        if raw in ("y", "yes"):
            return True
        if raw in ("n", "no"):
            return False
        print("   y or n.")


def ask_choice(title, options, hint=None):
    print(f"\n{title}")
    if hint:
        print(f"   ({hint})")
    for k, v in options.items():
        print(f"   {k}) {v}")
    while True:
        c = input(" > Choice: ").strip()
        if c in options:
            return c
        print("   Pick from the list.")


# ─── vocab suggestion (mirror of brsx_data.auto_vocab_size) ──────────
def auto_vocab_size(text_len: int) -> int:
    if text_len < 4096:
        return 256
    mb = text_len / (1024 * 1024)
    v = int(1000 * math.log10(max(mb, 0.01) * 100 + 10))
    return max(512, min(v, 32000))


# ─── Readers: each returns a list of text records (strings) ──────────
def _read_txt(path):
    with open(path, "r", encoding="utf-8", errors="ignore") as f:
        # each non-empty line is a record; keep as-is otherwise
        return [ln.rstrip("\n") for ln in f]


def _read_jsonl(path, fields=None, join_mode="merge"):
    out = []
    with open(path, "r", encoding="utf-8", errors="ignore") as f:
        for ln in f:
            ln = ln.strip()
            if not ln:
                continue
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError:
                out.append(ln)          # broken line → keep raw
                continue
            out.extend(_records_from_obj(obj, fields, join_mode))
    return out


def _read_json(path, field=None, join_mode="merge"):
    """Read a .json file. If it's broken, fall back to line-by-line recovery."""
    raw = open(path, "r", encoding="utf-8", errors="ignore").read()
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        # broken json → try to recover object-per-line (jsonl-style) or salvage
        print(f"   [!] {os.path.basename(path)} is not valid JSON — recovering line by line.")
        return _recover_broken_json(raw, field, join_mode)
    # valid json: could be a list or a dict
    if isinstance(data, list):
        out = []
        for o in data:
            out.extend(_records_from_obj(o, field, join_mode))
        return out
    if isinstance(data, dict):
        return _records_from_obj(data, field, join_mode)
    return [str(data)]


def _recover_broken_json(raw, field=None, join_mode="merge"):
    """Best-effort: pull out any {...} objects and parse them individually."""
    out = []
    for ln in raw.splitlines():
        ln = ln.strip().rstrip(",")
        if not ln or ln in ("[", "]", "{", "}"):
            continue
        try:
            obj = json.loads(ln)
            out.extend(_records_from_obj(obj, field, join_mode))
        except json.JSONDecodeError:
            if len(ln) > 2:
                out.append(ln)
    return out


def _read_csv(path, fields=None, join_mode="merge"):
    import pandas as pd
    df = pd.read_csv(path)
    return _records_from_df(df, fields, join_mode)


def _read_parquet(path, fields=None, join_mode="merge"):
    import pandas as pd
    df = pd.read_parquet(path)
    return _records_from_df(df, fields, join_mode)


def _records_from_df(df, fields, join_mode):
    """Turn selected dataframe columns into text records."""
    cols = list(df.columns)
    use = [c for c in (fields or cols) if c in cols]
    out = []
    for _, row in df.iterrows():
        rowd = {c: row[c] for c in use}
        res = _apply_fields(rowd, use, join_mode)
        if isinstance(res, list):
            out.extend(res)
        elif res:
            out.append(res)
    return out


def _records_from_obj(obj, fields, join_mode="merge"):
    """From a json/jsonl dict record, produce one or more text records based on
    the picked fields. Non-dict → single string. Falls back to auto-detect."""
    if not isinstance(obj, dict):
        return [str(obj)]
    if not fields:                      # auto-detect single best field
        return [_extract_field(obj, None)]
    res = _apply_fields(obj, fields, join_mode)
    if isinstance(res, list):
        return [r for r in res if r]
    return [res] if res else []


def _extract_field(obj, field):
    """Get text from a dict record."""
    if isinstance(obj, dict):
        if field and field in obj:
            return str(obj[field])
        # common text fields, in order
        for k in ("text", "content", "body", "message", "input"):
            if k in obj:
                return str(obj[k])
        # nothing obvious → join all values
        return " ".join(str(v) for v in obj.values())
    return str(obj)


def _pick_fields(available, source_name):
    """Show all columns/fields, let the user pick one or MORE to keep, and choose
    how multiple picks combine. Returns (fields:list, join_mode:str).
    join_mode: 'merge' = join picked fields into one record,
               'separate' = each picked field becomes its own record."""
    print(f"\n   Fields in {source_name}:")
    idx = {}
    for i, c in enumerate(available, 1):
        idx[str(i)] = c
        print(f"     {i}) {c}")
    print("   Pick the ones to KEEP: numbers or names, comma-separated (e.g. 1,3 or text,output).")
    print("   Empty = auto-detect a text field.")
    while True:
        raw = input(" > Keep: ").strip()
        if not raw:
            # auto-detect
            for guess in ("text", "content", "body", "message", "output", "instruction"):
                if guess in available:
                    print(f"   Auto-detected: '{guess}'")
                    return [guess], "merge"
            print(f"   Couldn't auto-detect. Please pick from: {available}")
            continue
        picked = []
        ok = True
        for tok in raw.split(","):
            tok = tok.strip()
            if tok in idx:                 # number
                picked.append(idx[tok])
            elif tok in available:         # name
                picked.append(tok)
            else:
                print(f"   '{tok}' is not a valid field. Options: {available}")
                ok = False
                break
        if not ok or not picked:
            continue
        # de-dup while keeping order
        seen = set(); picked = [x for x in picked if not (x in seen or seen.add(x))]
        if len(picked) == 1:
            return picked, "merge"
        # multiple → ask how to combine
        mode_key = ask_choice("How should the picked fields combine?", {
            "1": "merge  - join them into ONE record (space between)",
            "2": "separate - each field becomes its OWN record",
        })
        return picked, ("merge" if mode_key == "1" else "separate")


def _apply_fields(obj_or_row, fields, join_mode):
    """Given a dict (json record or a csv/parquet row as dict) and the picked
    fields, return either one string (merge) or a list of strings (separate)."""
    vals = []
    for fld in fields:
        if fld in obj_or_row and obj_or_row[fld] is not None:
            v = str(obj_or_row[fld]).strip()
            if v:
                vals.append(v)
    if join_mode == "separate":
        return vals                    # list → multiple records
    return " ".join(vals)              # merge → single string


def _peek_fields(path):
    """Return the list of columns (csv/parquet) or keys of the first record
    (json/jsonl), so the user can choose. Returns [] if it can't tell."""
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext in (".csv", ".parquet"):
            import pandas as pd
            df = pd.read_parquet(path) if ext == ".parquet" else pd.read_csv(path, nrows=5)
            return list(df.columns)
        if ext == ".jsonl":
            with open(path, "r", encoding="utf-8", errors="ignore") as f:
                for ln in f:
                    ln = ln.strip()
                    if not ln:
                        continue
                    obj = json.loads(ln)
                    return list(obj.keys()) if isinstance(obj, dict) else []
        if ext == ".json":
            data = json.loads(open(path, "r", encoding="utf-8", errors="ignore").read())
            if isinstance(data, list) and data and isinstance(data[0], dict):
                return list(data[0].keys())
            if isinstance(data, dict):
                return list(data.keys())
    except Exception:
        return []
    return []


def _ask_field_for_json(sample_path):
    """Ask which field to pull from json/jsonl (peek at first record)."""
    field = input(" > Which field holds the text? (Enter = auto-detect): ").strip()
    return field or None


# ─── Gather inputs ───────────────────────────────────────────────────
def collect_files(path):
    """Return a list of supported files from a file or a folder."""
    path = os.path.abspath(os.path.expanduser(path))
    if os.path.isfile(path):
        return [path]
    if os.path.isdir(path):
        files = []
        for ext in SUPPORTED:
            files.extend(glob.glob(os.path.join(path, "**", f"*{ext}"), recursive=True))
        return sorted(files)
    return []


def read_any(path, fields=None, join_mode="merge"):
    ext = os.path.splitext(path)[1].lower()
    if ext == ".txt":
        return _read_txt(path)
    if ext == ".jsonl":
        return _read_jsonl(path, fields, join_mode)
    if ext == ".json":
        return _read_json(path, fields, join_mode)
    if ext == ".csv":
        return _read_csv(path, fields, join_mode)
    if ext == ".parquet":
        return _read_parquet(path, fields, join_mode)
    return []


# ─── Cleaning ────────────────────────────────────────────────────────
def clean_records(records, drop_empty, min_len, dedup, norm_ws, max_len):
    out = []
    seen = set()
    n_empty = n_short = n_dup = n_split = 0
    for rec in records:
        if rec is None:
            continue
        text = str(rec)

        if norm_ws:
            text = re.sub(r"[ \t]+", " ", text)
            text = re.sub(r"\n{3,}", "\n\n", text)
            text = text.strip()

        if drop_empty and not text.strip():
            n_empty += 1
            continue

        if min_len and len(text) < min_len:
            n_short += 1
            continue

        # split over-long lines into chunks
        pieces = [text]
        if max_len and len(text) > max_len:
            pieces = [text[i:i + max_len] for i in range(0, len(text), max_len)]
            n_split += len(pieces) - 1

        for p in pieces:
            if dedup:
                h = hash(p)
                if h in seen:
                    n_dup += 1
                    continue
                seen.add(h)
            out.append(p)

    stats = {"empty_dropped": n_empty, "short_dropped": n_short,
             "dupes_dropped": n_dup, "long_split": n_split}
    return out, stats


# ─── Write + report ──────────────────────────────────────────────────
def write_output(records, out_path, fmt):
    with open(out_path, "w", encoding="utf-8") as f:
        if fmt == "txt":
            for r in records:
                # keep each record on one line; replace internal newlines with spaces
                f.write(r.replace("\n", " ").strip() + "\n")
        else:  # jsonl
            for r in records:
                f.write(json.dumps({"text": r}, ensure_ascii=False) + "\n")


def report(records, out_path):
    total_chars = sum(len(r) for r in records)
    approx_tokens = total_chars / 4          # rough ~4 chars/token
    size_mb = os.path.getsize(out_path) / (1024 * 1024)
    vocab = auto_vocab_size(total_chars)
    print("\n" + "=" * 60)
    print("  DATASET REPORT")
    print("=" * 60)
    print(f"  Records (lines) : {len(records):,}")
    print(f"  Characters      : {total_chars:,}")
    print(f"  Est. tokens     : ~{int(approx_tokens):,}")
    print(f"  Output size     : {size_mb:.2f} MB")
    print(f"  Suggested vocab : {vocab}  (brsx auto_vocab_size)")
    print(f"  Saved to        : {out_path}")
    print("=" * 60)
    if len(records) < 100:
        print("  [!] Very few records — training may not learn much.")
    if total_chars < 100_000:
        print("  [!] Small dataset (<100KB) — consider more data.")


# ─── main ─────────────────────────────────────────────────────────────
def main():
    print("=" * 60)
    print("        brsx Dataset Prep")
    print("=" * 60)

    src = ask("Input file or folder", hint="a .txt/.jsonl/.json/.csv/.parquet, or a folder")
    files = collect_files(src)
    if not files:
        print(f"[ERROR] No supported files found at: {src}")
        print(f"        Supported: {', '.join(SUPPORTED)}")
        sys.exit(1)
    print(f"\n   Found {len(files)} file(s):")
    for fpath in files[:10]:
        print(f"     - {os.path.basename(fpath)}")
    if len(files) > 10:
        print(f"     ... and {len(files) - 10} more")

    # For structured files (csv/parquet/json/jsonl) we peek at the FIRST such
    # file, show its fields, and let the user pick which to keep + how to combine.
    # The same choice is applied to every structured file (they should share schema).
    exts = {os.path.splitext(f)[1].lower() for f in files}
    fields, join_mode = None, "merge"
    if exts & {".json", ".jsonl", ".csv", ".parquet"}:
        print("\n--- FIELD SELECTION ---")
        first_struct = next(f for f in files
                            if os.path.splitext(f)[1].lower()
                            in {".json", ".jsonl", ".csv", ".parquet"})
        available = _peek_fields(first_struct)
        if available:
            fields, join_mode = _pick_fields(available, os.path.basename(first_struct))
        else:
            print("   (couldn't read fields — will auto-detect per record)")

    # read everything
    print("\n   Reading...")
    all_records = []
    for fpath in files:
        try:
            recs = read_any(fpath, fields=fields, join_mode=join_mode)
            all_records.extend(recs)
            print(f"     {os.path.basename(fpath)}: {len(recs)} records")
        except ImportError:
            print(f"     [!] {os.path.basename(fpath)} needs pandas/pyarrow — "
                  f"install with: pip install pandas pyarrow")
        except Exception as e:
            print(f"     [!] skipped {os.path.basename(fpath)}: {e}")
    print(f"   Total raw records: {len(all_records):,}")

    # cleaning options
    print("\n--- CLEANING (Enter = default) ---")
    drop_empty = ask_yesno("Drop empty lines?", default=True)
    dedup      = ask_yesno("Drop duplicate lines?", default=True)
    norm_ws    = ask_yesno("Normalize whitespace?", default=True)
    min_len    = ask("Drop lines shorter than N chars (0 = keep all)", default=0, cast=int)
    max_len    = ask("Split lines longer than N chars (0 = no split)", default=0, cast=int)

    records, cstats = clean_records(all_records, drop_empty, min_len, dedup, norm_ws, max_len)
    print(f"\n   After cleaning: {len(records):,} records")
    print(f"     empty dropped : {cstats['empty_dropped']}")
    print(f"     short dropped : {cstats['short_dropped']}")
    print(f"     dupes dropped : {cstats['dupes_dropped']}")
    print(f"     long split    : {cstats['long_split']}")

    if not records:
        print("[ERROR] Nothing left after cleaning. Loosen the filters.")
        sys.exit(1)

    # output
    print("\n--- OUTPUT ---")
    fmt_key = ask_choice("Output format:", {"1": "txt (plain text)", "2": "jsonl ({\"text\": ...})"})
    fmt = "txt" if fmt_key == "1" else "jsonl"
    default_out = "dataset." + fmt
    out_path = ask("Output path", default=default_out)
    out_path = os.path.abspath(os.path.expanduser(out_path))

    write_output(records, out_path, fmt)
    report(records, out_path)
    print("\nDone. Feed this file to brsx training (data path).")


if __name__ == "__main__":
    main()
