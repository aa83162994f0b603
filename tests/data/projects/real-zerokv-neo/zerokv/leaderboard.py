"""
Open Benchmark Leaderboard: community-verified performance tracking.

Generates interactive HTML reports and JSON data for the ZeroKV benchmark
leaderboard. Supports multiple models, configurations, and hardware targets.

Usage:
    from zerokv.leaderboard import BenchmarkLeaderboard

    lb = BenchmarkLeaderboard()
    lb.add_result("Qwen2.5-7B", "M4 Pro", {"compression_ratio": 4.2, "ppl_delta": 0.3})
    lb.save_leaderboard("results/leaderboard.json")
    lb.render_html("results/leaderboard.html")
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Dict, List, Optional


@dataclass
class BenchmarkResult:
    """A single benchmark entry in the leaderboard."""
    model_id: str
    hardware: str
    config: Dict[str, Any]
    compression_ratio: float
    ppl_delta: float
    throughput_tps: float
    memory_mb: float
    timestamp: str = ""
    commit_sha: str = ""
    zerokv_version: str = "3.0.0"
    tags: List[str] = field(default_factory=list)

    def __post_init__(self):
        if not self.timestamp:
            self.timestamp = datetime.now().isoformat()

    @property
    def quality_gate(self) -> str:
        if self.ppl_delta < 0.5:
            return "PASS"
        elif self.ppl_delta < 1.5:
            return "REVIEW"
        return "FAIL"

    @property
    def score(self) -> float:
        """Composite score: higher is better."""
        q = max(0, 1.0 - self.ppl_delta / 5.0)
        c = min(self.compression_ratio / 10.0, 1.0)
        t = min(self.throughput_tps / 100.0, 1.0)
        return (q * 0.5 + c * 0.3 + t * 0.2) * 100


class BenchmarkLeaderboard:
    """Manages and renders the ZeroKV benchmark leaderboard."""

    def __init__(self, data_path: Optional[str] = None):
        self.results: List[BenchmarkResult] = []
        if data_path and os.path.exists(data_path):
            self.load(data_path)

    def add_result(
        self,
        model_id: str,
        hardware: str,
        metrics: Dict[str, Any],
        config: Optional[Dict[str, Any]] = None,
        commit_sha: str = "",
        tags: Optional[List[str]] = None,
    ) -> BenchmarkResult:
        result = BenchmarkResult(
            model_id=model_id,
            hardware=hardware,
            config=config or {},
            compression_ratio=metrics.get("compression_ratio", 1.0),
            ppl_delta=metrics.get("ppl_delta", 0.0),
            throughput_tps=metrics.get("throughput_tps", 0.0),
            memory_mb=metrics.get("memory_mb", 0.0),
            commit_sha=commit_sha,
            tags=tags or [],
        )
        self.results.append(result)
        return result

    def get_top_results(
        self,
        model_id: Optional[str] = None,
        hardware: Optional[str] = None,
        min_quality: str = "REVIEW",
        limit: int = 50,
    ) -> List[BenchmarkResult]:
        results = self.results
        if model_id:
            results = [r for r in results if model_id.lower() in r.model_id.lower()]
        if hardware:
            results = [r for r in results if hardware.lower() in r.hardware.lower()]

        quality_order = {"PASS": 0, "REVIEW": 1, "FAIL": 2}
        min_order = quality_order.get(min_quality, 2)
        results = [r for r in results if quality_order.get(r.quality_gate, 2) <= min_order]

        results.sort(key=lambda r: -r.score)
        return results[:limit]

    def get_summary(self) -> Dict[str, Any]:
        if not self.results:
            return {"total_results": 0}

        scores = [r.score for r in self.results]
        ratios = [r.compression_ratio for r in self.results]
        ppl_deltas = [r.ppl_delta for r in self.results]

        models = set(r.model_id for r in self.results)
        hardware = set(r.hardware for r in self.results)

        return {
            "total_results": len(self.results),
            "unique_models": len(models),
            "unique_hardware": len(hardware),
            "avg_score": round(sum(scores) / len(scores), 2),
            "max_score": round(max(scores), 2),
            "avg_compression_ratio": round(sum(ratios) / len(ratios), 2),
            "avg_ppl_delta": round(sum(ppl_deltas) / len(ppl_deltas), 3),
            "models": sorted(models),
            "hardware": sorted(hardware),
        }

    def save(self, path: str) -> None:
        os.makedirs(os.path.dirname(path) if os.path.dirname(path) else ".", exist_ok=True)
        data = {
            "version": "3.0.0",
            "generated_at": datetime.now().isoformat(),
            "summary": self.get_summary(),
            "results": [asdict(r) for r in self.results],
        }
        with open(path, "w") as f:
            json.dump(data, f, indent=2)

    def load(self, path: str) -> int:
        with open(path, "r") as f:
            data = json.load(f)
        self.results = [BenchmarkResult(**r) for r in data.get("results", [])]
        return len(self.results)

    def render_html(self, output_path: str) -> str:
        summary = self.get_summary()
        top_results = self.get_top_results(limit=20)

        rows = ""
        for i, r in enumerate(top_results, 1):
            gate_color = {"PASS": "#22c55e", "REVIEW": "#f59e0b", "FAIL": "#ef4444"}[r.quality_gate]
            rows += f"""<tr>
                <td>{i}</td>
                <td><code>{r.model_id}</code></td>
                <td>{r.hardware}</td>
                <td>{r.compression_ratio:.1f}x</td>
                <td>{r.ppl_delta:.3f}</td>
                <td>{r.throughput_tps:.1f}</td>
                <td>{r.memory_mb:.0f}</td>
                <td><span style="color:{gate_color};font-weight:bold">{r.quality_gate}</span></td>
                <td>{r.score:.1f}</td>
                <td><small>{r.zerokv_version}</small></td>
            </tr>"""

        html = f"""<!DOCTYPE html>
