"""
Sıradan kullanıcı ve demo için okunabilir metrik özeti (ölçülen değerler; uydurma çarpan yok).

Çıktı: ``build_user_friendly_report`` → ``markdown`` / ``lines`` / ``bullets``.
Motor: ``ZeroKVEngine.stats()["user_friendly"]``; CLI: ``zerokv.py --human``.
Örnek .md dosyaları: ``examples/`` (üretmek için ``python scripts/render_user_metrics_examples.py``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

_STR = {
    "tr": {
        "title": "### Özet metrikler",
        "model": "**Model:** `{model}`",
        "load": "**Yükleme:** {load}",
        "mode": "**KV modu:** {mode}",
        "speed": "**Son üretim:** {n} yeni token, {sec} s → yaklaşık **{tps} token/saniye**",
        "speed_stream_suffix": " _(akış; süre tüm parçalar okunana kadar)_",
        "speed_zero": "**Son üretim:** tamamlandı; yeni token eklenmedi (anında dur veya boş çıktı).",
        "speed_none": "**Son üretim:** henüz ölçüm yok (bir soru sorup tekrar deneyin).",
        "vram": "**GPU bellek (CUDA):** ~{mb} MB ayrılmış",
        "vram_mps": "**Apple GPU (MPS):** etkin — CUDA’daki gibi ayrıntılı VRAM sayacı yok; Activity Monitor’dan izleyebilirsiniz.",
        "ram": "**RAM (süreç):** ~{mb} MB",
        "kv_title": "**KV önbelleği (ZeroKV, son çalıştırma):**",
        "kv_mb": "• Ölçülen toplam (sıkıştırılmış + kuyruk): **~{mb} MB**",
        "kv_save": "• Aynı uzunlukta düz FP16 KV ile kıyas: teorik **~{mb_fp} MB** olsaydı, ölçülen depolama yaklaşık **{ratio}× daha küçük** (yani ~**%{save}** daha az KV alanı).",
        "kv_overhead": "• Bu koşuda sıkıştırma üst bilgi/padding yüzünden düz FP16’dan **biraz daha büyük** görünebilir; **daha uzun bağlam** veya daha büyük `head_dim` ile oran genelde iyileşir.",
        "kv_neutral": "• FP16 ile ölçülen depolama **neredeyse aynı**; kısa üretimde normal.",
        "kv_none": "**KV sıkıştırma özeti:** `zerokv` modunda bir üretim yaptığınızda burada görünür. Şu an mod: `{mode}`.",
        "caveat": "_Not: Bu sayılar bu makinede ölçülür; model ve uzunluğa göre değişir._",
    },
    "en": {
        "title": "### Summary",
        "model": "**Model:** `{model}`",
        "load": "**Load:** {load}",
        "mode": "**KV mode:** {mode}",
        "speed": "**Last run:** {n} new tokens in {sec}s → about **{tps} tokens/sec**",
        "speed_stream_suffix": " _(streaming; wall time until chunks were consumed)_",
        "speed_zero": "**Last run:** finished; no new tokens (immediate stop or empty).",
        "speed_none": "**Last run:** no timing yet — send a prompt first.",
        "vram": "**GPU memory (CUDA):** ~{mb} MB allocated",
        "vram_mps": "**Apple GPU (MPS):** active — no detailed VRAM counter like CUDA; use Activity Monitor.",
        "ram": "**Process RAM:** ~{mb} MB",
        "kv_title": "**KV cache (ZeroKV, last run):**",
        "kv_mb": "• Measured total (compressed + tail): **~{mb} MB**",
        "kv_save": "• vs plain FP16 KV at same length: if theory were **~{mb_fp} MB**, measured storage is about **{ratio}× smaller** (~**{save}%** less KV memory).",
        "kv_overhead": "• This short run can look **larger** than naive FP16 due to metadata/padding; **longer contexts** usually improve the ratio.",
        "kv_neutral": "• Measured storage is **about the same** as FP16 here — normal for tiny runs.",
        "kv_none": "**KV compression:** appears after a `zerokv` generation. Current mode: `{mode}`.",
        "caveat": "_Numbers are measured on this machine and depend on model and length._",
    },
}


def build_user_friendly_report(stats: Dict[str, Any], *, lang: str = "tr") -> Dict[str, Any]:
    """
    Üretir: `lines`, `markdown`, `bullets` — ham `stats` içinde `user_friendly` yok varsayılır.
    """
    L = _STR.get(lang, _STR["tr"])
    lines: List[str] = [L["title"]]
    lines.append(L["model"].format(model=stats.get("model_id", "?")))
    lines.append(L["load"].format(load=stats.get("load_tag", "?")))
    lines.append(L["mode"].format(mode=stats.get("kv_mode", "?")))

    last = stats.get("last_generation")
    if isinstance(last, dict):
        n = int(last.get("new_tokens", 0))
        sec = last.get("wall_seconds", 0)
        tps = float(last.get("tokens_per_second") or 0)
        if n > 0 and tps > 0:
            line = L["speed"].format(n=n, sec=sec, tps=tps)
            if last.get("streamed"):
                line += L.get("speed_stream_suffix", "")
            lines.append(line)
        elif n == 0 and sec is not None:
            lines.append(L["speed_zero"])
        else:
            lines.append(L["speed_none"])
    else:
        lines.append(L["speed_none"])

    mem = stats.get("memory") or {}
    if "vram_allocated_mb" in mem:
        lines.append(L["vram"].format(mb=mem["vram_allocated_mb"]))
    elif mem.get("mps_available"):
        lines.append(L["vram_mps"])
    if "ram_mb" in mem:
        lines.append(L["ram"].format(mb=mem["ram_mb"]))

    kv = stats.get("kv_measured_zerokv")
    if isinstance(kv, dict) and kv.get("total_stored_bytes") is not None:
        lines.append("")
        lines.append(L["kv_title"])
        stored_b = float(kv["total_stored_bytes"])
        theo_b = float(kv.get("theoretical_fp16_kv_bytes_sum_layers") or 0)
        lines.append(L["kv_mb"].format(mb=round(stored_b / (1024 * 1024), 3)))
        r = kv.get("ratio_fp16_over_stored")
        if r is not None and theo_b > 0:
            r = float(r)
            if r >= 1.15:
                save_pct = round((1 - 1 / r) * 100, 1)
                lines.append(
                    L["kv_save"].format(
                        mb_fp=round(theo_b / (1024 * 1024), 3),
                        ratio=round(r, 2),
                        save=save_pct,
                    )
                )
            elif r < 0.95:
                lines.append(L["kv_overhead"])
            else:
                lines.append(L["kv_neutral"])
    else:
        lines.append("")
        lines.append(L["kv_none"].format(mode=stats.get("kv_mode", "?")))

    lines.append("")
    lines.append(L["caveat"])

    md = "\n\n".join(lines)
    return {
        "lang": lang,
        "lines": lines,
        "markdown": md,
        "bullets": [ln for ln in lines if ln.strip() and not ln.startswith("_")],
    }
