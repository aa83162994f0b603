from __future__ import annotations
import csv
from pathlib import Path
import pandas as pd
import torch
from torch.utils.data import DataLoader, Subset
from .core import *


def _sequence_split(records, val_fraction, seed):
    sequences = sorted({r["sequence"] for r in records})
    order = torch.randperm(len(sequences), generator=torch.Generator().manual_seed(seed)).tolist()
    n_val = max(1, int(len(sequences) * val_fraction))
    val_sequences = {sequences[i] for i in order[:n_val]}
    val_idx = [i for i, r in enumerate(records) if r["sequence"] in val_sequences]
    train_idx = [i for i, r in enumerate(records) if r["sequence"] not in val_sequences]
    return train_idx, val_idx


def train(data_path, output_dir, cfg: Config, resume=None):
    seed_all(cfg.seed); out = Path(output_dir); out.mkdir(parents=True, exist_ok=True)
    records = torch.load(data_path, weights_only=False); tr, va = _sequence_split(records, cfg.val_fraction, cfg.seed)
    train_loader = DataLoader(Subset(SpectrumDataset(records), tr), batch_size=cfg.batch_size, shuffle=True, num_workers=cfg.num_workers, collate_fn=collate, pin_memory=True)
    val_loader = DataLoader(Subset(SpectrumDataset(records), va), batch_size=cfg.batch_size, shuffle=False, num_workers=cfg.num_workers, collate_fn=collate, pin_memory=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu"); model = SpectrumTransformer(cfg).to(device)
    if resume: model.load_state_dict(torch.load(resume, map_location=device, weights_only=False)["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda"); best = -1.0; history = []
    for epoch in range(1, cfg.epochs + 1):
        model.train(); total = count = 0
        for aa, mods, charge, pad, target, channel_mask in train_loader:
            aa, mods, charge, pad, target, channel_mask = [x.to(device, non_blocking=True) for x in (aa, mods, charge, pad, target, channel_mask)]
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
                pred = model(aa, mods, charge, pad); loss = torch.nn.functional.mse_loss(pred[channel_mask], target[channel_mask])
            scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); total += loss.item() * aa.size(0); count += aa.size(0)
        model.eval(); angles = []
        with torch.no_grad():
            for aa, mods, charge, pad, target, channel_mask in val_loader:
                aa, mods, charge, pad, target, channel_mask = [x.to(device, non_blocking=True) for x in (aa, mods, charge, pad, target, channel_mask)]
                pred = model(aa, mods, charge, pad).masked_fill(~channel_mask, 0.0)
                angles.extend(spectral_angle(pred, target, channel_mask.any(dim=-1)).float().cpu().tolist())
        val_angle = float(sum(angles) / max(1, len(angles)))
        row = {"epoch": epoch, "train_mse": total / max(1, count), "val_spectral_angle": val_angle}; history.append(row); print(row, flush=True)
        save_checkpoint(out / "last.pt", model, cfg, row)
        if val_angle > best: best = val_angle; save_checkpoint(out / "best.pt", model, cfg, row)
        with (out / "history.tsv").open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=row, delimiter="\t"); writer.writeheader(); writer.writerows(history)
    return {"best_val_spectral_angle": best, "device": str(device), "train_psms": len(tr), "val_psms": len(va), "split": "unique_sequence"}


def fragment_mz(sequence, mod_mass):
    residue = [AA_MASS[a] + float(mod_mass[i]) for i, a in enumerate(sequence)]; out = {}
    for cut in range(len(sequence) - 1):
        bmass = sum(residue[:cut + 1]); ymass = sum(residue[cut + 1:]) + H2O
        for series, mass, ordinal in (("b", bmass, cut + 1), ("y", ymass, len(sequence) - cut - 1)):
            for z in (1, 2):
                for loss, delta in (("", 0.0), ("-H2O", H2O), ("-NH3", NH3)):
                    label = f"{series}{ordinal}" + (f"({z}+)" if z > 1 else "") + loss
                    out[(cut, ION_TO_ID[f"{series}{z}{loss}"])] = (label, (mass - delta + z * PROTON) / z)
    return out


def predict_file(checkpoint, input_tsv, output_tsv, batch_size=512):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu"); model, cfg, _ = load_checkpoint(checkpoint, device)
    df = pd.read_csv(input_tsv, sep="\t"); seq_col = "Sequence" if "Sequence" in df else "sequence"; charge_col = "Charge" if "Charge" in df else "charge"; mod_col = "Modified sequence" if "Modified sequence" in df else None
    records = []
    for i, row in df.iterrows():
        seq = clean_sequence(row[seq_col]); modified = row[mod_col] if mod_col else seq
        if 2 <= len(seq) <= cfg.max_len and all(a in AA_TO_ID for a in seq):
            charge = min(max(int(row.get(charge_col, 2)), 1), 8)
            records.append({"sequence": seq, "modified_sequence": str(modified), "charge": charge, "mod_mass": modification_vector(seq, modified), "valid": fragment_validity_mask(seq, charge), "row_id": i})
    loader = DataLoader(SpectrumDataset(records), batch_size=batch_size, shuffle=False, collate_fn=collate); output = []; cursor = 0
    with torch.no_grad():
        for aa, mods, charge, pad, _, channel_mask in loader:
            pred = model(aa.to(device), mods.to(device), charge.to(device), pad.to(device)).float().cpu().masked_fill(~channel_mask, 0.0)
            for j in range(len(aa)):
                r = records[cursor]; n = len(r["sequence"]); valid = r["valid"]; mzmap = fragment_mz(r["sequence"], r["mod_mass"])
                values = pred[j, :n - 1][torch.as_tensor(valid)]; scale = float(values.max()) if values.numel() else 1.0; scale = scale if scale > 0 else 1.0
                for cut in range(n - 1):
                    for chan in range(len(ION_TYPES)):
                        if not valid[cut, chan]: continue
                        label, mz = mzmap[(cut, chan)]; output.append((r["row_id"], r["sequence"], r["charge"], label, mz, float(pred[j, cut, chan]) / scale))
                cursor += 1
    Path(output_tsv).parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(output, columns=["row_id", "sequence", "precursor_charge", "fragment", "mz", "predicted_intensity"]).to_csv(output_tsv, sep="\t", index=False)
    return {"peptides": len(records), "fragments": len(output), "device": str(device), "chemistry_masked": True, "max_normalized": True}
