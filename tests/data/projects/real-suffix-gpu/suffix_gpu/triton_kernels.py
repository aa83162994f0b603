"""Fused Triton kernels for the draft hot path (CUDA only).

Each kernel replaces a long chain of small torch ops with one launch:

- match_back: the rolling-AND suffix comparison over pattern offsets
  (local matcher rows and the shared delta buffer).
- sa_search: the full merged lower/upper-bound binary search over the
  suffix array, one thread-row per (bound, pattern) pair.
- expand_chain: the depth-wise majority-vote chain expansion with
  fused arctic-style scoring.
- first_occurrences: earliest match positions per backoff candidate,
  an early-exit scan that replaces a batched topk.

All entry points have pure-torch fallbacks in their call sites; these
paths require CUDA tensors and are exercised by the same oracle tests
via the device fixture.
"""

from __future__ import annotations

import math

import torch

try:
    import triton
    import triton.language as tl
    HAS_TRITON = True
except ImportError:  # pragma: no cover - CPU-only environments
    HAS_TRITON = False


def available(*tensors: torch.Tensor) -> bool:
    return HAS_TRITON and all(t.is_cuda for t in tensors)


if HAS_TRITON:

    @triton.jit
    def _match_back_kernel(src_ptr, pat_ptr, out_ptr, row_stride,
                           n_out, P: tl.constexpr, BLOCK: tl.constexpr):
        b = tl.program_id(0)
        i = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        m_i = i < n_out
        base = src_ptr + b * row_stride
        acc = tl.full((BLOCK,), True, tl.int1)
        mb = tl.zeros((BLOCK,), dtype=tl.int32)
        for t in tl.static_range(P):
            pat_t = tl.load(pat_ptr + b * P + t)
            idx = i - 1 - t
            tok = tl.load(base + idx, mask=m_i & (idx >= 0), other=-1)
            acc = acc & (tok == pat_t)
            mb += acc.to(tl.int32)
        tl.store(out_ptr + b * n_out + i, mb, mask=m_i)

    @triton.jit
    def _sa_search_kernel(sa_ptr, corpus_ptr, pat_ptr, plen_ptr, out_ptr,
                          n_corpus, n_rows, M: tl.constexpr,
                          ITERS: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m_row = row < 2 * n_rows
        prow = tl.where(m_row, row % n_rows, 0)
        is_upper = row >= n_rows
        plen = tl.load(plen_ptr + prow, mask=m_row, other=0)
        j = tl.arange(0, M)
        pat = tl.load(pat_ptr + prow[:, None] * M + j[None, :],
                      mask=m_row[:, None], other=0)
        pat_valid = j[None, :] < plen[:, None]
        lo = tl.zeros((BLOCK,), dtype=tl.int64)
        hi = tl.zeros((BLOCK,), dtype=tl.int64) + n_corpus
        for _ in tl.static_range(ITERS):
            mid = tl.minimum((lo + hi) // 2, n_corpus - 1)
            pos = tl.load(sa_ptr + mid, mask=m_row, other=0)
            cidx = pos[:, None] + j[None, :]
            tok = tl.load(corpus_ptr + cidx,
                          mask=m_row[:, None] & (cidx < n_corpus),
                          other=-1)
            eq_ok = (tok == pat) | ~pat_valid
            first_bad = tl.min(
                tl.where(eq_ok, M, j[None, :]).to(tl.int64), axis=1)
            lcp = tl.minimum(first_bad, plen)
            full = lcp >= plen
            spos = pos + lcp
            schar = tl.load(corpus_ptr + tl.minimum(spos, n_corpus - 1),
                            mask=m_row & (spos < n_corpus), other=-1)
            pchar = tl.load(pat_ptr + prow * M + tl.minimum(lcp, M - 1),
                            mask=m_row, other=0)
            cmp = tl.where(schar < pchar, -1,
                           tl.where(schar > pchar, 1, 0))
            cmp = tl.where(full, 0, cmp)
            go = (cmp < 0) | (is_upper & (cmp == 0))
            lo = tl.where(go, mid + 1, lo)
            hi = tl.where(go, hi, mid)
        tl.store(out_ptr + row, lo, mask=m_row)

    @triton.jit
    def _expand_chain_kernel(cont_ptr, nocc_ptr, cap_ptr, chain_ptr,
                             nv_ptr, nemit_ptr, score_ptr, min_prob,
                             R: tl.constexpr, K: tl.constexpr,
                             RP: tl.constexpr):
        b = tl.program_id(0)
        r = tl.arange(0, RP)
        occ = tl.load(nocc_ptr + b)
        cap = tl.load(cap_ptr + b)
        ok = (r < R) & (r < occ)
        nv = tl.zeros((), dtype=tl.int32)
        prob = tl.zeros((), dtype=tl.float32) + 1.0
        score = tl.zeros((), dtype=tl.float32)
        for d in tl.static_range(K):
            c = tl.load(cont_ptr + b * R * K + r * K + d,
                        mask=r < R, other=-1)
            act = ok & (c != -1)
            eq = c[:, None] == c[None, :]
            votes = tl.sum((eq & act[None, :]).to(tl.int32), axis=1)
            votes = tl.where(act, votes, 0)
            mx = tl.max(votes, axis=0)
            winner = act & (votes == mx) & (mx > 0)
            tok = tl.min(tl.where(winner, c, 2147483647), axis=0)
            nact = tl.maximum(tl.sum(act.to(tl.int32), axis=0), 1)
            # div_rn: correctly-rounded fp32 divide; the default '/'
            # lowers to an approximate division whose 1-ULP error can
            # flip the min_token_prob cutoff vs the torch reference.
            prob = prob * tl.math.div_rn(mx.to(tl.float32),
                                         nact.to(tl.float32))
            valid = (mx > 0) & (prob >= min_prob)
            tl.store(chain_ptr + b * K + d, tl.where(valid, tok, -1))
            score += tl.where(valid & (d < cap), prob, 0.0)
            nv += valid.to(tl.int32)
            ok = ok & (c == tok) & valid
        tl.store(nv_ptr + b, nv)
        cap0 = tl.maximum(cap, 0)
        tl.store(nemit_ptr + b, tl.minimum(nv.to(tl.int64), cap0))
        tl.store(score_ptr + b, score)

    @triton.jit
    def _scan_max(a, b):
        return tl.maximum(a, b)

    @triton.jit
    def _expand_chain_kernel_v2(cont_ptr, nocc_ptr, cap_ptr, w_ptr,
                                chain_ptr, nv_ptr, nemit_ptr, score_ptr,
                                min_prob, alpha,
                                R: tl.constexpr, K: tl.constexpr,
                                RP: tl.constexpr, HAS_W: tl.constexpr):
        # Sort-based majority vote: tokens are sorted per depth, equal
        # tokens form contiguous runs, and the vote count of a run is
        # its length (or weight sum). O(R log^2 R) vs the pairwise
        # O(R^2), with identical results: max count wins, ties resolve
        # to the smallest token (= first run in ascending order).
        b = tl.program_id(0)
        r = tl.arange(0, RP)
        occ = tl.load(nocc_ptr + b)
        cap = tl.load(cap_ptr + b)
        ok = (r < R) & (r < occ)
        INF = 2147483647
        if HAS_W:
            w = tl.load(w_ptr + b * R + r, mask=r < R, other=0.0)
        nv = tl.zeros((), dtype=tl.int32)
        prob = tl.zeros((), dtype=tl.float32) + 1.0
        score = tl.zeros((), dtype=tl.float32)
        # tl.range (not static_range): keep one sort instance in the
        # IR; a static unroll would emit K copies of the sort network
        # and blow up JIT compile time.
        for d in tl.range(0, K):
            c = tl.load(cont_ptr + b * R * K + r * K + d,
                        mask=r < R, other=-1)
            act = ok & (c != -1)
            if HAS_W:
                # Pack (token, row) so the row index survives the sort
                # and weights can be gathered per sorted slot. Active
                # tokens are >= 0 < INF, so inactive slots sort last.
                key = tl.where(act, c, INF).to(tl.int64) * RP + r
                skey = tl.sort(key, 0)
                stok = (skey // RP).to(tl.int32)
                sidx = (skey % RP).to(tl.int32)
                sw = tl.gather(w, sidx, 0)
            else:
                stok = tl.sort(tl.where(act, c, INF), 0)
            prev = tl.gather(stok, tl.maximum(r - 1, 0), 0)
            neq = (r == 0) | (stok != prev)
            first = tl.associative_scan(tl.where(neq, r, 0), 0, _scan_max)
            nxt = tl.gather(neq.to(tl.int32), tl.minimum(r + 1, RP - 1), 0)
            last = (r == RP - 1) | (nxt > 0)
            validp = stok != INF
            if HAS_W:
                swv = tl.where(validp, sw, 0.0)
                cw = tl.cumsum(swv, 0)
                runw = cw - tl.gather(cw, first, 0) + tl.gather(swv,
                                                                first, 0)
                tot = tl.where(last & validp, runw, 0.0)
                v_w = tl.max(tot, 0)
                win = last & validp & (tot >= v_w) & (v_w > 0)
                tok = tl.min(tl.where(win, stok, INF), 0)
                a_w = tl.sum(tl.where(act, w, 0.0), 0)
                prob = prob * tl.math.div_rn(v_w, a_w + alpha)
                has_vote = v_w > 0
            else:
                runl = r - first + 1
                tot = tl.where(last & validp, runl, 0)
                v_i = tl.max(tot, 0)
                win = last & validp & (tot == v_i) & (v_i > 0)
                tok = tl.min(tl.where(win, stok, INF), 0)
                nact = tl.maximum(tl.sum(act.to(tl.int32), axis=0), 1)
                prob = prob * tl.math.div_rn(
                    v_i.to(tl.float32), nact.to(tl.float32) + alpha)
                has_vote = v_i > 0
            valid = has_vote & (prob >= min_prob)
            tl.store(chain_ptr + b * K + d, tl.where(valid, tok, -1))
            score += tl.where(valid & (d < cap), prob, 0.0)
            nv += valid.to(tl.int32)
            ok = ok & (c == tok) & valid
        tl.store(nv_ptr + b, nv)
        cap0 = tl.maximum(cap, 0)
        tl.store(nemit_ptr + b, tl.minimum(nv.to(tl.int64), cap0))
        tl.store(score_ptr + b, score)

    @triton.jit
    def _first_occ_kernel(mb_ptr, thr_ptr, out_ptr, cnt_ptr, n_cols,
                          C: tl.constexpr, R: tl.constexpr,
                          RP: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        b = row // C
        thr = tl.load(thr_ptr + row).to(tl.int32)
        found = tl.zeros((), dtype=tl.int32)
        # mb is pre-zeroed at invalid positions, so thr >= 1 alone
        # defines a hit; thr == 0 rows skip the scan.
        off = tl.where(thr > 0, 0, n_cols).to(tl.int32)
        while (off < n_cols) & (found < R):
            idx = off + tl.arange(0, BLOCK)
            v = tl.load(mb_ptr + b * n_cols + idx, mask=idx < n_cols,
                        other=0)
            hit = v >= thr
            hcum = tl.cumsum(hit.to(tl.int32), axis=0)
            slot = found + hcum - 1
            tl.store(out_ptr + row * R + slot, idx,
                     mask=hit & (slot < R))
            found = tl.minimum(found + tl.sum(hit.to(tl.int32), axis=0),
                               R)
            off += BLOCK
        rr = tl.arange(0, RP)
        tl.store(out_ptr + row * R + rr, 0,
                 mask=(rr >= found) & (rr < R))
        tl.store(cnt_ptr + row, found)

    @triton.jit
    def _scatter_append_kernel(tok_ptr, base_ptr, cnt_ptr, samp_ptr,
                               s_len, T: tl.constexpr,
                               TP: tl.constexpr):
        b = tl.program_id(0)
        j = tl.arange(0, TP)
        base = tl.load(base_ptr + b)
        cnt = tl.load(cnt_ptr + b)
        val = tl.load(samp_ptr + b * T + j, mask=j < T, other=-1)
        pos = base + j
        ok = (j < T) & (j < cnt) & (val != -1) & (pos < s_len)
        tl.store(tok_ptr + b * s_len + pos, val, mask=ok)


def match_back(src: torch.Tensor, pat: torch.Tensor,
               n_out: int) -> torch.Tensor:
    """match_back[b, i] = longest L with src[.., i-L:i] == tail_L.

    Args:
        src: [B, S] per-row buffer or [N] shared buffer (delta).
        pat: [B, P] newest-first patterns; fill values must never
            match buffer content.
        n_out: window end positions per row.

    Returns:
        [B, n_out] int32 match lengths (<= P).
    """
    b, p = pat.shape
    src = src.contiguous()
    pat = pat.contiguous()
    out = torch.empty(b, n_out, dtype=torch.int32, device=src.device)
    row_stride = src.stride(0) if src.dim() == 2 else 0
    block = 256
    grid = (b, triton.cdiv(n_out, block))
    _match_back_kernel[grid](src, pat, out, row_stride, n_out,
                             P=p, BLOCK=block)
    return out


def sa_search(sa: torch.Tensor, corpus: torch.Tensor,
              pattern: torch.Tensor,
              pattern_len: torch.Tensor) -> tuple[torch.Tensor,
                                                  torch.Tensor]:
    """Merged lower/upper-bound SA interval search (one launch)."""
    n = sa.shape[0]
    b, m = pattern.shape
    m_pad = max(triton.next_power_of_2(m), 2)
    if m_pad != m:
        pattern = torch.nn.functional.pad(pattern, (0, m_pad - m))
    pattern = pattern.to(torch.int32).contiguous()
    plen = pattern_len.to(torch.int64).contiguous()
    out = torch.empty(2 * b, dtype=torch.int64, device=sa.device)
    iters = max(1, math.ceil(math.log2(n + 1)))
    block = 64
    grid = (triton.cdiv(2 * b, block),)
    _sa_search_kernel[grid](sa, corpus, pattern, plen, out, n, b,
                            M=m_pad, ITERS=iters, BLOCK=block)
    return out[:b], out[b:]


def expand_chain(cont: torch.Tensor, num_occ: torch.Tensor, k: int,
                 min_token_prob: float,
                 cap: torch.Tensor,
                 weights: torch.Tensor | None = None,
                 alpha: float = 0.0) -> tuple[torch.Tensor, torch.Tensor,
                                              torch.Tensor, torch.Tensor]:
    """Majority-vote chain expansion with fused scoring (one launch).

    Sort-based run-length voting (v2): identical results to the
    pairwise kernel for unweighted votes, plus optional per-occurrence
    ``weights`` (vote mass) and Laplace smoothing ``alpha``
    (p = v / (max(a, 1) + alpha) unweighted, v_w / (a_w + alpha)
    weighted).
    """
    b, r, _ = cont.shape
    cont = cont.to(torch.int32).contiguous()
    nocc = num_occ.to(torch.int64).contiguous()
    capc = cap.to(torch.int64).contiguous()
    chain = torch.empty(b, k, dtype=torch.int32, device=cont.device)
    nv = torch.empty(b, dtype=torch.int32, device=cont.device)
    nemit = torch.empty(b, dtype=torch.int64, device=cont.device)
    score = torch.empty(b, dtype=torch.float32, device=cont.device)
    rp = max(triton.next_power_of_2(r), 2)
    if weights is None:
        wt = score  # dummy pointer, never read under HAS_W=False
        has_w = False
    else:
        wt = weights.to(torch.float32).contiguous()
        has_w = True
    _expand_chain_kernel_v2[(b,)](cont, nocc, capc, wt, chain, nv, nemit,
                                  score, float(min_token_prob),
                                  float(alpha), R=r, K=k, RP=rp,
                                  HAS_W=has_w)
    return chain, nv.to(torch.int64), nemit, score


def expand_chain_pairwise(cont: torch.Tensor, num_occ: torch.Tensor,
                          k: int, min_token_prob: float,
                          cap: torch.Tensor) -> tuple[torch.Tensor,
                                                      torch.Tensor,
                                                      torch.Tensor,
                                                      torch.Tensor]:
    """Legacy O(R^2) pairwise-vote kernel (kept as test oracle)."""
    b, r, _ = cont.shape
    cont = cont.to(torch.int32).contiguous()
    nocc = num_occ.to(torch.int64).contiguous()
    capc = cap.to(torch.int64).contiguous()
    chain = torch.empty(b, k, dtype=torch.int32, device=cont.device)
    nv = torch.empty(b, dtype=torch.int32, device=cont.device)
    nemit = torch.empty(b, dtype=torch.int64, device=cont.device)
    score = torch.empty(b, dtype=torch.float32, device=cont.device)
    rp = max(triton.next_power_of_2(r), 2)
    _expand_chain_kernel[(b,)](cont, nocc, capc, chain, nv, nemit, score,
                               float(min_token_prob), R=r, K=k, RP=rp)
    return chain, nv.to(torch.int64), nemit, score


def first_occurrences(mb: torch.Tensor, thr: torch.Tensor, c: int,
                      r: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Earliest positions with match_back >= per-candidate threshold.

    Sequential scan per (row, candidate) with early exit after r hits,
    so the cost is nearly flat in the candidate count.

    Args:
        mb: [B, N] int32 match_back values, zeroed at invalid
            positions.
        thr: [B * C] per-candidate thresholds (0 disables the row).
        c: candidates per row (C).
        r: max occurrences.

    Returns:
        (positions [B*C, r] i64, zero-padded past the count;
         count [B*C] i64 clamped to r).
    """
    bc = thr.shape[0]
    n = mb.shape[1]
    mb = mb.contiguous()
    thr = thr.to(torch.int32).contiguous()
    out = torch.empty(bc, r, dtype=torch.int32, device=mb.device)
    cnt = torch.empty(bc, dtype=torch.int32, device=mb.device)
    rp = max(triton.next_power_of_2(r), 2)
    _first_occ_kernel[(bc,)](mb, thr, out, cnt, n, C=c, R=r, RP=rp,
                             BLOCK=1024)
    return out.to(torch.int64), cnt.to(torch.int64)


def scatter_append(token_ids_gpu: torch.Tensor, base: torch.Tensor,
                   cnt: torch.Tensor,
                   sampled: torch.Tensor) -> None:
    """Append each row's valid sampled tokens at its base offset."""
    b, s = token_ids_gpu.shape
    t = sampled.shape[1]
    tp = max(triton.next_power_of_2(t), 2)
    _scatter_append_kernel[(b,)](
        token_ids_gpu, base.to(torch.int64).contiguous(),
        cnt.to(torch.int64).contiguous(),
        sampled.to(token_ids_gpu.dtype).contiguous(), s, T=t, TP=tp)
