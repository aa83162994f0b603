"""
emltorch/smt.py — Export EML formulas to Z3 / SMT-LIB for formal verification.

The EML operator `eml(x, y) = exp(x) - ln(y)` and its compositions can be
translated to SMT formulas over the theory of real arithmetic with
transcendentals (using Z3's Python bindings). This enables:

  1. **Bounded safety proofs**: prove that for all r in a ball of radius rho,
     a safety feature does NOT activate — no perturbation within budget
     rho can bypass it. A machine-checkable certificate.

  2. **Exact adversarial witness search**: minimize ||d|| subject to the
     activation condition. For linear-threshold features (SAE + ReLU),
     Z3 recovers the Cauchy-Schwarz optimum exactly.

  3. **SMT-LIB2 export**: produce a .smt2 file that any SMT solver
     (Z3, CVC5, Yices) can verify — portable formal proof.

Key identity for the safety audit:
    For a jbloom SAE ReLU-gated feature k, the activation condition
    simplifies to a linear threshold:
        active_k(r) iff W_enc[k] . r  >  b_enc[k] + W_enc[k] . b_dec
                                       = threshold_k

Z3 proves "for all ||r - r_0|| <= eps : W_enc[k].r <= threshold_k" by
trying to find a counter-example (a violating r). UNSAT = proved safe.

Usage
-----
    from emltorch.smt import (
        certify_linear_threshold_safe,
        find_min_norm_witness,
        eml_formula_to_z3,
        emit_smtlib2,
    )

    proof = certify_linear_threshold_safe(
        W_enc_k=W, threshold_k=4.52, r_center=benign_resid, radius=0.5,
    )
    # proof.verdict in {"SAFE", "UNSAFE"}
    # proof.witness : residual that activates feature (if UNSAFE)
    # proof.smt2    : SMT-LIB2 proof obligation text
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import z3 as _z3  # type: ignore


def _lazy_import_z3():
    import z3

    return z3


def _extract_model_value(model, z3_var) -> float:
    """Z3 model lookup via indexing syntax (avoids .eval naming collision)."""
    v = model[z3_var]
    if v is None:
        return 0.0
    if hasattr(v, "numerator_as_long"):
        num = v.numerator_as_long()
        den = v.denominator_as_long() if hasattr(v, "denominator_as_long") else 1
        return num / max(den, 1)
    if hasattr(v, "as_long"):
        return float(v.as_long())
    if hasattr(v, "as_decimal"):
        s = v.as_decimal(20).rstrip("?")
        return float(s)
    return float(v.__repr__())


# ─── AST bridge (reuses gradient.py parser) ──────────────────────────────────


def eml_formula_to_z3(formula: str, z3_vars: dict[str, "_z3.ArithRef"]):
    """
    Convert an EML formula string (bare or polish format) into a Z3 expression
    evaluated over the given Z3 variable bindings.

    Returns a Z3 ArithRef for the formula value `a + b * inner(z3_vars)`.

    Notes:
        - eml(L, R) uses Z3's Exp/Ln transcendentals (requires Z3 >= 4.11 with
          nlsat enabled).
        - For linear-threshold safety certificates, prefer
          `certify_linear_threshold_safe` which avoids transcendentals entirely
          (decidable via linear real arithmetic).
    """
    z3 = _lazy_import_z3()
    from emltorch.gradient import _parse_inner, _strip_affine
    from emltorch.gradient import (
        _Const,
        _Var,
        _Combo,
        _EML,
        _Add,
        _Sub,
        _Mul,
        _Div,
        _Exp,
    )

    a, b, inner = _strip_affine(formula)
    node = _parse_inner(inner)

    def emit(n):
        if isinstance(n, _Const):
            return z3.RealVal(n.value)
        if isinstance(n, _Var):
            if n.name not in z3_vars:
                raise KeyError(f"No Z3 binding for variable '{n.name}'")
            return z3_vars[n.name]
        if isinstance(n, _Combo):
            lv = z3_vars.get(n.left, z3.RealVal(0))
            rv = z3_vars.get(n.right, z3.RealVal(0))
            if n.op == "+":
                return lv + rv
            if n.op == "-":
                return lv - rv
            return lv * rv  # "*" (mul combo)
        if isinstance(n, _EML):
            if not hasattr(z3, "Exp") or not hasattr(z3, "Ln"):
                raise RuntimeError(
                    "Your Z3 build lacks transcendentals (Exp/Ln). "
                    "Upgrade Z3 or use linear-threshold certification."
                )
            L = emit(n.left)
            R = emit(n.right)
            return z3.Exp(L) - z3.Ln(R)
        if isinstance(n, _Add):
            return emit(n.left) + emit(n.right)
        if isinstance(n, _Sub):
            return emit(n.left) - emit(n.right)
        if isinstance(n, _Mul):
            return emit(n.left) * emit(n.right)
        if isinstance(n, _Div):
            return emit(n.left) / emit(n.right)
        if isinstance(n, _Exp):
            if not hasattr(z3, "Exp"):
                raise RuntimeError("Z3 missing Exp().")
            return z3.Exp(emit(n.arg))
        raise TypeError(f"Unknown AST node {type(n)}")

    body = emit(node)
    return z3.RealVal(a) + z3.RealVal(b) * body


# ─── High-level safety certification ─────────────────────────────────────────


@dataclass
class SafetyCertificate:
    verdict: str  # "SAFE" | "UNSAFE" | "UNKNOWN"
    radius: float
    threshold: float
    margin: float  # threshold - W.r_center
    witness: np.ndarray | None  # residual that activates (if UNSAFE)
    witness_norm: float | None  # ||witness - r_center||
    solver_time_s: float
    smt2: str  # SMT-LIB2 proof obligation text


def certify_linear_threshold_safe(
    W_enc_k: np.ndarray,
    threshold_k: float,
    r_center: np.ndarray,
    radius: float,
    norm: str = "l2",
    timeout_ms: int = 30000,
) -> SafetyCertificate:
    """
    Prove or refute: "for all r with ||r - r_center|| <= radius, the safety
    feature with weight W_enc[k] and threshold threshold_k does NOT activate".

    This IS the mathematical safety certificate demanded by EU AI Act 13 and
    NIST AI RMF Measure.1.1 — a deterministic, court-testable statement.

    SAFE iff Z3 returns UNSAT on the negation
        (exists d : ||d||<=radius AND W.(r_center+d) > threshold_k).

    Closed-form (Cauchy-Schwarz L2): min-norm witness = margin / ||W_enc||.
    Z3 provides an independent SMT-verified proof distinct from the analytic bound.
    """
    z3 = _lazy_import_z3()
    import time

    W = np.asarray(W_enc_k, dtype=np.float64)
    r_c = np.asarray(r_center, dtype=np.float64)
    hidden = W.shape[0]
    assert r_c.shape == (hidden,)

    solver = z3.Solver()
    solver.set("timeout", timeout_ms)

    delta = [z3.Real(f"d{i}") for i in range(hidden)]

    w_dot_delta = z3.Sum([z3.RealVal(float(W[i])) * delta[i] for i in range(hidden)])
    w_dot_rc = float(np.dot(W, r_c))
    margin = threshold_k - w_dot_rc

    if norm == "l2":
        norm_sq = z3.Sum([delta[i] * delta[i] for i in range(hidden)])
        solver.add(norm_sq <= float(radius) ** 2)
    elif norm == "linf":
        for i in range(hidden):
            solver.add(delta[i] <= float(radius))
            solver.add(delta[i] >= -float(radius))
    elif norm == "l1":
        abs_terms = []
        for i in range(hidden):
            ai = z3.Real(f"a{i}")
            solver.add(ai >= delta[i], ai >= -delta[i])
            abs_terms.append(ai)
        solver.add(z3.Sum(abs_terms) <= float(radius))
    else:
        raise ValueError(f"norm must be l2/linf/l1, got {norm!r}")

    # Negation of safety: try to find a δ that activates the feature.
    solver.add(w_dot_delta > float(margin))

    # SMT-LIB only accepts decimal-style numeric literals (no exponential notation).
    # Use ~18 significant digits of fixed-point decimal to preserve float64 precision.
    def _num(x: float) -> str:
        s = f"{x:.18f}"
        if x < 0:
            return f"(- {s[1:]})"
        return s

    # Pick the tightest decidable logic for the norm being used
    logic = "QF_LRA" if norm in ("linf", "l1") else "QF_NRA"
    smt2_lines = [f"(set-logic {logic})"]
    for i in range(hidden):
        smt2_lines.append(f"(declare-const d{i} Real)")
    if norm == "l2":
        sum_terms = " ".join(f"(* d{i} d{i})" for i in range(hidden))
        smt2_lines.append(f"(assert (<= (+ {sum_terms}) {_num(float(radius) ** 2)}))")
    elif norm == "linf":
        for i in range(hidden):
            smt2_lines.append(f"(assert (<= d{i} {_num(float(radius))}))")
            smt2_lines.append(f"(assert (>= d{i} {_num(-float(radius))}))")
    elif norm == "l1":
        for i in range(hidden):
            smt2_lines.append(f"(declare-const a{i} Real)")
            smt2_lines.append(f"(assert (>= a{i} d{i}))")
            smt2_lines.append(f"(assert (>= a{i} (- 0 d{i})))")
        sum_a = " ".join(f"a{i}" for i in range(hidden))
        smt2_lines.append(f"(assert (<= (+ {sum_a}) {_num(float(radius))}))")
    coeff_terms = " ".join(f"(* {_num(float(W[i]))} d{i})" for i in range(hidden))
    smt2_lines.append(f"(assert (> (+ {coeff_terms}) {_num(float(margin))}))")
    smt2_lines.append("(check-sat)")
    smt2_lines.append("(get-model)")
    smt2 = "\n".join(smt2_lines)

    t0 = time.time()
    result = solver.check()
    t1 = time.time() - t0

    witness = None
    witness_norm = None
    if result == z3.sat:
        model = solver.model()
        delta_vals = np.zeros(hidden, dtype=np.float64)
        for i in range(hidden):
            delta_vals[i] = _extract_model_value(model, delta[i])
        witness = r_c + delta_vals
        witness_norm = float(np.linalg.norm(delta_vals))
        verdict = "UNSAFE"
    elif result == z3.unsat:
        verdict = "SAFE"
    else:
        verdict = "UNKNOWN"

    return SafetyCertificate(
        verdict=verdict,
        radius=float(radius),
        threshold=float(threshold_k),
        margin=float(margin),
        witness=witness,
        witness_norm=witness_norm,
        solver_time_s=t1,
        smt2=smt2,
    )


def find_min_norm_witness(
    W_enc_k: np.ndarray,
    threshold_k: float,
    r_center: np.ndarray,
    tol: float = 1e-3,
    max_iters: int = 40,
    timeout_ms: int = 10000,
) -> SafetyCertificate:
    """
    Bisection-search the minimum L2 radius rho* such that the feature becomes
    activatable. By Cauchy-Schwarz this equals margin/||W|| exactly.
    """
    W = np.asarray(W_enc_k, dtype=np.float64)
    analytic = (threshold_k - float(np.dot(W, r_center))) / max(
        float(np.linalg.norm(W)), 1e-30
    )
    assert analytic > 0, "r_center already activates feature (margin <= 0)"

    lo, hi = 0.0, analytic * 1.5
    last_safe: SafetyCertificate | None = None
    last_unsafe: SafetyCertificate | None = None

    for _ in range(max_iters):
        mid = (lo + hi) / 2
        cert = certify_linear_threshold_safe(
            W, threshold_k, r_center, mid, norm="l2", timeout_ms=timeout_ms
        )
        if cert.verdict == "SAFE":
            lo = mid
            last_safe = cert
        elif cert.verdict == "UNSAFE":
            hi = mid
            last_unsafe = cert
        else:
            break
        if hi - lo < tol:
            break

    return last_unsafe or last_safe  # type: ignore


def optimize_min_linf_witness(
    W_enc_k: np.ndarray,
    threshold_k: float,
    r_center: np.ndarray,
    timeout_ms: int = 60000,
) -> dict:
    """
    Use Z3's Optimize tactic to find the EXACT minimum L_inf perturbation
    that activates the feature. This is a linear program:
        minimize  t
        subject to
          |d_i|  <=  t  for all i
          W . d  >   threshold_k - W . r_center   (margin)

    For linear threshold features, Z3 proves optimality (not just finds a
    witness). The closed-form optimum is t* = margin / ||W||_1 attained
    at d_i = t* * sign(W_i) — Z3 recovers this exactly.
    """
    z3 = _lazy_import_z3()
    import time

    W = np.asarray(W_enc_k, dtype=np.float64)
    r_c = np.asarray(r_center, dtype=np.float64)
    hidden = W.shape[0]
    margin = threshold_k - float(np.dot(W, r_c))

    opt = z3.Optimize()
    opt.set("timeout", timeout_ms)

    delta = [z3.Real(f"d{i}") for i in range(hidden)]
    t = z3.Real("t")
    opt.add(t >= 0)
    for i in range(hidden):
        opt.add(delta[i] <= t)
        opt.add(delta[i] >= -t)

    w_dot_delta = z3.Sum([z3.RealVal(float(W[i])) * delta[i] for i in range(hidden)])
    opt.add(w_dot_delta > float(margin))

    h = opt.minimize(t)
    t0 = time.time()
    result = opt.check()
    t1 = time.time() - t0

    out = {
        "verdict": str(result),
        "solver_time_s": t1,
        "margin": margin,
        "min_t": None,
        "witness": None,
        "analytic_linf": margin / max(float(np.linalg.norm(W, ord=1)), 1e-30),
    }
    if result == z3.sat:
        delta_vals = np.zeros(hidden, dtype=np.float64)
        model = opt.model()
        for i in range(hidden):
            delta_vals[i] = _extract_model_value(model, delta[i])
        t_val = _extract_model_value(model, t)
        out["min_t"] = t_val
        out["witness"] = r_c + delta_vals
    return out


def emit_smtlib2(
    W_enc_k: np.ndarray,
    threshold_k: float,
    r_center: np.ndarray,
    radius: float,
    feature_name: str = "feature_k",
    norm: str = "linf",
) -> str:
    """
    Produce a standalone SMT-LIB2 text asserting the safety-negation.

    UNSAT when passed to any SMT solver (z3, cvc5, yices) proves the
    feature is inactive for all ||delta||_norm <= radius.

    Default norm is L_inf because QF_LRA (linear real arithmetic) is decidable
    in polynomial time and scales to d_model=768+ in seconds; the L2 encoding
    is QF_NRA (nonlinear) and is typically too slow for external re-verification
    of large residuals even though it is formally more stringent for Euclidean
    perturbation budgets.
    """
    cert = certify_linear_threshold_safe(
        W_enc_k, threshold_k, r_center, radius, norm=norm, timeout_ms=1
    )
    header = (
        f"; SMT-LIB2 proof obligation for EML safety certificate\n"
        f"; Feature: {feature_name}\n"
        f"; Threshold: {threshold_k}\n"
        f"; Center norm: {np.linalg.norm(r_center):.4f}\n"
        f"; Perturbation budget (||delta||_{norm}): {radius}\n"
        f"; UNSAT implies feature provably inactive for all ||delta||_{norm} <= {radius}.\n"
    )
    return header + cert.smt2


# ─── Portable axiomatized-Exp+Ln EML-tree SMT emitter ──────────────────────
# Translates a polished EML formula directly into SMT-LIB2 text where
# `eml(L, R)` appears in the body as `(- (Exp L) (Ln R))`.  Unlike
# `eml_formula_to_z3` (which uses native z3.Exp / z3.Ln transcendentals,
# build-dependent), this emits an UNINTERPRETED-Exp + UNINTERPRETED-Ln
# axiomatization that ANY SMT solver supporting QF_UF + linear arithmetic
# can re-verify (z3 4.16, cvc5 1.3, etc.).  Same pattern as Headlines 7-9
# applied to EML: positivity + monotonicity + Exp(0)=1 + Ln(1)=0 + inverse
# axioms (Ln(Exp(x))=x, Exp(Ln(v))=v) + multiplicativity corollaries.

EML_AXIOMS_SMT2 = """\
; ─── Axiomatized Exp + Ln (no transcendentals required) ───
(declare-fun Exp (Real) Real)
(declare-fun Ln  (Real) Real)
; --- Exp axioms ---
(assert (forall ((u Real)) (! (> (Exp u) 0.0)        :pattern ((Exp u)))))
(assert (= (Exp 0.0) 1.0))
(assert (forall ((u Real) (v Real))
    (! (=> (< u v) (< (Exp u) (Exp v)))               :pattern ((Exp u) (Exp v)))))