<html lang="en">
<head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <title>ZeroKV-Neo Benchmark Leaderboard</title>
    <style>
        * {{ margin: 0; padding: 0; box-sizing: border-box; }}
        body {{ font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, sans-serif; background: #0f172a; color: #e2e8f0; padding: 2rem; }}
        .container {{ max-width: 1400px; margin: 0 auto; }}
        h1 {{ font-size: 2rem; margin-bottom: 0.5rem; background: linear-gradient(135deg, #6366f1, #8b5cf6); -webkit-background-clip: text; -webkit-text-fill-color: transparent; }}
        .subtitle {{ color: #94a3b8; margin-bottom: 2rem; }}
        .stats {{ display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 1rem; margin-bottom: 2rem; }}
        .stat {{ background: #1e293b; border-radius: 12px; padding: 1.5rem; text-align: center; }}
        .stat-value {{ font-size: 2rem; font-weight: bold; color: #818cf8; }}
        .stat-label {{ color: #94a3b8; font-size: 0.875rem; margin-top: 0.25rem; }}
        table {{ width: 100%; border-collapse: collapse; background: #1e293b; border-radius: 12px; overflow: hidden; }}
        th {{ background: #334155; padding: 1rem; text-align: left; font-weight: 600; color: #cbd5e1; }}
        td {{ padding: 0.75rem 1rem; border-bottom: 1px solid #334155; }}
        tr:hover {{ background: #2d3a4f; }}
        code {{ background: #334155; padding: 2px 6px; border-radius: 4px; font-size: 0.85rem; }}
        .footer {{ margin-top: 2rem; text-align: center; color: #64748b; font-size: 0.875rem; }}
    </style>
</head>
<body>
    <div class="container">
        <h1>ZeroKV-Neo Benchmark Leaderboard</h1>
        <p class="subtitle">Community-verified KV cache compression performance | Generated {datetime.now().strftime("%Y-%m-%d %H:%M")}</p>

        <div class="stats">
            <div class="stat">
                <div class="stat-value">{summary.get('total_results', 0)}</div>
                <div class="stat-label">Total Results</div>
            </div>
            <div class="stat">
                <div class="stat-value">{summary.get('unique_models', 0)}</div>
                <div class="stat-label">Models Tested</div>
            </div>
            <div class="stat">
                <div class="stat-value">{summary.get('avg_compression_ratio', 0):.1f}x</div>
                <div class="stat-label">Avg Compression</div>
            </div>
            <div class="stat">
                <div class="stat-value">{summary.get('avg_ppl_delta', 0):.3f}</div>
                <div class="stat-label">Avg PPL Delta</div>
            </div>
            <div class="stat">
                <div class="stat-value">{summary.get('max_score', 0):.1f}</div>
                <div class="stat-label">Best Score</div>
            </div>
        </div>

        <table>
            <thead>
                <tr>
                    <th>#</th>
                    <th>Model</th>
                    <th>Hardware</th>
                    <th>Ratio</th>
                    <th>PPL Δ</th>
                    <th>TPS</th>
                    <th>Memory</th>
                    <th>Gate</th>
                    <th>Score</th>
                    <th>Version</th>
                </tr>
            </thead>
            <tbody>
                {rows}
            </tbody>
        </table>

        <div class="footer">
            <p>ZeroKV-Neo v3.0.0 | MIT License | <a href="https://github.com/zerokv-neo/zerokv-lab" style="color:#818cf8">GitHub</a></p>
        </div>
    </div>
</body>
</html>"""

        os.makedirs(os.path.dirname(output_path) if os.path.dirname(output_path) else ".", exist_ok=True)
        with open(output_path, "w") as f:
            f.write(html)

        return output_path
