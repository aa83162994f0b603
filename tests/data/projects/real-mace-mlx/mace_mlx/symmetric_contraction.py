"""Symmetric contraction for MACE body-order correlations.

MLX implementation matching MACE's SymmetricContraction module.
Uses precomputed U matrices (from CG coefficients) to contract
node features into body-order invariants/equivariants.

Performance: The main (nu=correlation) contraction exploits the ~99.5%
sparsity of the U tensor via an (i,k)-row-compressed bilinear form: U has
only a few hundred nonzero (i, k) index pairs, so

    out[b,c,p] = sum_r U_rows[r,p] * f[b,c,i_r] * W[b,c,k_r]

is evaluated as two thin selector GEMMs (constant 0/1 matrices), one
aligned elementwise multiply, and one dense GEMM over the compressed row
dimension. Everything is GEMM + elementwise, so autograd's VJPs are
transposed GEMMs (no gather/scatter), and the huge dense
O(batch * features * prefix * i) intermediate is never materialized:
~2.7x faster fwd+bwd and ~4x lower peak memory per contraction on Apple
Silicon versus the dense weights-first decomposition, which is kept as
the fallback (and for the lower-order steps, where it is already cheap).

Reference: Batatia et al., MACE: Higher Order Equivariant Message Passing
Neural Networks for Fast and Accurate Force Fields, Eq. 10 and 11.
"""

from __future__ import annotations

import math

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from mace_mlx.clebsch_gordan import U_matrix_real
from mace_mlx.irreps import Irrep, Irreps

ALPHABET = ["w", "x", "v", "n", "z", "r", "t", "y", "u", "o", "p", "s"]

# --- Fused Metal kernels for the sparse-main X construction (GPU only) ----
# X[b,c,r] = f[b,c,i_r] * W[b,c,k_r] as one dual-gather+multiply kernel
# instead of two selector GEMMs + multiply (three materializations).
# Backward: df/dW as separate CSR-grouped kernels (no atomics); the dW
# kernel is a dead node under lazy eval for force-only workloads.
# The kernel objects are module-level; template ints specialize per shape.

_SCX_FWD_SRC = """
    uint elem = thread_position_in_grid.x;      // bc * NROW + r
    uint r = elem % NROW;
    uint bc = elem / NROW;
    X[elem] = (T)((float)f[bc * IDIM + idx_i[r]] * (float)w[bc * KDIM + idx_k[r]]);
"""

_SCX_DF_SRC = """
    uint elem = thread_position_in_grid.x;      // bc * IDIM + i
    uint i = elem % IDIM;
    uint bc = elem / IDIM;
    float acc = 0.0f;
    for (uint s = starts_i[i]; s < starts_i[i + 1]; ++s) {
        uint r = rows_by_i[s];
        acc += (float)dX[bc * NROW + r] * (float)w[bc * KDIM + idx_k[r]];
    }
    df[elem] = (T)acc;
"""

_SCX_DW_SRC = """
    uint elem = thread_position_in_grid.x;      // bc * KDIM + k
    uint k = elem % KDIM;
    uint bc = elem / KDIM;
    float acc = 0.0f;
    for (uint s = starts_k[k]; s < starts_k[k + 1]; ++s) {
        uint r = rows_by_k[s];
        acc += (float)dX[bc * NROW + r] * (float)f[bc * IDIM + idx_i[r]];
    }
    dw[elem] = (T)acc;
"""

_scx_k_fwd = mx.fast.metal_kernel(
    name="scx_fused_fwd", input_names=["f", "w", "idx_i", "idx_k"],
    output_names=["X"], source=_SCX_FWD_SRC,
)
_scx_k_df = mx.fast.metal_kernel(
    name="scx_fused_df",
    input_names=["dX", "w", "idx_k", "rows_by_i", "starts_i"],
    output_names=["df"], source=_SCX_DF_SRC,
)
_scx_k_dw = mx.fast.metal_kernel(
    name="scx_fused_dw",
    input_names=["dX", "f", "idx_i", "rows_by_k", "starts_k"],
    output_names=["dw"], source=_SCX_DW_SRC,
)

_SCX_TG = (256, 1, 1)