(assert (forall ((u Real)) (! (=> (> u 0.0) (> (Exp u) 1.0)) :pattern ((Exp u)))))
(assert (forall ((u Real)) (! (=> (< u 0.0) (< (Exp u) 1.0)) :pattern ((Exp u)))))
; --- Ln axioms (domain: v > 0) ---
(assert (= (Ln 1.0) 0.0))
(assert (forall ((u Real) (v Real))
    (! (=> (and (> u 0.0) (> v 0.0) (< u v)) (< (Ln u) (Ln v)))
       :pattern ((Ln u) (Ln v)))))
(assert (forall ((v Real))
    (! (=> (> v 1.0) (> (Ln v) 0.0))                  :pattern ((Ln v)))))
(assert (forall ((v Real))
    (! (=> (and (> v 0.0) (< v 1.0)) (< (Ln v) 0.0))  :pattern ((Ln v)))))
; --- inverse axioms (load-bearing for ReLU = EML-d4 identity) ---
(assert (forall ((x Real)) (! (= (Ln (Exp x)) x)      :pattern ((Ln (Exp x))))))
(assert (forall ((v Real)) (! (=> (> v 0.0) (= (Exp (Ln v)) v))
                                                       :pattern ((Exp (Ln v))))))
; --- numeric anchor:  e ∈ [2.7182, 2.7183] ---
(assert (>= (Exp 1.0) 2.7182))
(assert (<= (Exp 1.0) 2.7183))
"""


# ─── Pre-proven / asserted EML lemma library ──────────────────────────────
#
# These are EXTENSION axioms beyond the base ``EML_AXIOMS_SMT2`` set,
# discovered as load-bearing across Headlines 7/8/9 when the base axioms
# alone left the solver at ``unknown``.  Each entry pairs the SMT-LIB2
# block with ITS PROVENANCE (where it was discovered to be required) and
# WHAT IT UNBLOCKS (which class of cert needs it).
#
# Convention (mirrors Headline 8c):  multiplicativity / ratio corollaries
# cannot be derived from monotonicity + positivity in a quantifier-free
# fragment, so they are **asserted as axioms** with documented provenance.
# The lemma name is the dict key; the SMT body is the value's "smt2".
#
# Usage::
#
#     from emltorch.smt import (
#         eml_tree_to_smt2, EML_LEMMAS, with_lemmas,
#     )
#     text = eml_tree_to_smt2(formula, var_ranges, ">", 0.0, title="...")
#     text = with_lemmas(text, "multiplicativity", "ratio_corollary")
#

_LEMMA_MULTIPLICATIVITY = """\
; Lemma:  ∀ u, v.  Exp(u + v) = Exp(u) · Exp(v)
; Universal multiplicativity of Exp.  Asserted (cannot be derived from
; base monotonicity + positivity).  Load-bearing for shared-input EML
; composition (Headline 8c) and any cert where Exp arguments share a
; perturbation.
(assert (forall ((u Real) (v Real))
    (! (= (Exp (+ u v)) (* (Exp u) (Exp v)))
       :pattern ((Exp (+ u v))) )))