def _build_einsum_strings(
    correlation: int, ir_out_lmax: int
) -> tuple[str, list[tuple[str, str]]]:
    """Build einsum equation strings for each contraction step.

    Returns the main (highest-nu) equation and a list of
    (weighting_eq, features_eq) for lower nu values.
    """
    min_l = min(ir_out_lmax, 1)

    # Highest correlation (main equation)
    prefix = [ALPHABET[j] for j in range(correlation + min_l - 1)]
    main_eq = "".join(prefix) + "ik,ekc,bci,be->bc" + "".join(prefix)

    lower_eqs = []
    for i in range(correlation - 1, 0, -1):
        # Weighting equation
        prefix_w = [ALPHABET[j] for j in range(i + min_l)]
        weighting_eq = "".join(prefix_w) + "k,ekc,be->bc" + "".join(prefix_w)

        # Features equation
        prefix_f = [ALPHABET[j] for j in range(i - 1 + min_l)]
        features_eq = "bc" + "".join(prefix_f) + "i,bci->bc" + "".join(prefix_f)

        lower_eqs.append((weighting_eq, features_eq))

    return main_eq, lower_eqs


class Contraction(nn.Module):
    """Single contraction for one output irrep.

    Implements the recursive contraction using precomputed U matrices
    and learnable element-dependent weights.

    The main (nu=correlation) step exploits U's sparsity: U has only nrow
    nonzero (i, k) index pairs (~30% of i*k for real MACE models, with
    ~99.5% of U's entries zero overall), so

        out[b,c,p] = sum_r U_rows[r,p] * f[b,c,i_r] * W_sel[b,c,k_r]

    is computed as X = (f @ SelI) * (W_sel @ SelK) followed by X @ U_rows,
    where SelI/SelK are constant 0/1 selector matrices. Using selector
    GEMMs instead of mx.take keeps autograd's VJPs as transposed GEMMs
    (mx.take's VJP is a slow scatter-add), and the dense
    (b, c, prefix, i) intermediate WU is never materialized.

    When the sparse path does not apply (all-zero U or insufficient
    sparsity), the dense "weights-first" matmul decomposition is used:

    Original main einsum: "...ik,ekc,bci,be->bc..."
    Weights-first decomposition:
      1. W_sel = onehot @ W_reshaped          -- select weights by element
      2. WU = W_sel @ U_wf                    -- contract k: (b,c,k) @ (k,prefix*i)
      3. result = WU_reshaped @ feat_col      -- contract i: (b,c,prefix,i) @ (b,c,i,1)

    The lower-order (nu < correlation) steps always use the dense form:
    their U matrices are small and the dense matmuls are already cheap.

    For correlation <= 4 (the common MACE configurations), an unrolled fast
    path eliminates the Python loop and per-iteration method call overhead.
    Pre-transposed weight reshape matrices avoid a transpose per iteration.
    """

    def __init__(
        self,
        irreps_in: Irreps,
        ir_out: Irrep,
        correlation: int,
        num_elements: int,
    ):
        super().__init__()
        self.num_features = irreps_in.count(Irrep("0e"))
        self.coupling_irreps = Irreps(
            [(1, mulir.ir) for mulir in irreps_in]
        )
        self.correlation = correlation
        self.ir_out = ir_out
        self.num_elements = num_elements

        ir_out_irreps = Irreps([(1, ir_out)])

        # Precompute U matrices and build einsum equations
        self._u_matrices = {}
        self._path_weights = []  # whether each nu has nonzero U

        # Precomputed U matrix reshapes for weights-first matmul decomposition
        self._u_main_wf = None  # (k, prefix*i) for W-first main einsum
        self._u_main_prefix_shape = None
        self._u_main_i_dim = 0
        self._u_main_k_dim = 0
        self._u_lower_2d = []  # (prefix, k) for weight einsums
        self._u_lower_prefix_shapes = []

        for nu in range(1, correlation + 1):
            U_list = U_matrix_real(
                irreps_in=self.coupling_irreps,
                irreps_out=ir_out_irreps,
                correlation=nu,
            )
            U_np = U_list[-1]  # Last element is the tensor
            self._path_weights.append(np.any(np.abs(U_np) > 1e-15))
            self._u_matrices[nu] = mx.array(U_np, dtype=mx.float32)

        # Build einsum strings (kept for reference/testing)
        self._main_eq, self._lower_eqs = _build_einsum_strings(
            correlation, ir_out.l
        )

        # Precompute U matrix reshapes for the main einsum.
        # U matrices are constants (CG-derived), so stop_gradient prevents
        # autograd from tracking unnecessary backward computation through them.
        U_main = self._u_matrices[correlation]
        u_shape = U_main.shape
        # Last two dims are (i, k), everything before is prefix
        self._u_main_prefix_shape = u_shape[:-2]
        self._u_main_prefix_size = math.prod(self._u_main_prefix_shape)
        i_dim = u_shape[-2]
        k_dim = u_shape[-1]
        self._u_main_i_dim = i_dim
        self._u_main_k_dim = k_dim

        # Weights-first U reshape: move k to front, flatten to (k, prefix*i)
        # Original U shape: (*prefix, i, k)
        # Step: move k to front -> (k, *prefix, i) -> reshape to (k, prefix*i)
        U_wf = mx.moveaxis(U_main, -1, 0)  # (k, *prefix, i)
        self._u_main_wf = mx.stop_gradient(
            U_wf.reshape(k_dim, self._u_main_prefix_size * i_dim)
        )

        # Precompute U reshapes for lower-order weight einsums
        for nu in range(correlation - 1, 0, -1):
            U_lower = self._u_matrices[nu]
            u_shape_l = U_lower.shape
            # Last dim is k, everything before is prefix
            prefix_shape_l = u_shape_l[:-1]
            prefix_size_l = math.prod(prefix_shape_l)
            k_dim_l = u_shape_l[-1]
            U_2d_l = mx.stop_gradient(U_lower.reshape(prefix_size_l, k_dim_l))  # (prefix, k)
            self._u_lower_2d.append(U_2d_l)
            self._u_lower_prefix_shapes.append(prefix_shape_l)

        # Create weight parameters
        # weights_max: for the highest correlation order
        num_params_max = self._u_matrices[correlation].shape[-1]
        self.weights_max = mx.random.normal(
            shape=(num_elements, num_params_max, self.num_features)
        ) / num_params_max

        # weights: for lower correlation orders (stored in reverse order:
        # weights[0] corresponds to nu=correlation-1, etc.)
        self.weights = []
        for i, nu in enumerate(range(correlation - 1, 0, -1)):
            num_params = self._u_matrices[nu].shape[-1]
            w = mx.random.normal(
                shape=(num_elements, num_params, self.num_features)
            ) / num_params
            self.weights.append(w)

        # Zero out weights for correlation orders with zero U matrices
        # _path_weights[nu-1] tells whether nu has nonzero paths
        # _path_weights is indexed 0..correlation-1 for nu=1..correlation
        if not self._path_weights[correlation - 1]:
            self.weights_max = mx.zeros_like(self.weights_max)
        for i, nu in enumerate(range(correlation - 1, 0, -1)):
            if not self._path_weights[nu - 1]:
                self.weights[i] = mx.zeros_like(self.weights[i])

        # --- Unrolled fast path setup for correlation <= 4 ---
        # Eliminates the Python loop and per-iteration method call overhead.
        # Pre-transpose U matrices to (k, prefix) so we avoid U_2d.T each call.
        self._use_unrolled = correlation <= 4
        if self._use_unrolled:
            n_lower = correlation - 1
            self._u_lower_2d_t = [
                mx.stop_gradient(u.T) for u in self._u_lower_2d
            ]
            # Pre-compute per-iteration shape constants as plain Python ints
            self._unrolled_lower_prefix_sizes = []
            self._unrolled_lower_i_dims = []
            for idx in range(n_lower):
                pshape = self._u_lower_prefix_shapes[idx]
                self._unrolled_lower_prefix_sizes.append(math.prod(pshape))
                self._unrolled_lower_i_dims.append(pshape[-1])
            self._unrolled_n_lower = n_lower

            # Weight cache state (lazy recompute on id change)
            self._W_max_ck = None
            self._W_lower_ck = None
            self._cached_wmax_id = None
            self._cached_wlower_ids = None

        # --- Sparse main contraction setup ---
        self._use_sparse_main = False
        self._metal_scx = None
        self._use_sparse_lower = False
        if self._use_unrolled:
            self._setup_sparse_main()
            if self._use_sparse_main:
                self._setup_metal_scx()
            self._setup_sparse_lower()

    def _setup_sparse_main(self) -> None:
        """Precompute the (i,k)-row-compressed form of the main U tensor.

        Extracts the nonzero (i, k) index pairs of U (viewed as
        (prefix, i, k)) and builds three constants:
          SelI (i_dim, nrow), SelK (k_dim, nrow) -- 0/1 selector matrices
          U_rows (nrow, prefix)                  -- U values at those pairs
        Enables the sparse path only when U is sparse enough for the
        bilinear form to win over the dense GEMM.
        """
        U2 = np.array(self._u_matrices[self.correlation]).reshape(
            self._u_main_prefix_size, self._u_main_i_dim, self._u_main_k_dim
        )
        i_r, k_r = np.nonzero(np.abs(U2).max(axis=0) > 1e-12)
        nrow = len(i_r)
        # Fall back to the dense path when U is all zero (nrow == 0) or when
        # the expand GEMMs + multiply would not pay for themselves (real
        # MACE U tensors sit at ~30% nonzero rows).
        if nrow == 0 or nrow > 0.5 * self._u_main_i_dim * self._u_main_k_dim:
            return
        sel_i = np.zeros((self._u_main_i_dim, nrow), dtype=np.float32)
        sel_i[i_r, np.arange(nrow)] = 1.0
        sel_k = np.zeros((self._u_main_k_dim, nrow), dtype=np.float32)
        sel_k[k_r, np.arange(nrow)] = 1.0
        u_rows = U2[:, i_r, k_r].T.astype(np.float32)  # (nrow, prefix)
        self._sp_sel_i = mx.stop_gradient(mx.array(sel_i))
        self._sp_sel_k = mx.stop_gradient(mx.array(sel_k))
        self._sp_u_rows = mx.stop_gradient(mx.array(u_rows))
        # Materialize now: mx.compile can read garbage from lazy arrays
        # captured by closure when the trace happens before their first
        # eval (MLX 0.31.2, see docs/prototypes/sparse_sc_results.md).
        mx.eval(self._sp_sel_i, self._sp_sel_k, self._sp_u_rows)
        self._use_sparse_main = True

    def _setup_metal_scx(self) -> None:
        """Fused Metal kernel form of the X construction (GPU fast path).

        Derives the (i_r, k_r) index tables and CSR groupings from the
        production SelI/SelK selector matrices and builds a custom_function
        (f, W) -> X with hand-written df/dW kernels. Falls back to the
        selector-GEMM form off-GPU (dispatch checks the device at call
        time; the constants here are integer tables, unaffected by dtype
        conversion).
        """
        sel_i = np.array(self._sp_sel_i)  # (i_dim, nrow)
        sel_k = np.array(self._sp_sel_k)  # (k_dim, nrow)
        i_dim, nrow = sel_i.shape
        k_dim = sel_k.shape[0]
        i_of_r = sel_i.argmax(axis=0).astype(np.uint32)
        k_of_r = sel_k.argmax(axis=0).astype(np.uint32)

        def csr(idx, dim):
            order = np.argsort(idx, kind="stable").astype(np.uint32)
            starts = np.searchsorted(idx[order], np.arange(dim + 1)).astype(
                np.uint32
            )
            return mx.array(order), mx.array(starts)

        idx_i = mx.array(i_of_r)
        idx_k = mx.array(k_of_r)
        rows_by_i, starts_i = csr(i_of_r, i_dim)
        rows_by_k, starts_k = csr(k_of_r, k_dim)
        mx.eval(idx_i, idx_k, rows_by_i, starts_i, rows_by_k, starts_k)

        tmpl = [("NROW", nrow), ("IDIM", i_dim), ("KDIM", k_dim)]

        @mx.custom_function
        def fused_x(f, w):
            b, c = f.shape[0], f.shape[1]
            return _scx_k_fwd(
                inputs=[f, w, idx_i, idx_k],
                template=[("T", f.dtype)] + tmpl,
                grid=(b * c * nrow, 1, 1), threadgroup=_SCX_TG,
                output_shapes=[(b, c, nrow)], output_dtypes=[f.dtype],
            )[0]

        @fused_x.vjp
        def _fused_x_vjp(primals, cotan, output):
            f, w = primals
            b, c = f.shape[0], f.shape[1]
            df = _scx_k_df(
                inputs=[cotan, w, idx_k, rows_by_i, starts_i],
                template=[("T", f.dtype)] + tmpl,
                grid=(b * c * i_dim, 1, 1), threadgroup=_SCX_TG,
                output_shapes=[(b, c, i_dim)], output_dtypes=[f.dtype],
            )[0]
            dw = _scx_k_dw(
                inputs=[cotan, f, idx_i, rows_by_k, starts_k],
                template=[("T", f.dtype)] + tmpl,
                grid=(b * c * k_dim, 1, 1), threadgroup=_SCX_TG,
                output_shapes=[(b, c, k_dim)], output_dtypes=[f.dtype],
            )[0]
            return df, dw

        self._metal_scx = fused_x

    def _setup_sparse_lower(self) -> None:
        """Distributive rewrite of the lower-order steps.

        Each iteration computes (W @ U_t + out)_4d @ f. By distributivity
        this splits into RC(W, f) + out_4d @ f, where the RC term is the
        same row-compressed bilinear form as the sparse main step, built
        over U_lower's nonzero (k, i) pairs (real MACE lower U tensors
        have only ~1-24 such pairs). This removes the (b, c, prefix)
        c_tensor materialization and moves the add from prefix down to
        prefix_outer. Enabled only when every iteration is sparse enough.
        """
        if self._unrolled_n_lower == 0:
            return
        sel_i_l, sel_k_l, u_rows_l, meta = [], [], [], []
        for idx in range(self._unrolled_n_lower):
            U2t = np.array(self._u_lower_2d_t[idx])  # (k, prefix)
            k_l = U2t.shape[0]
            i_d = self._unrolled_lower_i_dims[idx]
            po = self._unrolled_lower_prefix_sizes[idx] // i_d
            U3 = U2t.reshape(k_l, po, i_d)
            k_r, i_r = np.nonzero(np.abs(U3).max(axis=1) > 1e-12)
            nnz = len(k_r)
            if nnz == 0 or nnz > 0.5 * k_l * i_d:
                return  # all-zero or not sparse enough: keep dense chain
            sel_k = np.zeros((k_l, nnz), dtype=np.float32)
            sel_k[k_r, np.arange(nnz)] = 1.0
            sel_i = np.zeros((i_d, nnz), dtype=np.float32)
            sel_i[i_r, np.arange(nnz)] = 1.0
            u_rows = U3[k_r, :, i_r].astype(np.float32)  # (nnz, po)
            sel_i_l.append(mx.stop_gradient(mx.array(sel_i)))
            sel_k_l.append(mx.stop_gradient(mx.array(sel_k)))
            u_rows_l.append(mx.stop_gradient(mx.array(u_rows)))
            meta.append((po, i_d))
        mx.eval(*sel_i_l, *sel_k_l, *u_rows_l)  # lazy-capture defense
        # Parallel lists (not tuples) so dtype conversion reaches them.
        self._sp_lower_sel_i = sel_i_l
        self._sp_lower_sel_k = sel_k_l
        self._sp_lower_u_rows = u_rows_l
        self._sp_lower_meta = meta
        self._use_sparse_lower = True

    def _ensure_weight_caches(self):
        """Lazily recompute pre-transposed+reshaped weight caches when weights change."""
        wmax_id = id(self.weights_max)
        wlower_ids = tuple(id(w) for w in self.weights)
        if wmax_id == self._cached_wmax_id and wlower_ids == self._cached_wlower_ids:
            return
        e_m, k_m, c_m = self.weights_max.shape
        self._W_max_ck = mx.transpose(self.weights_max, axes=(0, 2, 1)).reshape(
            e_m, c_m * k_m
        )
        self._W_lower_ck = []
        for idx in range(self._unrolled_n_lower):
            W_i = self.weights[idx]
            e_i, k_i, c_i = W_i.shape
            self._W_lower_ck.append(
                mx.transpose(W_i, axes=(0, 2, 1)).reshape(e_i, c_i * k_i)
            )
        self._cached_wmax_id = wmax_id
        self._cached_wlower_ids = wlower_ids

    def set_dtype(self, dtype, predicate=None):
        """Override to also convert U matrices (private attrs excluded by default)."""
        super().set_dtype(dtype, predicate)
        # Convert precomputed U matrices to match parameter dtype
        if self._u_main_wf is not None and self._u_main_wf.dtype != dtype:
            self._u_main_wf = self._u_main_wf.astype(dtype)
        self._u_lower_2d = [u.astype(dtype) for u in self._u_lower_2d]
        for nu, u in self._u_matrices.items():
            self._u_matrices[nu] = u.astype(dtype)
        if self._use_unrolled:
            self._u_lower_2d_t = [u.astype(dtype) for u in self._u_lower_2d_t]
            # Invalidate weight caches so they are recomputed on next call
            self._cached_wmax_id = None
        if self._use_sparse_main:
            self._sp_sel_i = self._sp_sel_i.astype(dtype)
            self._sp_sel_k = self._sp_sel_k.astype(dtype)
            self._sp_u_rows = self._sp_u_rows.astype(dtype)
        if self._use_sparse_lower:
            self._sp_lower_sel_i = [u.astype(dtype) for u in self._sp_lower_sel_i]
            self._sp_lower_sel_k = [u.astype(dtype) for u in self._sp_lower_sel_k]
            self._sp_lower_u_rows = [
                u.astype(dtype) for u in self._sp_lower_u_rows
            ]

    def __call__(self, features: mx.array, element_onehot: mx.array) -> mx.array:
        """Forward pass: recursive contraction using matmul decomposition.

        Args:
            features: (batch, num_features, coupling_dim) node features
            element_onehot: (batch, num_elements) one-hot element encoding

        Returns:
            (batch, num_features * ir_out.dim) contracted features
        """
        if self._use_unrolled:
            return self._call_unrolled(features, element_onehot)
        return self._call_loop(features, element_onehot)

    def _call_loop(self, features: mx.array, element_onehot: mx.array) -> mx.array:
        """Fallback loop-based forward pass for correlation > 4."""
        b, num_c, coupling_i = features.shape

        out = self._contract_main(features, element_onehot, b, num_c)

        for i in range(len(self._lower_eqs)):
            c_tensor = self._contract_weight(i, element_onehot, b, num_c)
            c_tensor = c_tensor + out
            out = self._contract_features(c_tensor, features, b, num_c)

        return out.reshape(b, -1)

    def _call_unrolled(self, features: mx.array, element_onehot: mx.array) -> mx.array:
        """Optimized path with pre-transposed U matrices and merged weight selection.

        Fast path for correlation <= 4. Each iteration:
          1. Select weights by element: (b, e) @ (e, c*k) -> (b, c, k)
          2. Contract with U:           (b, c, k) @ (k, prefix) -> (b, c, prefix)
          3. Add accumulated out
          4. Contract with features:    (b, c, prefix', i) @ (b, c, i, 1)

        Uses pre-transposed U matrices and pre-computed shapes to minimize
        per-call overhead. Weight selection produces (b, c, k) directly by
        reshaping W as (e, c, k) -> (e, c*k) so no post-transpose is needed.
        """
        self._ensure_weight_caches()
        b, num_c, coupling_i = features.shape
        n_lower = self._unrolled_n_lower

        # --- Main contraction (highest correlation order) ---
        # Use pre-transposed+reshaped weights: (e, c*k)
        # (b,e) @ (e,c*k) -> (b,c*k) -> (b,c,k)
        k_m = self.weights_max.shape[1]
        W_sel_ck = (element_onehot @ self._W_max_ck).reshape(b, num_c, k_m)

        feat_col = features[:, :, :, None]  # computed once, reused below

        if self._use_sparse_main:
            # Row-compressed bilinear form over U's nonzero (i,k) pairs:
            # X[b,c,r] = f[b,c,i_r] * W[b,c,k_r], out = X @ U_rows.
            if (
                self._metal_scx is not None
                and mx.default_device().type == mx.DeviceType.gpu
            ):
                X = self._metal_scx(features, W_sel_ck)
            else:
                X = (features @ self._sp_sel_i) * (W_sel_ck @ self._sp_sel_k)
            out = X @ self._sp_u_rows  # (b,c,prefix)
        else:
            # Dense fallback: contract k with U, then i with features.
            prefix_size = self._u_main_prefix_size
            i_dim = self._u_main_i_dim
            WU = (W_sel_ck @ self._u_main_wf).reshape(
                b, num_c, prefix_size, i_dim
            )
            out = (WU @ feat_col).reshape(b, num_c, prefix_size)

        # --- Lower-order iterations (unrolled) ---
        if self._use_sparse_lower:
            # Distributive form: (W@U_t + out)_4d @ f = RC(W,f) + out_4d @ f
            # with the RC term row-compressed over U_lower's (k,i) pairs.
            # No (b,c,prefix) c_tensor is materialized and the add happens
            # at prefix_outer instead of prefix.
            for idx in range(n_lower):
                k_i = self.weights[idx].shape[1]
                W_sel_i = (element_onehot @ self._W_lower_ck[idx]).reshape(
                    b, num_c, k_i
                )
                po, i_d = self._sp_lower_meta[idx]
                Xl = (features @ self._sp_lower_sel_i[idx]) * (
                    W_sel_i @ self._sp_lower_sel_k[idx]
                )
                rc = Xl @ self._sp_lower_u_rows[idx]  # (b,c,po)
                coup = (out.reshape(b, num_c, po, i_d) @ feat_col).reshape(
                    b, num_c, po
                )
                out = rc + coup
            return out.reshape(b, -1)

        u_lower_t = self._u_lower_2d_t
        lower_prefix_sizes = self._unrolled_lower_prefix_sizes
        lower_i_dims = self._unrolled_lower_i_dims

        for idx in range(n_lower):
            k_i = self.weights[idx].shape[1]

            # Select weights using pre-transposed: (b,e) @ (e, c*k) -> (b, c, k)
            W_sel_i = (element_onehot @ self._W_lower_ck[idx]).reshape(b, num_c, k_i)

            # Contract with U: (b,c,k) @ (k, prefix) -> (b,c,prefix)
            c_tensor = W_sel_i @ u_lower_t[idx]

            # Add accumulated result
            c_tensor = c_tensor + out

            # Contract with features:
            # (b,c,prefix_outer,i_d) @ (b,c,i_d,1) -> (b,c,prefix_outer)
            i_d = lower_i_dims[idx]
            prefix_outer = lower_prefix_sizes[idx] // i_d
            c_4d = c_tensor.reshape(b, num_c, prefix_outer, i_d)
            out = (c_4d @ feat_col).reshape(b, num_c, prefix_outer)

        return out.reshape(b, -1)

    def _select_weights(
        self, W: mx.array, element_onehot: mx.array, b: int,
    ) -> mx.array:
        """Select/blend weights by element via matmul.

        Computes W_sel[b, k, c] = sum_e element_onehot[b, e] * W[e, k, c]
        using a single matmul: (b, e) @ (e, k*c) -> (b, k*c) -> (b, k, c).
        """
        e, k, c = W.shape
        W_flat = W.reshape(e, k * c)  # (e, k*c)
        W_sel = (element_onehot @ W_flat).reshape(b, k, c)  # (b, k, c)
        return W_sel

    def _contract_main(
        self, features: mx.array, element_onehot: mx.array,
        b: int, num_c: int,
    ) -> mx.array:
        """Main einsum via weights-first matmul decomposition.

        Original: einsum("...ik,ekc,bci,be->bc...", U, W, features, onehot)
        where U has shape (*prefix, i, k).

        Weights-first decomposition (contracts k before i to reduce
        intermediate tensor size from b*c*prefix*k to b*c*prefix*i):
          1. W_sel = onehot @ W_reshaped        -- (b, c, k) via matmul
          2. WU = W_sel @ U_wf                  -- (b, c, prefix*i) via matmul
          3. result = WU_reshaped @ feat_col    -- (b, c, prefix, 1) via matmul
        """
        prefix_shape = self._u_main_prefix_shape
        prefix_size = self._u_main_prefix_size
        i_dim = self._u_main_i_dim
        k_dim = self._u_main_k_dim

        # 1. Select weights by element: (b, k, c) -> (b, c, k)
        W_sel = self._select_weights(self.weights_max, element_onehot, b)
        W_perm = mx.transpose(W_sel, axes=(0, 2, 1))  # (b, c, k)

        # 2. Contract k with U: (b, c, k) @ (k, prefix*i) -> (b, c, prefix*i)
        #    Then reshape to (b, c, prefix, i) for the next matmul.
        WU = (W_perm @ self._u_main_wf).reshape(
            b, num_c, prefix_size, i_dim
        )

        # 3. Contract i with features:
        #    (b, c, prefix, i) @ (b, c, i, 1) -> (b, c, prefix, 1)
        feat_col = features[:, :, :, None]  # (b, c, i, 1)
        result = (WU @ feat_col).reshape(b, num_c, *prefix_shape)

        return result

    def _contract_weight(
        self, lower_idx: int, element_onehot: mx.array,
        b: int, num_c: int,
    ) -> mx.array:
        """Weight einsum decomposed into matmul.

        Original: einsum("...k,ekc,be->bc...", U, W, onehot)
        where U has shape (*prefix, k).

        Decomposition:
          1. W_sel = onehot @ W_reshaped        -- (b, k, c) via matmul
          2. result = W_sel_perm @ U_2d.T       -- (b, c, prefix) via matmul
        """
        U_2d = self._u_lower_2d[lower_idx]  # (prefix, k)
        prefix_shape = self._u_lower_prefix_shapes[lower_idx]
        W_lower = self.weights[lower_idx]

        # 1. Select weights by element
        W_sel = self._select_weights(W_lower, element_onehot, b)

        # 2. Contract: (b, c, k) @ (k, prefix) = (b, c, prefix)
        W_perm = mx.transpose(W_sel, axes=(0, 2, 1))  # (b, c, k)
        result = W_perm @ U_2d.T  # (b, c, prefix)
        result = result.reshape(b, num_c, *prefix_shape)

        return result

    @staticmethod
    def _contract_features(
        c_tensor: mx.array, features: mx.array,
        b: int, num_c: int,
    ) -> mx.array:
        """Feature einsum decomposed into batched matmul.

        Original: einsum("bc...i,bci->bc...", c_tensor, features)

        Keeps (b, c) separate to avoid creating huge b*c batch dimension,
        letting the GPU handle fewer, larger matmul tiles.
          (b, c, prefix, i) @ (b, c, i, 1) -> (b, c, prefix, 1)
        """
        prefix_shape = c_tensor.shape[2:-1]
        prefix_size = math.prod(prefix_shape)
        i_dim = c_tensor.shape[-1]

        c_4d = c_tensor.reshape(b, num_c, prefix_size, i_dim)  # (b, c, prefix, i)
        feat_4d = features[:, :, :, None]  # (b, c, i, 1)
        result = (c_4d @ feat_4d).reshape(b, num_c, *prefix_shape)

        return result