"""

_LEMMA_LN_MULTIPLICATIVITY = """\
; Lemma:  ∀ u, v > 0.  Ln(u · v) = Ln(u) + Ln(v)
; Multiplicativity of Ln on positive reals.  Asserted.  Useful when a
; cert needs to fold a product inside Ln to a sum outside Ln.
(assert (forall ((u Real) (v Real))
    (! (=> (and (> u 0.0) (> v 0.0))
           (= (Ln (* u v)) (+ (Ln u) (Ln v))))
       :pattern ((Ln (* u v))) )))
"""

_LEMMA_RATIO_COROLLARY = """\
; Lemma:  ∀ u, v.  u ≥ v + 1.0  ⇒  Exp(u) ≥ 2.5 · Exp(v)
; Pattern-matchable ratio corollary discovered load-bearing for T=3
; softmax (Headline 7).  Discharges 6-7ms vs 60s timeout without.
(assert (forall ((u Real) (v Real))
    (! (=> (>= u (+ v 1.0)) (>= (Exp u) (* 2.5 (Exp v))))
       :pattern ((Exp u) (Exp v)) )))
"""

_LEMMA_DEPTH3_LN = """\
; Lemma:  ∀ z > 0.  Ln(Exp(1.0) - Ln(z)) - Ln(z) ... = ln(z) (depth-3 EML)
; Specifically:  eml(1, eml(eml(1, z), 1)) = ln(z)  for z > 0.
; In SMT body that becomes: (- (Exp 1.0) (Ln (- (Exp (- (Exp 1.0) (Ln z))) (Ln 1.0))))
; Provenance: gatekeeper T2 (already discharged by base axioms in 2-5ms).
; Bundled here as a *named* lemma for cert authors who want the named
; identity rather than the raw nested expression in their assertion.
; Not a new axiom — derivable from base; included for ergonomics.
(assert true)  ; no-op; identity holds via base axioms
"""

_LEMMA_RELU_DEPTH4 = """\
; Lemma:  ∀ z > 0.  eml(eml(1, eml(eml(1, z), 1)), 1) = z
; Depth-4 EML identity for z > 0 branch.  Foundational for SAE feature
; cert via ReLU=EML.  Discharged by base axioms (Ln∘Exp inverse + Exp∘Ln
; inverse) — provenance: gatekeeper T3 (2-5ms).  Bundled for ergonomic
; reuse.
(assert true)
"""

_LEMMA_EXP_MINUS_Y = """\
; Lemma:  ∀ x, y.  eml(x, eml(y, 1)) = Exp(x) - y
; Depth-2 EML composition where the right child is itself a depth-1 EML
; (eml(y, 1) = Exp(y)).  Then Ln(Exp(y)) = y by inverse axiom, so the
; outer eml reduces to Exp(x) - y.  Discharged by base axioms; bundled
; for ergonomic reuse.
(assert true)
"""

_LEMMA_E_INTERVAL_TIGHT = """\
; Lemma:  e = Exp(1) ∈ [2.71828182, 2.71828183]
; Tighter numeric anchor than the base [2.7182, 2.7183].  Useful when a
; cert needs O(1e-7) precision around e (e.g. ReLU identity composed
; with a small linear margin).
(assert (>= (Exp 1.0) 2.71828182))
(assert (<= (Exp 1.0) 2.71828183))
"""

_LEMMA_LN_AT_E = """\
; Lemma:  Ln(e) = 1, equivalently Ln(Exp(1)) = 1.
; Derivable from Ln(Exp(x))=x at x=1; bundled as numeric anchor for Ln.
(assert (= (Ln (Exp 1.0)) 1.0))
"""


EML_LEMMAS: dict[str, dict] = {
    "multiplicativity": {
        "smt2": _LEMMA_MULTIPLICATIVITY,
        "provenance": (
            "Headline 8c shared-input composition `y(u) = sigmoid(u) − sigmoid(u-1)`. "
            "Base axioms returned `unknown` on the SAFE direction; adding this "
            "axiom discharges in 4ms (z3 + cvc5)."
        ),
        "load_bearing_for": (
            "Any cert where two or more Exp arguments share a perturbation δ. "
            "Without it, the SMT cannot link Exp(u) and Exp(u + c)."
        ),
        "is_axiom": True,
    },
    "ln_multiplicativity": {
        "smt2": _LEMMA_LN_MULTIPLICATIVITY,
        "provenance": (
            "Symmetric counterpart of multiplicativity.  Useful when a cert "
            "needs to factor a product inside Ln(·) — relevant to certs over "
            "products of positive quantities (e.g. attention weights)."
        ),
        "load_bearing_for": (
            "Certs that need ln(a·b) = ln(a) + ln(b) inside the body."
        ),
        "is_axiom": True,
    },
    "ratio_corollary": {
        "smt2": _LEMMA_RATIO_COROLLARY,
        "provenance": (
            "Headline 7 T=3 softmax (multi-key attention).  Base axioms time out "
            "at 60s on `‖δ‖_∞ ≤ ρ ⇒ a_target > τ` for T=3; adding this single "
            "pattern-matched ratio lemma discharges in 6-7ms."
        ),
        "load_bearing_for": (
            "Multi-key softmax certs where the target weight is a ratio "
            "E_target / Σ E_j and the SMT must reason about Exp ratios."
        ),
        "is_axiom": True,
    },
    "depth3_ln_identity": {
        "smt2": _LEMMA_DEPTH3_LN,
        "provenance": (
            "Gatekeeper T2 (Headline 10b).  Discharged by base inverse "
            "axioms in 2-5ms.  Listed for ergonomic reuse only."
        ),
        "load_bearing_for": "ergonomic naming; no new axiom",
        "is_axiom": False,
    },
    "relu_depth4_identity": {
        "smt2": _LEMMA_RELU_DEPTH4,
        "provenance": (
            "Gatekeeper T3 (Headline 10b).  Discharged by base inverse "
            "axioms (Ln∘Exp + Exp∘Ln) in 2-5ms.  Foundational for "
            "SAE-feature ReLU-via-EML cert (Track 2)."
        ),
        "load_bearing_for": "ergonomic naming; no new axiom",
        "is_axiom": False,
    },
    "exp_minus_y": {
        "smt2": _LEMMA_EXP_MINUS_Y,
        "provenance": (
            "Depth-2 EML composition with right-child = Exp.  Discharged "
            "by base inverse axiom `Ln(Exp(y)) = y` directly."
        ),
        "load_bearing_for": "ergonomic naming; no new axiom",
        "is_axiom": False,
    },
    "e_interval_tight": {
        "smt2": _LEMMA_E_INTERVAL_TIGHT,
        "provenance": (
            "Tightening of base e-interval from 4-digit to 8-digit.  Useful "
            "for certs whose margin is below ~1e-4 around e."
        ),
        "load_bearing_for": (
            "Certs needing O(1e-7) precision around e (small-margin ReLU "
            "compositions, etc.)."
        ),
        "is_axiom": True,
    },
    "ln_at_e": {
        "smt2": _LEMMA_LN_AT_E,
        "provenance": (
            "Numeric anchor for Ln at the point e.  Derivable from "
            "Ln(Exp(x))=x at x=1; asserted explicitly to give the SMT a "
            "concrete Ln value."
        ),
        "load_bearing_for": (
            "Certs needing a numeric upper bound on Ln(z) for z near e — "
            "the base axiom set has no Ln numeric anchor (only Exp)."
        ),
        "is_axiom": True,
    },
}


def with_lemmas(smt2_text: str, *lemma_keys: str) -> str:
    """Insert pre-proven / asserted lemma blocks into the cert text.

    Lemmas are inserted AFTER ``EML_AXIOMS_SMT2`` but BEFORE the variable
    declarations and (check-sat).  This preserves the cert's portability
    across z3 and cvc5: the lemma-extended cert is still self-contained
    SMT-LIB2 with no external dependencies.

    Args:
        smt2_text:   output of ``eml_tree_to_smt2`` (or any cert text
                     containing ``(check-sat)`` near the end).
        *lemma_keys: names of lemmas in ``EML_LEMMAS`` to splice in.

    Raises:
        KeyError: if a lemma name is not in ``EML_LEMMAS``.

    Example::

        text = eml_tree_to_smt2("eml(g, 1)", {"g": (-4, -1)}, ">", 0, "...")
        text = with_lemmas(text, "multiplicativity", "ratio_corollary")
        # 'text' now has both lemma blocks asserted before (check-sat).
    """
    blocks = []
    for key in lemma_keys:
        if key not in EML_LEMMAS:
            raise KeyError(
                f"Unknown lemma {key!r}; available: {sorted(EML_LEMMAS.keys())}"
            )
        blocks.append(
            f"; --- LEMMA: {key} ---\n; {EML_LEMMAS[key]['provenance']}\n"
            + EML_LEMMAS[key]["smt2"]
        )
    if not blocks:
        return smt2_text
    bundle = "\n".join(blocks)
    # Insert before (check-sat); fall back to appending at the end if no marker.
    marker = "(check-sat)"
    if marker in smt2_text:
        head, _, tail = smt2_text.rpartition(marker)
        return head + bundle + "\n" + marker + tail
    return smt2_text + "\n" + bundle + "\n"


def eml_tree_to_smt2(
    formula: str,
    var_ranges: dict[str, tuple[float, float]],
    target_op: str,
    target_value: float,
    title: str = "EML-tree cert",
) -> str:
    """
    Translate an EML formula string (polish or bare) into a portable
    SMT-LIB2 proof obligation:

        ∀ vars within ``var_ranges``:    formula  {target_op}  {target_value}

    Returns a ``.smt2`` text in which `eml(L, R)` is encoded as
    `(- (Exp L) (Ln R))`, with `Exp` and `Ln` declared as uninterpreted
    functions and constrained by the axiom block ``EML_AXIOMS_SMT2``.

    The proof obligation is the NEGATION of the SAFE claim, so UNSAT means
    the SAFE claim holds for all variable assignments in the ranges given.

    Args:
        formula:     EML formula string, e.g. ``"3.0 + 1.5 * eml(eml(1, x), 1)"``
                     (or bare ``"eml(...)"`` — affine wrapper optional).
        var_ranges:  e.g. ``{"x": (-1.0, 2.0), "gap": (-4.0, -1.0)}``
        target_op:   one of ``">", ">=", "<", "<=", "==", "!="``.
        target_value: numeric RHS of the SAFE claim.
        title:       descriptive header comment.

    The body lists every leaf variable in ``var_ranges`` with its bound;
    every `eml(L, R)` node is rendered as ``(- (Exp L) (Ln R))``; constants
    pass through.  Combos like `x_i+x_j`, `x_i-x_j`, `x_i*x_j` translate to
    `(+ ...)`, `(- ...)`, `(* ...)` literally.

    Example::

        text = eml_tree_to_smt2(
            "0.0 + 1.0 * eml(gap, 1)",
            {"gap": (-4.0, -1.0)},
            "<",
            0.5,
            title="softmax probability bounded above by 0.5 for low-confidence prompts",
        )
        # → SMT-LIB2 text; UNSAT proves p_correct = exp(gap) < 0.5 ∀ gap ∈ [-4, -1].
    """
    from emltorch.gradient import (
        _parse_inner,
        _strip_affine,
        _Const,
        _Var,
        _Combo,
        _EML,
        _Add,
        _Sub,
        _Mul,
        _Div,
        _Exp,
    )

    a, b, inner = _strip_affine(formula)
    node = _parse_inner(inner)

    # collect leaf variable names that appear (cross-check against ranges)
    seen_vars: set[str] = set()

    def _num(v: float) -> str:
        s = f"{v:.18f}"
        return f"(- {s[1:]})" if v < 0 else s

    def emit(n) -> str:
        if isinstance(n, _Const):
            return _num(n.value)
        if isinstance(n, _Var):
            seen_vars.add(n.name)
            return n.name
        if isinstance(n, _Combo):
            seen_vars.add(n.left)
            seen_vars.add(n.right)
            sym = {"+": "+", "-": "-", "*": "*"}[n.op]
            return f"({sym} {n.left} {n.right})"
        if isinstance(n, _EML):
            L = emit(n.left)
            R = emit(n.right)
            return f"(- (Exp {L}) (Ln {R}))"
        if isinstance(n, _Add):
            return f"(+ {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Sub):
            return f"(- {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Mul):
            return f"(* {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Div):
            return f"(/ {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Exp):
            return f"(Exp {emit(n.arg)})"
        raise TypeError(f"Unknown AST node {type(n)}")

    body_inner = emit(node)
    body_value = f"(+ {_num(a)} (* {_num(b)} {body_inner}))"

    op_map = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "=", "!=": "distinct"}
    if target_op not in op_map:
        raise ValueError(f"target_op must be one of {list(op_map)}, got {target_op!r}")
    safe_z3 = f"({op_map[target_op]} {body_value} {_num(target_value)})"

    # Negation of SAFE → UNSAT means SAFE holds.
    neg_safe = f"(not {safe_z3})"

    # Variable declarations + range constraints.
    decl_lines: list[str] = []
    for v in sorted(seen_vars):
        lo, hi = var_ranges.get(v, (None, None))
        if lo is None:
            raise ValueError(
                f"variable {v!r} appeared in formula but has no range in var_ranges"
            )
        decl_lines.append(f"(declare-const {v} Real)")
        decl_lines.append(f"(assert (>= {v} {_num(lo)}))")
        decl_lines.append(f"(assert (<= {v} {_num(hi)}))")

    header = (
        f"; {title}\n"
        f"; Formula: {formula}\n"
        f"; Var ranges: {var_ranges}\n"
        f"; Claim (SAFE):  formula {target_op} {target_value}\n"
        f"; UNSAT below proves SAFE for all variable assignments in the ranges.\n"
        f"(set-logic ALL)\n"
    )
    return (
        header
        + EML_AXIOMS_SMT2
        + "\n".join(decl_lines)
        + "\n; Negation of SAFE\n"
        + f"(assert {neg_safe})\n"
        + "(check-sat)\n"
    )


# ─── Interval-propagation EML-tree SMT emitter ────────────────────────────
#
# Alternative to ``eml_tree_to_smt2`` for poly-equivalent EML fits whose
# arbitrary-float constants do NOT compose canonical reduction patterns
# (`Ln∘Exp`, `Exp∘Ln`).  Instead of asking the SMT to reason about Exp/Ln
# symbolically (which saturates — see Headline 11 d=5 curved-softmax),
# this emitter pre-computes per-node value RANGES via interval arithmetic
# and emits a portable QF_LRA cert in which each Exp/Ln evaluation is a
# fresh Real bounded numerically.
#
# The cert obligation reduces to LINEAR arithmetic over the propagated
# intervals — decidable in polynomial time.  Empirically: 1 ms z3 / 3 ms
# cvc5 vs 60 s saturation under the axiomatized track for the same
# polished EML formula.
#
# Soundness: each Exp/Ln interval is an analytic over-approximation of the
# actual transcendental value across the variable's range, so any
# satisfying assignment under the bounds covers the actual semantics.
# UNSAT means SAFE for ALL variable assignments in ``var_ranges``.

import math as _math


def _interval_arithmetic(
    node, var_ranges: dict[str, tuple[float, float]], eps: float = 1e-9
) -> tuple[float, float]:
    """Propagate value intervals through the EML formula tree.

    Given a parsed EML AST node and a dict of variable ranges, returns the
    analytic ``[lo, hi]`` interval that bounds the node's value across all
    variable assignments.  Each Exp/Ln sub-expression is expanded
    monotonically (Exp and Ln are increasing on their domains, so the
    interval is just `[Exp(a), Exp(b)]` / `[Ln(a), Ln(b)]`).

    Combos and Add/Sub/Mul/Div use standard interval arithmetic.

    Raises ValueError if any Ln argument has a non-positive lower bound.
    Returns the interval widened by ``eps`` on each side (default 1e-9
    suffices for double-precision soundness).
    """
    from emltorch.gradient import (
        _Const,
        _Var,
        _Combo,
        _EML,
        _Add,
        _Sub,
        _Mul,
        _Div,
        _Exp,
    )

    def widen(lo: float, hi: float) -> tuple[float, float]:
        return (lo - eps, hi + eps)

    def itv(n):
        if isinstance(n, _Const):
            return widen(n.value, n.value)
        if isinstance(n, _Var):
            if n.name not in var_ranges:
                raise ValueError(f"Variable {n.name!r} has no range in var_ranges")
            lo, hi = var_ranges[n.name]
            return widen(lo, hi)
        if isinstance(n, _Combo):
            l_lo, l_hi = (
                var_ranges[n.left]
                if n.left in var_ranges
                else (float(n.left), float(n.left))
            )
            r_lo, r_hi = (
                var_ranges[n.right]
                if n.right in var_ranges
                else (float(n.right), float(n.right))
            )
            if n.op == "+":
                return widen(l_lo + r_lo, l_hi + r_hi)
            if n.op == "-":
                return widen(l_lo - r_hi, l_hi - r_lo)
            if n.op == "*":
                corners = [l_lo * r_lo, l_lo * r_hi, l_hi * r_lo, l_hi * r_hi]
                return widen(min(corners), max(corners))
            raise ValueError(f"Unknown combo op {n.op!r}")
        if isinstance(n, _EML):
            L_lo, L_hi = itv(n.left)
            R_lo, R_hi = itv(n.right)
            if R_lo <= 0:
                raise ValueError(
                    f"Ln of non-positive interval in eml(L, R): R ∈ "
                    f"[{R_lo}, {R_hi}].  EML formula domain violated; the "
                    f"interval-propagation cert cannot soundly bound this."
                )
            exp_L_lo, exp_L_hi = _math.exp(L_lo), _math.exp(L_hi)
            ln_R_lo, ln_R_hi = _math.log(R_lo), _math.log(R_hi)
            return widen(exp_L_lo - ln_R_hi, exp_L_hi - ln_R_lo)
        if isinstance(n, _Add):
            l_lo, l_hi = itv(n.left)
            r_lo, r_hi = itv(n.right)
            return widen(l_lo + r_lo, l_hi + r_hi)
        if isinstance(n, _Sub):
            l_lo, l_hi = itv(n.left)
            r_lo, r_hi = itv(n.right)
            return widen(l_lo - r_hi, l_hi - r_lo)
        if isinstance(n, _Mul):
            l_lo, l_hi = itv(n.left)
            r_lo, r_hi = itv(n.right)
            corners = [l_lo * r_lo, l_lo * r_hi, l_hi * r_lo, l_hi * r_hi]
            return widen(min(corners), max(corners))
        if isinstance(n, _Div):
            l_lo, l_hi = itv(n.left)
            r_lo, r_hi = itv(n.right)
            if r_lo <= 0 < r_hi or r_lo == 0 or r_hi == 0:
                raise ValueError(f"Division by interval containing 0: [{r_lo}, {r_hi}]")
            corners = [l_lo / r_lo, l_lo / r_hi, l_hi / r_lo, l_hi / r_hi]
            return widen(min(corners), max(corners))
        if isinstance(n, _Exp):
            a_lo, a_hi = itv(n.arg)
            return widen(_math.exp(a_lo), _math.exp(a_hi))
        raise TypeError(f"Unknown AST node {type(n)}")

    return itv(node)


def eml_tree_to_smt2_intervals(
    formula: str,
    var_ranges: dict[str, tuple[float, float]],
    target_op: str,
    target_value: float,
    title: str = "EML-tree interval-propagation cert",
    eps: float = 1e-9,
) -> str:
    """Translate an EML formula into a portable QF_LRA cert via interval
    propagation — the saturation-resolution paradigm from Headline 11.

    Use this emitter when:
    - The EML formula has arbitrary-float inner constants (poly-equivalent
      fit; the axiomatized Exp/Ln track via ``eml_tree_to_smt2`` saturates).
    - You only need to verify a one-sided bound on the formula's value
      (e.g. ``formula > 0`` for safety) rather than algebraic identities
      requiring inverse-axiom reasoning.

    Use ``eml_tree_to_smt2`` for compositional EML identities (constants ∈
    {1, e}; alternating Exp/Ln) where the axiomatized track discharges in
    single-digit ms.

    The emitted cert:
    1. Walks the formula tree via ``_interval_arithmetic`` and computes
       ``[lo, hi]`` bounds for every Exp/Ln evaluation and every eml(L, R)
       sub-expression.
    2. Declares each as a fresh ``Real`` constant with its interval as
       ``(assert (>= ...))`` + ``(assert (<= ...))``.
    3. Wires up structural equalities for eml(L, R) = Exp(L) - Ln(R) and
       Add/Sub/Mul/Div.
    4. Asserts the negation of the SAFE claim.

    Cert logic is QF_LRA — decidable in polynomial time.

    Soundness: each Exp/Ln interval is an analytic over-approximation of
    the transcendental value over the input range.  UNSAT proves
    ``formula {target_op} {target_value}`` SAFE for ALL variable
    assignments in ``var_ranges``.

    Args:
        formula:     EML formula string (polish or bare form).
        var_ranges:  e.g. ``{"g": (-4.299, -1.223)}``.
        target_op:   one of ``">", ">=", "<", "<=", "==", "!="``.
        target_value: numeric RHS.
        title:       descriptive header.
        eps:         per-interval widening (default 1e-9; sufficient for
                     double-precision floats).

    Example::

        text = eml_tree_to_smt2_intervals(
            "+0.1103 + (+0.0592) * [eml(g, eml(eml(0.8836, ...), eml(g, 0.7925)))]",
            {"g": (-4.299, -1.223)},
            ">", 0.0,
            title="curved-softmax > 0",
        )
        # → portable QF_LRA cert; dual-UNSAT in 1ms / 3ms (z3 / cvc5).
    """
    from emltorch.gradient import (
        _parse_inner,
        _strip_affine,
        _Const,
        _Var,
        _Combo,
        _EML,
        _Add,
        _Sub,
        _Mul,
        _Div,
        _Exp,
    )

    a, b, inner = _strip_affine(formula)
    node = _parse_inner(inner)

    seen_vars: set[str] = set()
    decl_lines: list[str] = []
    fresh_id = [0]

    def _num(v: float) -> str:
        s = f"{v:.18f}"
        return f"(- {s[1:]})" if v < 0 else s

    def fresh(prefix: str) -> str:
        fresh_id[0] += 1
        return f"{prefix}_{fresh_id[0]}"

    def declare_var(name: str, lo: float, hi: float, comment: str = ""):
        if comment:
            decl_lines.append(f"; {comment}")
        decl_lines.append(f"(declare-const {name} Real)")
        decl_lines.append(f"(assert (>= {name} {_num(lo)}))")
        decl_lines.append(f"(assert (<= {name} {_num(hi)}))")

    def emit(n) -> str:
        """Emit a fresh Real (or scalar literal) representing the value of
        node ``n``, asserting interval bounds + structural equalities.
        Returns the SMT-LIB2 expression string for the value."""
        if isinstance(n, _Const):
            return _num(n.value)
        if isinstance(n, _Var):
            seen_vars.add(n.name)
            return n.name
        if isinstance(n, _Combo):
            seen_vars.add(n.left)
            seen_vars.add(n.right)
            sym = {"+": "+", "-": "-", "*": "*"}[n.op]
            # No fresh var — combo of two variables / constants is a simple expression.
            return f"({sym} {n.left} {n.right})"
        if isinstance(n, _EML):
            L_expr = emit(n.left)
            R_expr = emit(n.right)
            L_lo, L_hi = _interval_arithmetic(n.left, var_ranges, eps=eps)
            R_lo, R_hi = _interval_arithmetic(n.right, var_ranges, eps=eps)
            if R_lo <= 0:
                raise ValueError(
                    f"Ln of non-positive interval in eml(L, R): R ∈ "
                    f"[{R_lo}, {R_hi}]"
                )
            # Fresh Real for Exp(L)
            exp_L = fresh("exp_L")
            declare_var(
                exp_L,
                _math.exp(L_lo) - eps,
                _math.exp(L_hi) + eps,
                comment=f"Exp({L_expr})  L ∈ [{L_lo:.6e}, {L_hi:.6e}]",
            )
            # Fresh Real for Ln(R)
            ln_R = fresh("ln_R")
            declare_var(
                ln_R,
                _math.log(R_lo) - eps,
                _math.log(R_hi) + eps,
                comment=f"Ln({R_expr})  R ∈ [{R_lo:.6e}, {R_hi:.6e}]",
            )
            # eml(L, R) = exp_L - ln_R; emit as fresh Real with structural equation.
            eml_v = fresh("eml")
            decl_lines.append(f"(declare-const {eml_v} Real)")
            decl_lines.append(f"(assert (= {eml_v} (- {exp_L} {ln_R})))")
            return eml_v
        if isinstance(n, _Add):
            return f"(+ {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Sub):
            return f"(- {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Mul):
            return f"(* {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Div):
            return f"(/ {emit(n.left)} {emit(n.right)})"
        if isinstance(n, _Exp):
            a_lo, a_hi = _interval_arithmetic(n.arg, var_ranges, eps=eps)
            arg_expr = emit(n.arg)
            exp_v = fresh("exp_arg")
            declare_var(
                exp_v,
                _math.exp(a_lo) - eps,
                _math.exp(a_hi) + eps,
                comment=f"Exp({arg_expr})  arg ∈ [{a_lo:.6e}, {a_hi:.6e}]",
            )
            return exp_v
        raise TypeError(f"Unknown AST node {type(n)}")

    body_inner = emit(node)
    body_value = f"(+ {_num(a)} (* {_num(b)} {body_inner}))"

    op_map = {">": ">", ">=": ">=", "<": "<", "<=": "<=", "==": "=", "!=": "distinct"}
    if target_op not in op_map:
        raise ValueError(f"target_op must be one of {list(op_map)}, got {target_op!r}")
    safe_smt = f"({op_map[target_op]} {body_value} {_num(target_value)})"
    neg_safe = f"(not {safe_smt})"

    var_lines: list[str] = []
    for v in sorted(seen_vars):
        if v not in var_ranges:
            raise ValueError(f"variable {v!r} appeared but no range in var_ranges")
        lo, hi = var_ranges[v]
        var_lines.append(f"(declare-const {v} Real)")
        var_lines.append(f"(assert (>= {v} {_num(lo)}))")
        var_lines.append(f"(assert (<= {v} {_num(hi)}))")

    out_lo, out_hi = _interval_arithmetic(node, var_ranges, eps=eps)
    final_lo = a + b * (out_lo if b > 0 else out_hi)
    final_hi = a + b * (out_hi if b > 0 else out_lo)

    header = (
        f"; {title}\n"
        f"; Formula: {formula}\n"
        f"; Var ranges: {var_ranges}\n"
        f"; Claim (SAFE):  formula {target_op} {target_value}\n"
        f"; Interval-propagation analytic bound: formula ∈ [{final_lo:.6e}, {final_hi:.6e}]\n"
        f"; UNSAT below proves SAFE for all variable assignments in the ranges.\n"
        f"; Logic: QF_LRA  (no transcendentals — interval arithmetic + linear "
        f"arith only)\n"
        f"(set-logic QF_LRA)\n"
    )
    return (
        header
        + "\n".join(var_lines)
        + "\n; ─── Per-node Exp/Ln intervals + structural equalities ───\n"
        + "\n".join(decl_lines)
        + "\n; Negation of SAFE\n"
        + f"(assert {neg_safe})\n"
        + "(check-sat)\n"
    )


# ─── Sound attention-block Lipschitz primitive ────────────────────────────
#
# Adoption of arxiv:2507.07814 (Yudin et al. 2025, "Pay Attention to
# Attention Distribution: A New Local Lipschitz Bound for Transformers").
#
# The naive "softmax is 1-Lipschitz" abstraction is 2× looser than truth.
# Corollary 1 of the paper proves the spectral norm of the softmax Jacobian
# at probability vector ``p`` is bounded by
#
#     ‖J_softmax(z)‖_2  ≤  g_1(p)  =  p_(1) · (1 - p_(1) + p_(2))   ≤ 1/2
#
# where p_(1) ≥ p_(2) ≥ ... are the order statistics of ``p = softmax(z)``.
# Equality holds at p = (1/2, 1/2, 0, ..., 0).
#
# Theorem 3 then gives the per-attention-block Jacobian spectral bound
#
#     ‖J_Attn(X)‖_2  ≤  ‖W^V‖_2 · (‖P‖_2 + 2·‖X‖_2² · ‖A‖_2 · max_i g_1(P_i))
#
# where ``A = (W^Q · (W^K)^T) / sqrt(d_head)`` and ``P`` is the row-stochastic
# attention matrix at the operating point.  The bound is LOCAL — it depends
# on the attention probabilities at the clean input, so a sound L_∞-ball
# certificate must replace each operating-point quantity by an interval that
# bounds the perturbed value (see ``attention_block_lipschitz_interval``).
#
# This is the SOUNDNESS PRIMITIVE that Headline 9c flagged as missing:
# naive 1-layer Jacobian-IBP at ρ = 0.1 on real GPT-2 was UNSOUND (PGD
# found wider ranges than IBP predicted).  Theorem 3 restores soundness.


def softmax_jacobian_g1(p) -> float:
    """Tight upper bound on ``‖J_softmax(z)‖_2`` at probability ``p``.

    From Corollary 1 / Theorem 4 of arxiv:2507.07814.  Returns
    ``g_1(p) = p_(1) · (1 - p_(1) + p_(2))`` where p_(k) is the k-th
    largest order statistic of ``p``.  Always ≤ 1/2; equality at
    ``p = (1/2, 1/2, 0, ...)``.

    For peaked attention distributions (e.g. induction-search heads
    attending to one position with weight ≈ 1), ``g_1`` is close to 0,
    so the resulting attention-block bound is much tighter than the
    naive 1/2 worst case.
    """
    arr = np.asarray(p, dtype=np.float64).ravel()
    if arr.size == 0:
        return 0.0
    p_sorted = np.sort(arr)[::-1]
    p1 = float(p_sorted[0])
    p2 = float(p_sorted[1]) if p_sorted.size > 1 else 0.0
    return float(p1 * (1.0 - p1 + p2))


def softmax_jacobian_g1_max(P) -> float:
    """``max_i g_1(P[i, :])`` — the worst-row softmax-Jacobian bound for a
    full attention probability matrix ``P`` of shape ``(T_q, T_k)``."""
    P_arr = np.asarray(P, dtype=np.float64)
    if P_arr.ndim == 1:
        return softmax_jacobian_g1(P_arr)
    if P_arr.ndim != 2:
        raise ValueError(f"P must be 1D or 2D, got shape {P_arr.shape}")
    return float(max(softmax_jacobian_g1(P_arr[i]) for i in range(P_arr.shape[0])))


def attention_block_lipschitz_clean(
    P: np.ndarray,
    W_Q: np.ndarray,
    W_K: np.ndarray,
    W_V: np.ndarray,
    X: np.ndarray,
    d_head: int,
) -> dict:
    """Per-attention-block local Lipschitz bound at the CLEAN operating point.

    Implements Theorem 3 of arxiv:2507.07814 verbatim for the attention block
    ``Attn(X) = softmax(QK^T / √d_head) · V`` with Q = X·W_Q, K = X·W_K,
    V = X·W_V.  Returns a dict with the bound ``L`` and its components for
    diagnostic logging.

    ⚠ SCOPE WARNING ⚠  Theorem 3 is stated for the canonical attention block
    above.  Modern transformers may apply ADDITIONAL nonlinear transformations
    BETWEEN projection and the QK dot-product — notably per-head RMSNorm
    (``q_norm``, ``k_norm``) in Qwen3, Gemma2, etc.  These contribute
    multiplicative Lipschitz factors that this primitive does NOT capture.
    For a real attention block with q_norm/k_norm, the full per-head Jacobian
    bound is approximately

        L_full ≈  ‖J_q_norm(q)‖_2  ·  L_clean  ·  (k_norm_blow-up factor)

    where ``‖J_q_norm(q)‖_2 ≤ ‖γ_q‖_∞ / RMS(q)``.  Validate empirically via
    full-model PGD before using this primitive's output as a safety bound on
    a model with q_norm/k_norm — see
    ``sae-eml/scripts/qwen3_residual_input_pgd_full_forward.py`` for the
    Phase B' methodology.

    Args:
        P: attention probability matrix, shape ``(T_q, T_k)``, row-stochastic.
        W_Q, W_K, W_V: per-head projection matrices, shape ``(d_model, d_head)``.
        X: input token activations (post-LN/RMSNorm), shape ``(T, d_model)``.
        d_head: integer head dimension.

    Returns:
        dict with keys
            ``L``         spectral-norm bound on the attention Jacobian
                          treated as a linear map ``X ↦ Attn(X)`` evaluated
                          at the given ``X`` and ``P``.
            ``components`` raw values of ``W_V_norm``, ``P_norm``,
                          ``X_norm``, ``A_norm``, ``g1_max`` for traceability.

    Sound at the clean operating point only.  For an L_∞-ball cert use
    ``attention_block_lipschitz_interval``.
    """
    P_arr = np.asarray(P, dtype=np.float64)
    W_Q_arr = np.asarray(W_Q, dtype=np.float64)
    W_K_arr = np.asarray(W_K, dtype=np.float64)
    W_V_arr = np.asarray(W_V, dtype=np.float64)
    X_arr = np.asarray(X, dtype=np.float64)

    W_V_norm = float(np.linalg.norm(W_V_arr, ord=2))
    P_norm = float(np.linalg.norm(P_arr, ord=2))
    X_norm = float(np.linalg.norm(X_arr, ord=2))
    A = (W_Q_arr @ W_K_arr.T) / float(np.sqrt(d_head))
    A_norm = float(np.linalg.norm(A, ord=2))
    g1_max = softmax_jacobian_g1_max(P_arr)

    L = W_V_norm * (P_norm + 2.0 * X_norm * X_norm * A_norm * g1_max)
    return {
        "L": float(L),
        "components": {
            "W_V_norm": W_V_norm,
            "P_norm": P_norm,
            "X_norm": X_norm,
            "A_norm": A_norm,
            "g1_max": g1_max,
        },
    }


def attention_block_lipschitz_interval(
    P: np.ndarray,
    W_Q: np.ndarray,
    W_K: np.ndarray,
    W_V: np.ndarray,
    X: np.ndarray,
    d_head: int,
    delta_l2: float,
) -> dict:
    """Operating-point-aware spectral-norm Jacobian bound, sound under
    perturbations of the attention input ``X`` with ``‖δ‖_2 ≤ delta_l2``.

    ⚠ SCOPE WARNING ⚠  Same caveat as ``attention_block_lipschitz_clean``:
    this bound is for the canonical Theorem-3 block ``softmax(QK^T/√d)·V``.
    Real attention blocks with per-head q_norm/k_norm RMSNorm (Qwen3,
    Gemma2, etc.) compose ADDITIONAL Lipschitz factors not captured here.
    Run a full-model PGD validation before treating this primitive's output
    as a safety bound on such models.

    Each operating-point quantity in Theorem 3 (``‖X‖_2``, ``‖P‖_2``,
    ``g_1(P_i)``) is replaced by a sound upper bound that tolerates
    arbitrary δ with ``‖δ‖_2 ≤ delta_l2``:

        ‖X_perturbed‖_2 ≤ ‖X_clean‖_2 + delta_l2     (triangle inequality)
        ‖P_perturbed‖_2 ≤ √(T_q · T_k)               (any row-stochastic P)
        max_i g_1(P_i)  ≤ 1/2                        (Corollary 1 worst case)

    The first is the dominant slack term (since 2·‖X‖²·‖A‖·g_1 typically
    dominates ‖P‖ in Theorem 3).  Worst-case ``P_norm`` and ``g1_max`` are
    used because P moves under δ in a way that's hard to bound tightly
    without unrolling another softmax-Lipschitz layer.

    Returns the upper bound ``L_upper`` and its components.  This bound is
    SOUND for all δ with ``‖δ‖_2 ≤ delta_l2`` applied to ``X``.
    """
    P_arr = np.asarray(P, dtype=np.float64)
    W_Q_arr = np.asarray(W_Q, dtype=np.float64)
    W_K_arr = np.asarray(W_K, dtype=np.float64)
    W_V_arr = np.asarray(W_V, dtype=np.float64)
    X_arr = np.asarray(X, dtype=np.float64)

    W_V_norm = float(np.linalg.norm(W_V_arr, ord=2))
    A = (W_Q_arr @ W_K_arr.T) / float(np.sqrt(d_head))
    A_norm = float(np.linalg.norm(A, ord=2))

    X_norm_clean = float(np.linalg.norm(X_arr, ord=2))
    X_norm_upper = X_norm_clean + float(delta_l2)

    T_q, T_k = P_arr.shape if P_arr.ndim == 2 else (1, P_arr.size)
    P_norm_clean = float(np.linalg.norm(P_arr, ord=2))
    # Any row-stochastic P satisfies ‖P‖_2 ≤ sqrt(T_q · T_k); use as ceiling.
    P_norm_upper = max(P_norm_clean, float(np.sqrt(T_q * T_k)))

    g1_max_upper = 0.5  # Corollary 1 worst case across all attention rows

    L_upper = W_V_norm * (
        P_norm_upper + 2.0 * X_norm_upper * X_norm_upper * A_norm * g1_max_upper
    )
    return {
        "L_upper": float(L_upper),
        "L_clean": float(
            W_V_norm
            * (
                P_norm_clean
                + 2.0
                * X_norm_clean
                * X_norm_clean
                * A_norm
                * softmax_jacobian_g1_max(P_arr)
            )
        ),
        "components": {
            "W_V_norm": W_V_norm,
            "A_norm": A_norm,
            "X_norm_clean": X_norm_clean,
            "X_norm_upper": X_norm_upper,
            "P_norm_clean": P_norm_clean,
            "P_norm_upper": P_norm_upper,
            "g1_max_clean": softmax_jacobian_g1_max(P_arr),
            "g1_max_upper": g1_max_upper,
            "delta_l2": float(delta_l2),
        },
    }


def emit_attention_lipschitz_smt2_block(
    name: str,
    L_upper: float,
    delta_l2_upper: float,
    output_dim: int = 1,
) -> str:
    """Emit a portable QF_LRA SMT-LIB2 block representing the constraint
    ``‖attn_out_perturbation‖_2 ≤ L_upper · delta_l2_upper`` for a named
    attention sub-output.

    The block declares ``{name}_perturb_norm`` as a Real bounded by
    ``[0, L_upper * delta_l2_upper]``.  Cert authors compose this with the
    Headline-14-style ratio_corollary cert by using the perturbation norm
    to widen the score interval at the certified head.

    Returns SMT-LIB2 text without a check-sat — splice into a larger cert.
    """
    bound = float(L_upper) * float(delta_l2_upper)

    def _num(v: float) -> str:
        s = f"{v:.18f}"
        return f"(- {s[1:]})" if v < 0 else s

    return (
        f"; --- Attention-block Lipschitz bound (Theorem 3, arxiv:2507.07814) ---\n"
        f"; {name}: ‖J_Attn‖_2 ≤ L_upper = {L_upper:.6e}\n"
        f"; ‖δ_in‖_2 ≤ {delta_l2_upper:.6e}\n"
        f"; ⇒ ‖attn_out_perturbation‖_2 ≤ {bound:.6e}\n"
        f"(declare-const {name}_perturb_norm Real)\n"
        f"(assert (>= {name}_perturb_norm 0.0))\n"
        f"(assert (<= {name}_perturb_norm {_num(bound)}))\n"
    )


__all__ = [
    "SafetyCertificate",
    "eml_formula_to_z3",
    "certify_linear_threshold_safe",
    "find_min_norm_witness",
    "emit_smtlib2",
    "eml_tree_to_smt2",
    "eml_tree_to_smt2_intervals",
    "EML_AXIOMS_SMT2",
    "EML_LEMMAS",
    "with_lemmas",
    # Attention-block Lipschitz primitive (arxiv:2507.07814)
    "softmax_jacobian_g1",
    "softmax_jacobian_g1_max",
    "attention_block_lipschitz_clean",
    "attention_block_lipschitz_interval",
    "emit_attention_lipschitz_smt2_block",
]


# ─────────────────────────────────────────────────────────────────────
# H23a — Raw-weight concentration cert (QF_LRA, no axiomatized Exp/Ln)
# Companion to V3 softmax cert (_cert_v3.build_cert_text_v3); used for
# Gated DeltaNet / linear-attention layers where weights are signed and
# NOT softmax-normalized.
# ─────────────────────────────────────────────────────────────────────


def emit_raw_weight_concentration_cert(
    abs_a_obs,
    target_idx: int,
    tau: float,
    rho_log: float,
    head_label: str = "",
    exclude_from_sum=None,
) -> str:
    """Cert: abs(a_target) > tau * sum_{j∉excluded} abs(a_j) under
    multiplicative box on each |a_j|.

    QF_LRA, decidable in polynomial time. Each |a_j| is declared as a
    non-negative Real bounded by [|a_j_obs| * exp(-rho_log),
    |a_j_obs| * exp(+rho_log)]; the cert asserts the negation of the
    SAFE claim and (via solver) returns UNSAT iff the claim holds for
    all admissible |a_j| in the box.

    Args:
        abs_a_obs: list of T non-negative floats - observed |a[last_q, j]|
        target_idx: int in [0, T) - the cert's target key position
        tau: float in (0, 1) - concentration threshold (e.g. 0.95)
        rho_log: float >= 0 - log-multiplicative perturbation budget
        head_label: optional string for the cert title
        exclude_from_sum: iterable of int positions to OMIT from the
            comparison Σ. Target is always excluded automatically. Use
            for degenerate positions like BOS (j=0) and self (j=last_q),
            esp. for Gated DeltaNet where self-contribution magnitude
            can dominate Σ even when target genuinely concentrates over
            PRIOR positions only.

    Returns:
        Self-contained SMT-LIB2 text ending with `(check-sat)`. UNSAT
        means the SAFE claim holds (target dominates by tau over all
        admissible perturbations).
    """
    if not (0.0 < tau < 1.0):
        raise ValueError(f"tau must be in (0, 1), got {tau!r}")
    if rho_log < 0.0:
        raise ValueError(f"rho_log must be >= 0, got {rho_log!r}")
    if not (0 <= target_idx < len(abs_a_obs)):
        raise ValueError(f"target_idx={target_idx} out of range [0, {len(abs_a_obs)})")
    for j, v in enumerate(abs_a_obs):
        if v < 0:
            raise ValueError(f"abs_a_obs[{j}]={v} must be non-negative")

    import math as _math

    T = len(abs_a_obs)
    decl_lines = []
    bound_lines = []
    box_factor = _math.exp(rho_log)
    for j in range(T):
        lo = abs_a_obs[j] / box_factor
        hi = abs_a_obs[j] * box_factor
        decl_lines.append(f"(declare-const abs_a_{j} Real)")
        bound_lines.append(f"(assert (>= abs_a_{j} 0.0))")
        bound_lines.append(f"(assert (>= abs_a_{j} {lo:.18f}))")
        bound_lines.append(f"(assert (<= abs_a_{j} {hi:.18f}))")

    excluded = set(exclude_from_sum) if exclude_from_sum else set()
    excluded.add(target_idx)  # target excluded from Σ_others by definition
    sum_terms = [f"abs_a_{j}" for j in range(T) if j not in excluded]
    if not sum_terms:
        sum_expr = "0.0"
    elif len(sum_terms) == 1:
        sum_expr = sum_terms[0]
    else:
        sum_expr = "(+ " + " ".join(sum_terms) + ")"
    safe_claim = f"(> abs_a_{target_idx} (* {tau:.18f} {sum_expr}))"
    neg_safe = f"(assert (not {safe_claim}))"

    excl_others = sorted(excluded - {target_idx})
    excl_desc = f" (Σ excludes target + {excl_others})" if excl_others else ""
    title = (
        f"H23a raw-weight concentration cert"
        + (f" {head_label}: " if head_label else ": ")
        + f"|a_target={target_idx}| > {tau:.4f} * Σ_others |a_j|"
        + excl_desc
    )
    text = (
        f"; {title}\n"
        f";   rho_log = {rho_log:.4f}  (multiplicative box: x{box_factor:.4f})\n"
        "(set-logic QF_LRA)\n"
        + "\n".join(decl_lines)
        + "\n"
        + "\n".join(bound_lines)
        + "\n"
        + neg_safe
        + "\n(check-sat)\n"
    )
    return text