class SymmetricContraction(nn.Module):
    """MACE symmetric contraction for body-order correlation.

    For each output irrep, creates a Contraction sub-module that
    implements the multi-body correlation using precomputed U matrices.
    """

    def __init__(
        self,
        irreps_in: str | Irreps,
        irreps_out: str | Irreps,
        correlation: int,
        num_elements: int,
    ):
        super().__init__()
        self.irreps_in = Irreps(irreps_in)
        self.irreps_out = Irreps(irreps_out)
        self.correlation = correlation
        self.num_elements = num_elements

        self.contractions = []
        for mul, ir in self.irreps_out:
            self.contractions.append(
                Contraction(
                    irreps_in=self.irreps_in,
                    ir_out=ir,
                    correlation=correlation,
                    num_elements=num_elements,
                )
            )

        # Precompute metadata for __call__
        self._num_features = self.irreps_in.count(Irrep("0e"))
        coupling_irreps = Irreps([(1, mulir.ir) for mulir in self.irreps_in])
        self._coupling_dim = coupling_irreps.dim
        self._slices = self.irreps_in.slices
        self._ir_dims = [(mul, ir.dim) for mul, ir in self.irreps_in]

    def __call__(
        self, features: mx.array, element_onehot: mx.array
    ) -> mx.array:
        """Forward pass.

        Args:
            features: (num_atoms, irreps_in.dim) node features in irreps-major
                layout (all copies of each irrep block are contiguous).
                Internally reordered to feature-major layout and reshaped
                to (num_atoms, num_features, coupling_dim).
            element_onehot: (num_atoms, num_elements) one-hot element encoding.

        Returns:
            (num_atoms, irreps_out.dim) contracted features.
        """
        batch_size = features.shape[0]

        # Reorder from irreps-major to feature-major layout:
        # irreps-major: [f0_0e, f1_0e, ..., fN_0e, f0_1o_m-1, f0_1o_m0, ...]
        # feature-major: [f0_0e, f0_1o_m-1, f0_1o_m0, ..., f1_0e, f1_1o_m-1, ...]
        blocks = []
        slices = self._slices
        for idx, (mul, ir_dim) in enumerate(self._ir_dims):
            # Extract block: (batch, mul * ir_dim) -> (batch, mul, ir_dim)
            block = features[..., slices[idx]]
            block = block.reshape(batch_size, mul, ir_dim)
            blocks.append(block)

        # Stack along the coupling dimension: each block has (batch, mul, ir.dim)
        # We want (batch, mul, coupling_dim) by concatenating ir.dim parts
        x = mx.concatenate(blocks, axis=-1)  # (batch, num_features, coupling_dim)

        outs = [c(x, element_onehot) for c in self.contractions]
        return mx.concatenate(outs, axis=-1)
