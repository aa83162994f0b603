"""
Complex — main PETLS class.

This is the PyTorch-native replacement for petls::Complex (C++).
It stores a list of FilteredBoundaryMatrix objects and provides
get_L, get_up, get_down, spectra, and eigenpairs.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Hashable, List, Optional, Sequence, Tuple, cast

import numpy as np
import torch

from petls_pytorch._config import resolve_device, resolve_dtype
from petls_pytorch.core.filtered_boundary import FilteredBoundaryMatrix
from petls_pytorch.core.profile import Profile


_SPARSE_BLOCK_MAX_EIGENVALUES = 256
_SPARSE_LU_MAX_ROWS = 6_000
_SPARSE_LU_MAX_NNZ = 500_000
_SPARSE_LU_MAX_FILL_RATIO = 64.0
_SPARSE_LOBPCG_MAX_ITERATIONS = 200


@dataclass(frozen=True)
class _SparseEigenpairsResult:
    values: np.ndarray
    vectors: np.ndarray
    diagnostics: dict[str, Any]


class LaplacianSizeError(MemoryError):
    """Raised before a requested dense Laplacian would exceed its guard."""


class Complex:
    """
    Primary class for computing persistent Laplacian matrices and eigenvalues.

    Parameters
    ----------
    boundaries : list of np.ndarray or torch.Tensor, optional
        List of boundary matrices d_1, d_2, ..., d_N.
        Each should be a dense array or sparse matrix.
    filtrations : list of list of float, optional
        Filtration values per dimension. filtrations[dim] is a list of
        filtration values for simplices in dimension dim.
        Must satisfy len(filtrations) == len(boundaries) + 1.
        ``boundaries`` and ``filtrations`` must be supplied together unless a
        ``simplex_tree`` is provided to supply the omitted data.
    device : torch.device, optional
        Override global device.
    """

    def __init__(
        self,
        boundaries: Optional[List[Any]] = None,
        filtrations: Optional[List[List[float]]] = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | str | None = None,
        simplex_tree=None,
        eigs_algorithm: str | Callable = "eigvalsh",
        zero_atol: float = 1e-8,
        zero_rtol: float = 1e-7,
        max_matrix_rows: int | None = 12_000,
        max_matrix_bytes: int | None = 4_000_000_000,
        on_oversize: str = "raise",
        boundary_sign_convention: str = "python",
    ):
        self.device = resolve_device(device)
        self.dtype = resolve_dtype(dtype)
        if zero_atol < 0 or zero_rtol < 0:
            raise ValueError("zero_atol and zero_rtol must be non-negative")
        if max_matrix_rows is not None and max_matrix_rows < 1:
            raise ValueError("max_matrix_rows must be positive or None")
        if max_matrix_bytes is not None and max_matrix_bytes < 1:
            raise ValueError("max_matrix_bytes must be positive or None")
        if on_oversize not in {"raise", "homology_only"}:
            raise ValueError("on_oversize must be 'raise' or 'homology_only'")
        self.zero_atol = float(zero_atol)
        self.zero_rtol = float(zero_rtol)
        self.max_matrix_rows = max_matrix_rows
        self.max_matrix_bytes = max_matrix_bytes
        self.on_oversize = on_oversize
        self._verbose = False
        self._flipped = False
        self._logger = logging.getLogger(__name__)

        self.top_dim: int = 0
        self._boundary_top_dim: int = 0
        self.filtered_boundaries: List[FilteredBoundaryMatrix] = []
        self.profile = Profile(
            zero_atol=self.zero_atol,
            zero_rtol=self.zero_rtol,
            device=self.device,
        )
        self.simplex_tree: Any = None
        self.simplices_by_dimension: list[list[tuple[int, ...]]] = []
        self.simplex_filtrations: list[list[float]] = []
        self.simplex_to_index: list[dict[tuple[int, ...], int]] = []
        self.point_labels: list[Hashable] | None = None
        self.simplex_labels_by_dimension: list[list[tuple[Hashable, ...]]] | None = None
        self._persistence_computed = False

        self._eigs_algorithm: str | Callable = "eigvalsh"
        self._num_eigenvalues: int = 10
        self._eigenvalue_order: str = "SM"

        if simplex_tree is None and (boundaries is None) != (filtrations is None):
            raise ValueError("boundaries and filtrations must be provided together")

        if simplex_tree is not None:
            from petls_pytorch.utils.simplex_tree import simplex_tree_boundaries_filtrations

            # Boundary coordinates and persistence must describe one snapshot.
            simplex_tree = simplex_tree.copy()
            extracted = simplex_tree_boundaries_filtrations(
                simplex_tree,
                sign_convention=boundary_sign_convention,
                return_simplices=True,
            )
            extracted_boundaries, extracted_filtrations, simplices = extracted
            if boundaries is None:
                boundaries = extracted_boundaries
            if filtrations is None:
                filtrations = extracted_filtrations

        if boundaries is not None and filtrations is not None:
            self.set_boundaries_filtrations(boundaries, filtrations)
        else:
            # Empty complex — user will set later
            self.filtered_boundaries = []
            self.top_dim = 0
            self._boundary_top_dim = 0

        if simplex_tree is not None:
            self.simplex_tree = simplex_tree
            self.simplices_by_dimension = simplices
            self.simplex_to_index = [
                {simplex: index for index, simplex in enumerate(values)} for values in simplices
            ]

        self.set_eigs_algorithm(eigs_algorithm)

    @property
    def verbose(self) -> bool:
        return self._verbose

    @verbose.setter
    def verbose(self, value: bool) -> None:
        self._verbose = value

    @property
    def flipped(self) -> bool:
        return self._flipped

    @flipped.setter
    def flipped(self, value: bool) -> None:
        self._flipped = value

    def set_boundaries_filtrations(
        self,
        boundaries: List[Any],
        filtrations: List[List[float]],
    ) -> None:
        """
        Set boundary matrices and filtrations.

        boundaries[i] is d_{i+1} with shape (n_{i}, n_{i+1}).
        filtrations[i] is the filtration list for dimension i.

        A successful replacement discards the previous simplex tree, geometric
        labels, persistence state, and profiling history. Raw matrices do not
        identify simplices. Invalid replacement data leaves the object intact.
        """
        if len(filtrations) != len(boundaries) + 1:
            raise ValueError(
                f"len(filtrations)={len(filtrations)} must be len(boundaries)+1={len(boundaries) + 1}"
            )

        filtered_boundaries = []

        # d_0 placeholder aligns indexing with the original PETLS Complex, but
        # its metadata must contain every actual vertex birth (including
        # negative power-filtration values).
        vertex_filtrations = torch.tensor(filtrations[0], device=self.device, dtype=torch.float64)
        n_vertices = len(vertex_filtrations)
        with torch.sparse.check_sparse_tensor_invariants():
            dummy_mat = torch.sparse_coo_tensor(
                indices=torch.empty((2, 0), dtype=torch.long, device=self.device),
                values=torch.empty(0, dtype=self.dtype, device=self.device),
                size=(n_vertices, n_vertices),
            ).coalesce()
        dummy = FilteredBoundaryMatrix(
            matrix=dummy_mat,
            domain_filtrations=vertex_filtrations,
            range_filtrations=vertex_filtrations,
            device=self.device,
        )
        filtered_boundaries.append(dummy)

        for dim, (B, f_dom, f_rng) in enumerate(
            zip(boundaries, filtrations[1:], filtrations[:-1]), start=1
        ):
            B_t = self._ensure_sparse_tensor(B)
            domain_f = torch.tensor(f_dom, device=self.device, dtype=torch.float64)
            range_f = torch.tensor(f_rng, device=self.device, dtype=torch.float64)

            if B_t.shape[0] != len(f_rng):
                raise ValueError(
                    f"boundaries[{dim - 1}].shape[0]={B_t.shape[0]} != len(filtrations[{dim - 1}])={len(f_rng)}"
                )
            if B_t.shape[1] != len(f_dom):
                raise ValueError(
                    f"boundaries[{dim - 1}].shape[1]={B_t.shape[1]} != len(filtrations[{dim}])={len(f_dom)}"
                )

            fbm = FilteredBoundaryMatrix(
                matrix=B_t,
                domain_filtrations=domain_f,
                range_filtrations=range_f,
                device=self.device,
            )
            filtered_boundaries.append(fbm)

        self.filtered_boundaries = filtered_boundaries
        self._boundary_top_dim = len(boundaries)
        self.top_dim = self._boundary_top_dim
        self.simplex_tree = None
        self._persistence_computed = False
        self.simplices_by_dimension = []
        self.simplex_to_index = []
        self.simplex_filtrations = [list(map(float, values)) for values in filtrations]
        self.point_labels = None
        self.simplex_labels_by_dimension = None
        self.profile = Profile(
            zero_atol=self.zero_atol, zero_rtol=self.zero_rtol, device=self.device
        )

    def _ensure_sparse_tensor(self, x) -> torch.Tensor:
        """Convert numpy array, scipy sparse, or torch dense to torch sparse COO."""
        import scipy.sparse

        if isinstance(x, torch.Tensor):
            if x.layout == torch.sparse_coo:
                return x.coalesce().to(dtype=self.dtype)
            if x.layout == torch.sparse_csr:
                return cast(torch.Tensor, x.to(dtype=self.dtype).to_sparse_coo().coalesce())
            # Dense tensor -> COO
            return cast(torch.Tensor, x.to(dtype=self.dtype).to_sparse_coo())
        if isinstance(x, np.ndarray):
            return cast(torch.Tensor, torch.from_numpy(x).to(dtype=self.dtype).to_sparse_coo())
        if scipy.sparse.issparse(x):
            coo = x.tocoo()
            indices = torch.stack(
                [
                    torch.from_numpy(coo.row).long(),
                    torch.from_numpy(coo.col).long(),
                ]
            )
            values = torch.from_numpy(coo.data).to(dtype=self.dtype)
            return torch.sparse_coo_tensor(indices, values, size=coo.shape).coalesce()
        raise TypeError(f"Cannot convert type {type(x)} to sparse tensor")

    def set_eigs_algorithm(
        self,
        algorithm: str | Callable,
        num_eigenvalues: int = 10,
        eigenvalue_order: str = "SM",
    ) -> None:
        """Set eigenvalue solver.

        Parameters
        ----------
        algorithm : str or callable
            Solver name or callable that accepts a matrix and returns eigenvalues.
        num_eigenvalues : int, optional
            Number of eigenvalues for sparse solvers (default 10).
        eigenvalue_order : str, optional
            Which eigenvalues to target for sparse solvers (default "SM").
        """
        if not callable(algorithm) and algorithm not in {"eigvalsh", "sparse"}:
            raise ValueError("algorithm must be 'eigvalsh', 'sparse', or a callable")
        if num_eigenvalues < 1:
            raise ValueError("num_eigenvalues must be positive")
        if eigenvalue_order not in {"SM", "SA", "LM", "LA", "BE"}:
            raise ValueError("eigenvalue_order must be one of 'SM', 'SA', 'LM', 'LA', or 'BE'")
        self._eigs_algorithm = algorithm
        self._num_eigenvalues = num_eigenvalues
        self._eigenvalue_order = eigenvalue_order

    def _laplacian_rows(self, dim: int, scale: float) -> int:
        if dim < 0:
            raise ValueError("dim must be non-negative")
        if dim > self.top_dim or dim >= len(self.filtered_boundaries):
            return 0
        if dim == 0:
            if len(self.filtered_boundaries) == 1:
                return self.filtered_boundaries[0].index_of_filtration(True, scale) + 1
            return self.filtered_boundaries[1].index_of_filtration(False, scale) + 1
        return self.filtered_boundaries[dim].index_of_filtration(True, scale) + 1

    def estimate_laplacian(self, dim: int, a: float, b: float | None = None) -> dict[str, Any]:
        """Bound the largest individual dense construction matrix, not total RAM.

        Boundary storage is included conservatively even when a sparse Gram
        product may avoid it: the dense fallback must obey the same limit.
        Eigensolver workspace and simultaneous allocations are not estimated.
        """
        b = a if b is None else b
        if b < a:
            raise ValueError("b must be greater than or equal to a")
        rows = self._laplacian_rows(dim, a)
        intermediate_rows = rows
        boundary_elements = 0
        if rows and dim > 0:
            boundary = self.filtered_boundaries[dim]
            boundary_elements = (boundary.index_of_filtration(False, a) + 1) * rows
        if rows and dim <= self.top_dim and dim + 1 < len(self.filtered_boundaries):
            coboundary = self.filtered_boundaries[dim + 1]
            columns = coboundary.index_of_filtration(True, b) + 1
            if columns:
                intermediate_rows = coboundary.index_of_filtration(False, b) + 1
                boundary_elements = max(boundary_elements, intermediate_rows * columns)
        peak_rows = max(rows, intermediate_rows)
        element_size = torch.empty((), dtype=self.dtype).element_size()
        dense_bytes = rows * rows * element_size
        intermediate_dense_bytes = intermediate_rows * intermediate_rows * element_size
        boundary_dense_bytes = boundary_elements * element_size
        peak_dense_bytes = max(dense_bytes, intermediate_dense_bytes, boundary_dense_bytes)
        exceeds_rows = self.max_matrix_rows is not None and peak_rows > self.max_matrix_rows
        exceeds_bytes = (
            self.max_matrix_bytes is not None and peak_dense_bytes > self.max_matrix_bytes
        )
        within_dense_limits = not (exceeds_rows or exceeds_bytes)
        if within_dense_limits:
            backend = "dense"
        elif a == b:
            backend = "sparse"
        else:
            backend = "homology_only"
        return {
            "dim": int(dim),
            "filtration_a": float(a),
            "filtration_b": float(b),
            "rows": rows,
            "intermediate_rows": intermediate_rows,
            "peak_rows": peak_rows,
            "dtype": str(self.dtype).removeprefix("torch."),
            "dense_bytes": dense_bytes,
            "intermediate_dense_bytes": intermediate_dense_bytes,
            "boundary_dense_bytes": boundary_dense_bytes,
            "peak_dense_bytes": peak_dense_bytes,
            "within_dense_limits": within_dense_limits,
            "exceeds_max_matrix_rows": exceeds_rows,
            "exceeds_max_matrix_bytes": exceeds_bytes,
            "recommended_backend": backend,
        }

    def _guard_dense_laplacian(self, dim: int, a: float, b: float) -> None:
        estimate = self.estimate_laplacian(dim, a, b)
        if estimate["within_dense_limits"]:
            return
        message = (
            f"Dense L_{dim}({a}, {b}) would have {estimate['rows']} output rows, "
            f"require up to {estimate['intermediate_rows']} intermediate rows, and allocate "
            f"approximately {estimate['peak_dense_bytes']} bytes for its largest dense "
            "matrix, exceeding this object's matrix guard. Use an ordinary sparse spectrum "
            "at a == b, raise the limits explicitly, or use "
            "topology_summary(..., on_oversize='homology_only')."
        )
        raise LaplacianSizeError(message)

    @staticmethod
    def _to_scipy_sparse(matrix: torch.Tensor):
        import scipy.sparse

        coo = matrix.to_sparse_coo().coalesce().cpu()
        indices = coo.indices().numpy()
        values = coo.values().numpy()
        return scipy.sparse.coo_matrix(
            (values, (indices[0], indices[1])), shape=tuple(coo.shape)
        ).tocsr()

    def get_L_sparse(self, dim: int, scale: float):
        """Construct an ordinary Hodge Laplacian directly as SciPy CSR.

        This path never materializes a dense boundary matrix or Laplacian.
        Persistent Schur-complement Laplacians (``a < b``) are intentionally
        excluded because their complement can be dense.
        """
        import scipy.sparse

        rows = self._laplacian_rows(dim, scale)
        result = scipy.sparse.csr_matrix(
            (rows, rows), dtype=np.dtype(str(self.dtype).split(".")[-1])
        )
        if rows == 0 or dim > self.top_dim or dim >= len(self.filtered_boundaries):
            return result
        if dim > 0:
            boundary = self.filtered_boundaries[dim].submatrix_at_filtration(scale)
            boundary_scipy = self._to_scipy_sparse(boundary)
            result = result + boundary_scipy.T @ boundary_scipy
        if dim + 1 < len(self.filtered_boundaries):
            coboundary = self.filtered_boundaries[dim + 1].submatrix_at_filtration(scale)
            coboundary_scipy = self._to_scipy_sparse(coboundary)
            result = result + coboundary_scipy @ coboundary_scipy.T
        return result.tocsr()

    def _sparse_eigenpair_diagnostics(
        self,
        laplacian,
        values: np.ndarray,
        vectors: np.ndarray,
        known_betti: int | None,
        solver: str,
        candidate_solver_is_reliable: bool,
        **extra: Any,
    ) -> dict[str, Any]:
        """Audit real eigenpairs; modular Betti counts are a separate diagnostic."""
        if values.size:
            residuals = np.linalg.norm(laplacian @ vectors - vectors * values, axis=0)
            row_sums = np.asarray(np.abs(laplacian).sum(axis=1)).ravel()
            operator_scale = max(1.0, float(row_sums.max(initial=0.0)))
            denominators = np.maximum(operator_scale, np.abs(values))
            max_normalized_residual = float((residuals / denominators).max(initial=0.0))
            gram = vectors.T @ vectors
            orthogonality_error = float(np.linalg.norm(gram - np.eye(gram.shape[0]), ord=2))
        else:
            max_normalized_residual = 0.0
            orthogonality_error = 0.0

        tolerance = self._zero_tolerance(values)
        numerical_nullity = int(np.count_nonzero(np.abs(values) <= tolerance))
        nullity_matches = known_betti is not None and numerical_nullity == known_betti
        epsilon = float(np.finfo(np.float64).eps)
        residual_limit = max(
            1_000.0 * epsilon,
            self.zero_rtol * 0.1,
            self.zero_atol,
        )
        orthogonality_limit = max(1e-8, 10.0 * np.sqrt(epsilon))
        residuals_pass = bool(max_normalized_residual <= residual_limit)
        orthogonality_pass = bool(orthogonality_error <= orthogonality_limit)
        has_gap_candidate = bool(np.any(values > tolerance))
        full_nullity = extra.get("full_spectral_nullity")
        kernel_complete = bool(
            residuals_pass
            and orthogonality_pass
            and (
                numerical_nullity == full_nullity
                if full_nullity is not None
                else candidate_solver_is_reliable and has_gap_candidate
            )
        )
        lowest_spectrum_certified = bool(
            candidate_solver_is_reliable
            and kernel_complete
            and has_gap_candidate
            and residuals_pass
            and orthogonality_pass
        )
        return {
            "solver": solver,
            "homology_betti": known_betti,
            "homology_coeff_field": 11 if known_betti is not None else None,
            "numerical_nullity": numerical_nullity,
            "nullity_matches": nullity_matches if known_betti is not None else None,
            "max_normalized_residual": max_normalized_residual,
            "orthogonality_error": orthogonality_error,
            "residual_limit": residual_limit,
            "orthogonality_limit": orthogonality_limit,
            "residuals_pass": residuals_pass,
            "orthogonality_pass": orthogonality_pass,
            "lowest_spectrum_certified": lowest_spectrum_certified,
            "kernel_complete": kernel_complete,
            **extra,
        }

    def _block_lowest_eigenpairs(
        self,
        laplacian,
        requested: int,
        known_betti: int,
    ) -> _SparseEigenpairsResult | None:
        """Recover a repeated Hodge kernel with block LOBPCG.

        The modular Betti count is an upper bound on ordinary real nullity and
        is used only to size the search block, not to identify zero modes.
        A shifted positive-definite inverse is used only as a
        preconditioner, so the eigenproblem remains the original Laplacian.
        """
        import scipy.sparse
        import scipy.sparse.linalg

        rows = laplacian.shape[0]
        if (
            known_betti < 1
            or requested <= known_betti
            or requested > _SPARSE_BLOCK_MAX_EIGENVALUES
            or 5 * requested >= rows
        ):
            return None

        # The incidence entries are exact small integers in the common case.
        # Solving in float64 avoids making nullspace recovery depend on an
        # object's storage precision.
        operator = laplacian.astype(np.float64, copy=False).tocsr()
        row_sums = np.asarray(np.abs(operator).sum(axis=1)).ravel()
        operator_scale = max(1.0, float(row_sums.max(initial=0.0)))
        shift = 1e-3 * operator_scale
        preconditioner_name = "shifted_jacobi"
        fill_ratio: float | None = None

        diagonal = np.asarray(operator.diagonal(), dtype=np.float64)
        inverse_diagonal = 1.0 / np.maximum(diagonal + shift, shift)
        preconditioner = scipy.sparse.linalg.LinearOperator(
            operator.shape,
            matvec=lambda vector: inverse_diagonal * vector,
            matmat=lambda matrix: inverse_diagonal[:, None] * matrix,
            dtype=np.float64,
        )

        if rows <= _SPARSE_LU_MAX_ROWS and operator.nnz <= _SPARSE_LU_MAX_NNZ:
            try:
                shifted = operator + shift * scipy.sparse.eye(rows, format="csr")
                factor = scipy.sparse.linalg.splu(
                    shifted.tocsc(),
                    permc_spec="MMD_AT_PLUS_A",
                    diag_pivot_thresh=0.0,
                )
                fill_ratio = float(factor.L.nnz + factor.U.nnz) / max(1, operator.nnz)
                if fill_ratio <= _SPARSE_LU_MAX_FILL_RATIO:
                    preconditioner = scipy.sparse.linalg.LinearOperator(
                        operator.shape,
                        matvec=factor.solve,
                        matmat=factor.solve,
                        dtype=np.float64,
                    )
                    preconditioner_name = "shifted_sparse_lu"
                else:
                    del factor
            except (MemoryError, RuntimeError, ValueError):
                # The block solve remains valid with the bounded-memory Jacobi
                # preconditioner; convergence certification below decides
                # whether its result is reportable.
                pass

        initial = np.random.default_rng(0).standard_normal((rows, requested))
        initial, _ = np.linalg.qr(initial, mode="reduced")
        epsilon = float(np.finfo(np.float64).eps)
        solver_tolerance = max(
            100.0 * epsilon * operator_scale,
            0.1 * min(self.zero_atol, self.zero_rtol * operator_scale),
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values, vectors = scipy.sparse.linalg.lobpcg(
                operator,
                initial,
                M=preconditioner,
                largest=False,
                tol=solver_tolerance,
                maxiter=_SPARSE_LOBPCG_MAX_ITERATIONS,
            )
        values = np.asarray(values, dtype=np.float64)
        vectors = np.asarray(vectors, dtype=np.float64)
        order = np.argsort(values, kind="stable")
        values = values[order]
        vectors = vectors[:, order]
        if not np.all(np.isfinite(values)) or not np.all(np.isfinite(vectors)):
            return None
        diagnostics = self._sparse_eigenpair_diagnostics(
            operator,
            values,
            vectors,
            known_betti,
            solver="lobpcg",
            candidate_solver_is_reliable=True,
            preconditioner=preconditioner_name,
            preconditioner_shift=shift,
            factor_fill_ratio=fill_ratio,
            solver_tolerance=solver_tolerance,
            solver_warning_count=len(caught),
        )
        return _SparseEigenpairsResult(values, vectors, diagnostics)

    def _sparse_ordinary_eigenpairs_result(
        self,
        dim: int,
        scale: float,
        num_eigenvalues: int | None = None,
        augment_for_betti: bool = True,
        eigenvalue_order: str | None = None,
    ) -> _SparseEigenpairsResult:
        from petls_pytorch.core.eigenvalues import (
            EIGENVALUE_ORDERS,
            eigenvalue_indices,
            select_eigenpairs,
        )

        import scipy.sparse.linalg

        laplacian = self.get_L_sparse(dim, scale)
        rows = laplacian.shape[0]
        if rows == 0:
            empty_values = np.empty(0, dtype=np.float64)
            empty_vectors = np.empty((0, 0), dtype=np.float64)
            diagnostics = self._sparse_eigenpair_diagnostics(
                laplacian,
                empty_values,
                empty_vectors,
                self._gudhi_betti_at(dim, scale),
                solver="empty",
                candidate_solver_is_reliable=True,
                full_spectral_nullity=0,
            )
            return _SparseEigenpairsResult(empty_values, empty_vectors, diagnostics)

        requested = self._num_eigenvalues if num_eigenvalues is None else int(num_eigenvalues)
        if requested < 1:
            raise ValueError("num_eigenvalues must be positive")
        which = self._eigenvalue_order if eigenvalue_order is None else eigenvalue_order
        if which not in EIGENVALUE_ORDERS:
            raise ValueError("eigenvalue_order must be one of 'SM', 'SA', 'LM', 'LA', or 'BE'")
        known_betti = self._gudhi_betti_at(dim, scale)
        # Ordinary modular Betti counts bound real nullity from above. Do
        # not let a very large Betti number silently turn a lowest-spectrum
        # query into an almost-complete eigendecomposition.
        if (
            augment_for_betti
            and which in {"SM", "SA"}
            and known_betti is not None
            and known_betti < rows
        ):
            requested = max(
                requested,
                min(known_betti + 3, _SPARSE_BLOCK_MAX_EIGENVALUES),
            )
        requested = min(requested, rows)

        candidate_solver_is_reliable = True
        solver = "exact_zero"
        extra_diagnostics: dict[str, Any] = {}
        if laplacian.nnz == 0:
            values = np.zeros(rows, dtype=np.float64)
            extra_diagnostics["full_spectral_nullity"] = rows
            selected = eigenvalue_indices(values, requested, which)
            vectors = np.zeros((rows, len(selected)), dtype=np.float64)
            vectors[selected, np.arange(len(selected))] = 1.0
            values = values[selected]
        elif np.count_nonzero(laplacian.diagonal()) == laplacian.nnz:
            solver = "exact_diagonal"
            values = np.asarray(laplacian.diagonal(), dtype=np.float64)
            extra_diagnostics["full_spectral_nullity"] = int(
                np.count_nonzero(np.abs(values) <= self._zero_tolerance(values))
            )
            selected = eigenvalue_indices(values, requested, which)
            vectors = np.zeros((rows, len(selected)), dtype=np.float64)
            vectors[selected, np.arange(len(selected))] = 1.0
            values = values[selected]
        elif rows <= 256 and (
            requested == rows
            or (which in {"SM", "SA"} and known_betti is not None and known_betti > 1)
        ):
            # A bounded complete solve is deterministic for small repeated
            # kernels and avoids SciPy LOBPCG's own implicit dense fallback
            # when the requested block is large relative to the matrix.
            solver = "dense_complete"
            dense = laplacian.toarray()
            values, vectors = np.linalg.eigh(dense)
            extra_diagnostics["full_spectral_nullity"] = int(
                np.count_nonzero(np.abs(values) <= self._zero_tolerance(values))
            )
        else:
            requested = min(requested, rows - 1)
            block_result = None
            block_failure: str | None = None
            if which in {"SM", "SA"} and known_betti is not None:
                try:
                    block_result = self._block_lowest_eigenpairs(
                        laplacian,
                        requested,
                        known_betti,
                    )
                except (MemoryError, RuntimeError, ValueError, np.linalg.LinAlgError) as error:
                    block_failure = type(error).__name__
            if block_result is not None:
                return block_result
            solver = "arpack"
            # Scalar Lanczos can represent a simple nullspace. Repeated
            # kernels require the block solve above before a gap is trusted.
            candidate_solver_is_reliable = known_betti in {0, 1}
            solver_which = "LA" if which == "BE" and requested == 1 else which
            values, vectors = scipy.sparse.linalg.eigsh(
                laplacian,
                k=requested,
                which=solver_which,
                return_eigenvectors=True,
            )
            extra_diagnostics["block_failure"] = block_failure
        values, selected_vectors = select_eigenpairs(values, vectors, requested, which)
        assert selected_vectors is not None
        diagnostics = self._sparse_eigenpair_diagnostics(
            laplacian,
            values,
            selected_vectors,
            known_betti,
            solver=solver,
            candidate_solver_is_reliable=candidate_solver_is_reliable,
            **extra_diagnostics,
        )
        return _SparseEigenpairsResult(values, selected_vectors, diagnostics)

    def _sparse_ordinary_eigenpairs(
        self,
        dim: int,
        scale: float,
        num_eigenvalues: int | None = None,
        return_eigenvectors: bool = False,
        augment_for_betti: bool = True,
        eigenvalue_order: str | None = None,
    ):
        result = self._sparse_ordinary_eigenpairs_result(
            dim,
            scale,
            num_eigenvalues,
            augment_for_betti,
            eigenvalue_order,
        )
        if return_eigenvectors:
            return result.values, result.vectors
        return result.values

    def ordinary_spectrum(
        self,
        dim: int,
        scale: float,
        num_eigenvalues: int | None = None,
        eigenvalue_order: str | None = None,
    ) -> list[float]:
        """Return a selected ordinary Hodge spectrum via a sparse path."""
        values = self._sparse_ordinary_eigenpairs(
            dim,
            scale,
            num_eigenvalues,
            eigenvalue_order=eigenvalue_order,
        )
        return cast(list[float], np.asarray(values, dtype=np.float64).tolist())

    def get_L(self, dim: int, a: float, b: float) -> torch.Tensor:
        """Get persistent Laplacian matrix L^{dim}(a,b) as dense tensor."""
        from petls_pytorch.core.laplacian import get_L

        self._guard_dense_laplacian(dim, a, b)
        return get_L(
            dim,
            a,
            b,
            self.filtered_boundaries,
            self.top_dim,
            self.device,
            self.dtype,
        )

    def get_L_top_dim_flipped(self, a: float) -> torch.Tensor:
        """Get the flipped top-dimension Laplacian B @ B^T.

        When ``flipped=True`` and the complete ``eigvalsh`` solver is selected,
        ``spectra()`` may use this matrix for the actual top dimension because
        the nonzero eigenvalues of ``B @ B^T`` (shape m×m) are the same as
        those of ``B^T @ B`` (shape n×n), but the former may be smaller.
        Partial solvers stay on ``B^T @ B`` because the two matrices have
        different kernel dimensions.
        """
        if self.top_dim != self._boundary_top_dim:
            raise ValueError(
                "Flipped top-dimensional Laplacians are unavailable when the "
                "object retains a hidden higher-dimensional boundary."
            )
        if self._boundary_top_dim == 0:
            return torch.empty(0, 0, dtype=self.dtype, device=self.device)
        fbm = self.filtered_boundaries[self._boundary_top_dim]
        flipped_rows = fbm.index_of_filtration(False, a) + 1
        boundary_columns = fbm.index_of_filtration(True, a) + 1
        element_size = torch.empty((), dtype=self.dtype).element_size()
        flipped_bytes = flipped_rows * flipped_rows * element_size
        boundary_bytes = flipped_rows * boundary_columns * element_size
        peak_bytes = max(flipped_bytes, boundary_bytes)
        exceeds_rows = self.max_matrix_rows is not None and flipped_rows > self.max_matrix_rows
        exceeds_bytes = self.max_matrix_bytes is not None and peak_bytes > self.max_matrix_bytes
        if exceeds_rows or exceeds_bytes:
            raise LaplacianSizeError(
                f"Flipped top-dimensional Laplacian at filtration {a} would have "
                f"{flipped_rows} rows and allocate approximately {peak_bytes} bytes for "
                "its largest dense matrix, exceeding this object's matrix guard."
            )
        B = fbm.submatrix_at_filtration(a)
        if B.shape[0] == 0 or B.shape[1] == 0:
            return torch.empty(0, 0, dtype=self.dtype, device=self.device)
        B_dense = B.to_dense().to(dtype=self.dtype)
        return B_dense @ B_dense.T

    def get_up(self, dim: int, a: float, b: float) -> torch.Tensor:
        """Get persistent up-Laplacian."""
        from petls_pytorch.core.laplacian import get_up

        self._guard_dense_laplacian(dim, a, b)
        if dim > self.top_dim or dim >= len(self.filtered_boundaries):
            return torch.empty(0, 0, dtype=self.dtype, device=self.device)
        n = self._laplacian_rows(dim, a)
        if dim + 1 >= len(self.filtered_boundaries):
            return torch.zeros(n, n, dtype=self.dtype, device=self.device)
        return get_up(self.filtered_boundaries[dim + 1], a, b, self.device, self.dtype)

    def get_down(self, dim: int, a: float) -> torch.Tensor:
        """Get persistent down-Laplacian."""
        from petls_pytorch.core.laplacian import get_down

        self._guard_dense_laplacian(dim, a, a)
        if dim > self.top_dim or dim >= len(self.filtered_boundaries):
            return torch.empty(0, 0, dtype=self.dtype, device=self.device)
        return cast(
            torch.Tensor,
            get_down(self.filtered_boundaries[dim], a, self.device, self.dtype),
        )

    def _solve_eigs(self, L: torch.Tensor) -> torch.Tensor:
        """Dispatch to eigenvalue solver."""
        from petls_pytorch.core.eigenvalues import (
            solve_eigenvalues,
            solve_sparse_eigenvalues,
        )

        algorithm = self._eigs_algorithm
        if algorithm == "sparse":
            return solve_sparse_eigenvalues(
                L,
                num_eigenvalues=self._num_eigenvalues,
                which=self._eigenvalue_order,
            )
        return cast(torch.Tensor, solve_eigenvalues(L, algorithm=algorithm))

    def _solve_eigenpairs(self, L: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Dispatch to eigenpair solver."""
        from petls_pytorch.core.eigenvalues import solve_eigenpairs

        return solve_eigenpairs(L, algorithm="eigh")

    def spectra(
        self,
        dim: Optional[int] = None,
        a: Optional[float] = None,
        b: Optional[float] = None,
        request_list: Optional[List[Tuple[int, float, float]]] = None,
        allpairs: bool = False,
    ):
        """
        Compute eigenvalues of L_{dim}^{a,b}.

        Parameters
        ----------
        dim, a, b : optional
            Single (dim, a, b) query.
        request_list : list of (dim, a, b), optional
            Multiple queries.
        allpairs : bool
            If True and no other args given, compute all (a_i, a_j) pairs
            with j >= i for all dimensions.

        Returns
        -------
        list[float]
            If single (dim, a, b) passed.
        list[tuple]
            If request_list or no args passed: [(dim, a, b, eigenvalues), ...]
        """
        # Scalar and batch calls have distinct, stable return types.
        single_query = dim is not None and a is not None and b is not None
        provided_query_args = sum(value is not None for value in (dim, a, b))
        if provided_query_args not in {0, 3}:
            raise ValueError("dim, a, and b must be provided together")
        if dim is not None and a is not None and b is not None:
            requests = [(dim, a, b)]
        elif request_list is not None:
            requests = [(int(r[0]), float(r[1]), float(r[2])) for r in request_list]
        else:
            dims = list(range(self.top_dim + 1))
            filtrations = self.get_all_filtrations()
            if allpairs:
                requests = self.filtration_list_to_spectra_request_allpairs(filtrations, dims)
            else:
                requests = self.filtration_list_to_spectra_request(filtrations, dims)

        responses = []
        for d, fa, fb in requests:
            if fb < fa:
                raise ValueError("b must be greater than or equal to a")
            self.profile.start_all()

            # Edge case: no 1-simplices and dim == 0
            if d == 0 and len(self.filtered_boundaries) == 1:
                betti0 = self.filtered_boundaries[0].index_of_filtration(True, fa) + 1
                eigs_list = [0.0] * betti0
                self.profile.durations_L.append(0.0)
                self.profile.durations_eigs.append(0.0)
                self.profile.stop_all()
                self.profile.dims.append(d)
                self.profile.filtration_a.append(fa)
                self.profile.filtration_b.append(fb)
                self.profile.L_rows.append(betti0)
                self.profile.bettis.append(betti0)
                self.profile.lambdas.append(0.0)
                responses.append((d, fa, fb, eigs_list))
                continue

            # Determine matrix size for profiling, including dimensions above
            # the complex where the spectrum is empty.
            l_rows = self._laplacian_rows(d, fa)
            self.profile.L_rows.append(l_rows)

            self.profile.start_L()
            use_sparse_ordinary = self._eigs_algorithm == "sparse" and fa == fb
            use_flipped_top_dim = False
            if use_sparse_ordinary:
                # Construction and solve happen together inside SciPy's sparse
                # operator path; no dense Laplacian is created.
                self.profile.stop_L()
                self.profile.start_eigs()
                eigs_list = self.ordinary_spectrum(d, fa, self._num_eigenvalues)
                self.profile.stop_eigs()
            else:
                # Flipping preserves the nonzero spectrum, but not the kernel
                # dimension. It is therefore safe only for the complete
                # eigvalsh solve, and only for the actual top boundary where
                # there is no higher-dimensional up-Laplacian term.
                can_flip_top_dim = (
                    self.flipped
                    and self._eigs_algorithm == "eigvalsh"
                    and d == self.top_dim
                    and d + 1 >= len(self.filtered_boundaries)
                )
                if can_flip_top_dim:
                    fbm = self.filtered_boundaries[self.top_dim]
                    boundary_rows = fbm.index_of_filtration(False, fa) + 1
                    boundary_columns = fbm.index_of_filtration(True, fa) + 1
                    use_flipped_top_dim = boundary_rows < boundary_columns
                    if use_flipped_top_dim:
                        L = self.get_L_top_dim_flipped(fa)
                    else:
                        L = self.get_L(d, fa, fb)
                else:
                    L = self.get_L(d, fa, fb)
                self.profile.stop_L()

                if L.numel() == 0:
                    eigs = torch.empty(0, device=L.device, dtype=L.dtype)
                    self.profile.durations_eigs.append(0.0)
                else:
                    self.profile.start_eigs()
                    eigs = self._solve_eigs(L)
                    self.profile.stop_eigs()
                eigs_list = eigs.cpu().tolist() if isinstance(eigs, torch.Tensor) else list(eigs)

            self.profile.stop_all()

            # Complete eigvalsh on B @ B.T omits only the structural kernel
            # contributed by extra columns of B. Restore those columns so the
            # result represents the true B.T @ B Laplacian dimension.
            if use_flipped_top_dim:
                fbm = self.filtered_boundaries[self.top_dim]
                B = fbm.submatrix_at_filtration(fa)
                m, n = B.shape
                structural_zeros = max(0, n - m)
                eigs_list = [0.0] * structural_zeros + sorted(eigs_list)

            betti, lam = self.eigenvalues_summarize(eigs_list)
            self.profile.dims.append(d)
            self.profile.filtration_a.append(fa)
            self.profile.filtration_b.append(fb)
            self.profile.bettis.append(betti)
            self.profile.lambdas.append(lam)

            if self.verbose:
                self._logger.debug(
                    "dim=%s a=%s b=%s | size=%s | betti=%s",
                    d,
                    fa,
                    fb,
                    l_rows,
                    betti,
                )

            responses.append((d, fa, fb, eigs_list))

        if single_query and len(responses) == 1:
            return responses[0][3]
        return responses

    def eigenpairs(
        self,
        dim: Optional[int] = None,
        a: Optional[float] = None,
        b: Optional[float] = None,
        request_list: Optional[List[Tuple[int, float, float]]] = None,
        allpairs: bool = False,
    ):
        """
        Compute eigenvalues and eigenvectors of L_{dim}^{a,b}.

        Parameters
        ----------
        dim, a, b : optional
            Single (dim, a, b) query.
        request_list : list of (dim, a, b), optional
            Multiple queries.
        allpairs : bool
            If True and no other args given, compute all (a_i, a_j) pairs
            with j >= i for all dimensions.

        Returns
        -------
        (eigenvalues, eigenvectors)
            If single (dim, a, b) passed.
        list[tuple]
            If request_list or no args passed: [(dim, a, b, eigenvalues, eigenvectors), ...]
        """
        single_query = dim is not None and a is not None and b is not None
        provided_query_args = sum(value is not None for value in (dim, a, b))
        if provided_query_args not in {0, 3}:
            raise ValueError("dim, a, and b must be provided together")
        if dim is not None and a is not None and b is not None:
            requests = [(dim, a, b)]
        elif request_list is not None:
            requests = [(int(r[0]), float(r[1]), float(r[2])) for r in request_list]
        else:
            dims = list(range(self.top_dim + 1))
            filtrations = self.get_all_filtrations()
            if allpairs:
                requests = self.filtration_list_to_spectra_request_allpairs(filtrations, dims)
            else:
                requests = self.filtration_list_to_spectra_request(filtrations, dims)

        responses = []
        for d, fa, fb in requests:
            L = self.get_L(d, fa, fb)
            if L.numel() == 0:
                vals = torch.empty(0, device=L.device, dtype=L.dtype)
                vecs = torch.empty(0, 0, device=L.device, dtype=L.dtype)
            else:
                vals, vecs = self._solve_eigenpairs(L)
            vals_list = vals.cpu().tolist()
            responses.append((d, fa, fb, vals_list, vecs))

        if single_query and len(responses) == 1:
            return responses[0][3], responses[0][4]
        return responses

    def eigenvalues_summarize(
        self,
        eigenvalues: list[float] | np.ndarray | torch.Tensor,
    ) -> Tuple[int, float]:
        """Compute ``(nullity, least_nonzero)`` with object-local tolerances."""

        eigenvalue_array = (
            eigenvalues.cpu().numpy()
            if isinstance(eigenvalues, torch.Tensor)
            else np.array(eigenvalues)
        )

        if eigenvalue_array.size == 0:
            return 0, 0.0
        scale = float(np.max(np.abs(eigenvalue_array)))
        tol = self.zero_atol + self.zero_rtol * scale
        absolute = np.abs(eigenvalue_array)
        betti = int(np.sum(absolute <= tol))
        nonzeros = absolute[absolute > tol]
        least = float(nonzeros.min()) if len(nonzeros) > 0 else 0.0
        return betti, least

    def _zero_tolerance(self, eigenvalues: Sequence[float] | np.ndarray) -> float:
        values = np.asarray(eigenvalues, dtype=np.float64)
        spectral_scale = float(np.max(np.abs(values))) if values.size else 0.0
        return self.zero_atol + self.zero_rtol * spectral_scale

    def _ensure_persistence(self) -> None:
        if self.simplex_tree is None:
            raise RuntimeError("This operation requires construction from a Gudhi SimplexTree")
        if not self._persistence_computed:
            self.simplex_tree.persistence(
                homology_coeff_field=11,
                min_persistence=-1.0,
                persistence_dim_max=True,
            )
            self._persistence_computed = True

    def persistence_intervals(self, dim: int) -> np.ndarray:
        """Return Gudhi persistence intervals ``[birth, death)`` for a dimension."""
        if dim < 0:
            raise ValueError("dim must be non-negative")
        if dim > self.top_dim:
            return np.empty((0, 2), dtype=np.float64)
        self._ensure_persistence()
        intervals = self.simplex_tree.persistence_intervals_in_dimension(dim)
        return np.asarray(intervals, dtype=np.float64).copy()

    def persistent_betti(self, dim: int, birth_scale: float, death_scale: float) -> int:
        """Return the F_11 homology-map rank from birth to death scale.

        This can differ from the nullity of the real persistent Laplacian.
        """
        if death_scale < birth_scale:
            raise ValueError("death_scale must be greater than or equal to birth_scale")
        intervals = self.persistence_intervals(dim)
        if intervals.size == 0:
            return 0
        return int(np.sum((intervals[:, 0] <= birth_scale) & (intervals[:, 1] > death_scale)))

    def betti_numbers_at(self, scale: float) -> dict[int, int]:
        """Return authoritative Gudhi Betti numbers for the sublevel complex."""
        return {dim: self.persistent_betti(dim, scale, scale) for dim in range(self.top_dim + 1)}

    def _gudhi_betti_at(self, dim: int, scale: float) -> int | None:
        if self.simplex_tree is None:
            return None
        return self.persistent_betti(dim, scale, scale)

    def positive_spectrum(
        self, dim, a, b=None, *, positive_modes=8, max_iterations=1000, relative_tolerance=1e-3
    ):
        """Leading positive modes on this device, with per-mode residual quality.

        Homology is independent. Sparse work and the small persistent Schur
        block replace the full dense Laplacian. No CPU eigensolver fallback.
        """
        from petls_pytorch.core.low_modes import positive_modes as solve

        return solve(
            self, dim, a, a if b is None else b, positive_modes, max_iterations, relative_tolerance
        )

    def topology_summary(
        self,
        dimensions=None,
        a=0.0,
        b=0.0,
        on_oversize=None,
        smallest_eigenvalues=10,
        *,
        spectral_mode="partial",
        positive_modes=8,
        max_iterations=1000,
        relative_tolerance=1e-3,
    ):
        """Homology and leading positive spectra (partial by default).

        ``spectral_mode="full"`` retains the explicit full/legacy solver route.
        Raw boundary-only complexes without homology also need that route.
        Per-mode quality is retained independently of the rest of the block.
        """
        if spectral_mode not in {"partial", "full"}:
            raise ValueError("spectral_mode must be 'partial' or 'full'")
        if spectral_mode == "full" or self.simplex_tree is None:
            return self._full_topology_summary(dimensions, a, b, on_oversize, smallest_eigenvalues)
        if b < a or smallest_eigenvalues < 0:
            raise ValueError("Require b >= a and smallest_eigenvalues >= 0")
        policy = self.on_oversize if on_oversize is None else on_oversize
        if policy not in {"raise", "homology_only"}:
            raise ValueError("on_oversize must be 'raise' or 'homology_only'")
        dimensions = range(self.top_dim + 1) if dimensions is None else dimensions
        output = {
            "filtration_a": float(a),
            "filtration_b": float(b),
            "betti_kind": "ordinary" if a == b else "persistent",
            "method": "gudhi_homology_with_device_partial_spectrum",
            "homology_coeff_field": 11,
            "spectral_coeff_field": "real",
            "zero_atol": self.zero_atol,
            "zero_rtol": self.zero_rtol,
        }
        fields = (
            "betti",
            "spectral_nullity",
            "homology_spectral_agreement",
            "least_nonzero_eigenvalue",
            "positive_modes",
            "smallest_eigenvalues",
            "zero_tolerance",
            "matrix_rows",
            "spectrum_solver",
            "spectrum_device",
            "spectrum_certified",
            "spectrum_max_normalized_residual",
            "calculation_status",
            "iterations",
            "construction_s",
            "solve_s",
            "schur_rows",
            "requested_positive_modes",
            "working_block_size",
            "nullspace_handling",
            "range_reconstruction_error",
        )
        output.update({key: {} for key in (*fields, "betti_source", "estimates")})
        for raw_dim in dimensions:
            dim = int(raw_dim)
            if dim < 0:
                raise ValueError("dimensions must be non-negative")
            try:
                result = self.positive_spectrum(
                    dim,
                    a,
                    b,
                    positive_modes=positive_modes,
                    max_iterations=max_iterations,
                    relative_tolerance=relative_tolerance,
                )
            except LaplacianSizeError:
                if policy == "raise":
                    raise
                result = {key: None for key in fields}
                result.update(
                    betti=self.persistent_betti(dim, a, b),
                    calculation_status="homology_only_oversize",
                    positive_modes=[],
                    smallest_eigenvalues=[],
                    matrix_rows=self._laplacian_rows(dim, a),
                    spectrum_device=str(self.device),
                )
            for key in fields:
                value = result[key]
                output[key][dim] = (
                    value[:smallest_eigenvalues] if key == "smallest_eigenvalues" else value
                )
            output["betti_source"][dim] = "gudhi_persistence"
            output["estimates"][dim] = self.estimate_laplacian(dim, a, b)
        return output

    def _full_topology_summary(
        self,
        dimensions: Sequence[int] | None = None,
        a: float = 0.0,
        b: float = 0.0,
        on_oversize: str | None = None,
        smallest_eigenvalues: int = 10,
    ) -> dict[str, Any]:
        """Summarize Betti numbers and persistent-Laplacian spectral gaps.

        Gudhi persistence intervals are authoritative when a simplex tree is
        available.  Spectral nullity is retained as an auditable numerical
        companion rather than silently replacing homology.
        """
        if b < a:
            raise ValueError("b must be greater than or equal to a")
        policy = self.on_oversize if on_oversize is None else on_oversize
        if policy not in {"raise", "homology_only"}:
            raise ValueError("on_oversize must be 'raise' or 'homology_only'")
        if smallest_eigenvalues < 0:
            raise ValueError("smallest_eigenvalues must be non-negative")
        if dimensions is None:
            dimensions = range(self.top_dim + 1)

        betti: dict[int, int] = {}
        spectral_nullity: dict[int, int | None] = {}
        homology_spectral_agreement: dict[int, bool | None] = {}
        least_nonzero: dict[int, float | None] = {}
        matrix_rows: dict[int, int] = {}
        tolerances: dict[int, float | None] = {}
        smallest: dict[int, list[float]] = {}
        statuses: dict[int, str] = {}
        estimates: dict[int, dict[str, Any]] = {}
        betti_source: dict[int, str] = {}
        spectrum_solver: dict[int, str | None] = {}
        spectrum_certified: dict[int, bool | None] = {}
        spectrum_max_residual: dict[int, float | None] = {}

        for raw_dim in dimensions:
            dim = int(raw_dim)
            if dim < 0:
                raise ValueError("dimensions must contain non-negative integers")
            estimate = self.estimate_laplacian(dim, a, b)
            homology_spectral_agreement[dim] = None
            estimates[dim] = estimate
            matrix_rows[dim] = estimate["rows"]

            authoritative = None
            if self.simplex_tree is not None:
                authoritative = self.persistent_betti(dim, a, b)
                betti[dim] = authoritative
                betti_source[dim] = "gudhi_persistence"

            if not estimate["within_dense_limits"] and a < b:
                if policy == "raise":
                    self._guard_dense_laplacian(dim, a, b)
                if authoritative is None:
                    statuses[dim] = "skipped_oversize_no_homology_backend"
                else:
                    statuses[dim] = "homology_only_oversize"
                spectral_nullity[dim] = None
                least_nonzero[dim] = None
                tolerances[dim] = None
                smallest[dim] = []
                spectrum_solver[dim] = None
                spectrum_certified[dim] = None
                spectrum_max_residual[dim] = None
                continue

            sparse_diagnostics: dict[str, Any] | None = None
            try:
                if a == b and (
                    not estimate["within_dense_limits"] or self._eigs_algorithm == "sparse"
                ):
                    sparse_result = self._sparse_ordinary_eigenpairs_result(
                        dim,
                        a,
                        eigenvalue_order="SM",
                    )
                    eigenvalues = sparse_result.values
                    sparse_diagnostics = sparse_result.diagnostics
                    statuses[dim] = "sparse_lowest_spectrum"
                    spectrum_solver[dim] = str(sparse_diagnostics["solver"])
                    certified = sparse_diagnostics["lowest_spectrum_certified"]
                    spectrum_certified[dim] = bool(certified)
                    spectrum_max_residual[dim] = float(
                        sparse_diagnostics["max_normalized_residual"]
                    )
                else:
                    eigenvalues = self.spectra(dim, a, b)
                    statuses[dim] = "complete"
                    spectrum_solver[dim] = "dense"
                    spectrum_certified[dim] = None
                    spectrum_max_residual[dim] = None
            except LaplacianSizeError:
                if policy == "raise":
                    raise
                statuses[dim] = "homology_only_oversize"
                spectral_nullity[dim] = None
                least_nonzero[dim] = None
                tolerances[dim] = None
                smallest[dim] = []
                spectrum_solver[dim] = None
                spectrum_certified[dim] = None
                spectrum_max_residual[dim] = None
                continue
            values = np.asarray(eigenvalues, dtype=np.float64)
            nullity, least = self.eigenvalues_summarize(values)
            tolerance = self._zero_tolerance(values)
            spectral_nullity[dim] = nullity
            if statuses[dim] == "sparse_lowest_spectrum":
                only_known_null_modes = least == 0.0 or (
                    authoritative is not None
                    and authoritative >= len(values)
                    and nullity == len(values)
                )
                if only_known_null_modes:
                    least_nonzero[dim] = None
                    statuses[dim] = "sparse_null_modes_only"
                elif (
                    sparse_diagnostics is not None
                    and not sparse_diagnostics["lowest_spectrum_certified"]
                ):
                    least_nonzero[dim] = None
                    statuses[dim] = (
                        "spectral_nullity_mismatch"
                        if authoritative is not None and nullity != authoritative
                        else "sparse_spectrum_unverified"
                    )
                else:
                    least_nonzero[dim] = least
                if authoritative is not None and sparse_diagnostics is not None:
                    full_nullity = sparse_diagnostics.get("full_spectral_nullity")
                    if full_nullity is not None:
                        homology_spectral_agreement[dim] = full_nullity == authoritative
                    elif sparse_diagnostics["kernel_complete"]:
                        homology_spectral_agreement[dim] = nullity == authoritative
            else:
                least_nonzero[dim] = least
                if authoritative is not None:
                    homology_spectral_agreement[dim] = nullity == authoritative
                    spectrum_certified[dim] = True
            tolerances[dim] = tolerance
            smallest[dim] = np.sort(values)[:smallest_eigenvalues].tolist()
            if authoritative is None:
                betti[dim] = nullity
                betti_source[dim] = "laplacian_nullity"

        return {
            "filtration_a": float(a),
            "filtration_b": float(b),
            "betti_kind": "ordinary" if a == b else "persistent",
            "betti": betti,
            "betti_source": betti_source,
            "homology_coeff_field": 11 if self.simplex_tree is not None else None,
            "spectral_coeff_field": "real",
            "homology_spectral_agreement": homology_spectral_agreement,
            "spectral_nullity": spectral_nullity,
            "least_nonzero_eigenvalue": least_nonzero,
            "matrix_rows": matrix_rows,
            "zero_tolerance": tolerances,
            "zero_atol": self.zero_atol,
            "zero_rtol": self.zero_rtol,
            "smallest_eigenvalues": smallest,
            "calculation_status": statuses,
            "spectrum_solver": spectrum_solver,
            "spectrum_certified": spectrum_certified,
            "spectrum_max_normalized_residual": spectrum_max_residual,
            "estimates": estimates,
            "method": "gudhi_homology_with_persistent_laplacian_spectrum",
        }

    def _harmonic_basis(
        self,
        dim: int,
        a: float,
        b: float | None = None,
        max_features: int | None = None,
    ) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
        """Recover the real harmonic subspace, independently of modular homology."""
        b = a if b is None else b
        if not self.simplices_by_dimension:
            raise RuntimeError("Simplex mappings require construction from a Gudhi SimplexTree")
        if dim < 0 or dim >= len(self.simplices_by_dimension):
            raise ValueError(f"dim must be between 0 and {len(self.simplices_by_dimension) - 1}")
        if dim > self.top_dim:
            raise ValueError(f"dim must be between 0 and {self.top_dim}")
        if b < a:
            raise ValueError("b must be greater than or equal to a")
        if max_features is not None and (
            not isinstance(max_features, int) or isinstance(max_features, bool) or max_features < 1
        ):
            raise ValueError("max_features must be a positive integer or None")

        authoritative = self.persistent_betti(dim, a, b) if self.simplex_tree is not None else None
        estimate = self.estimate_laplacian(dim, a, b)
        if a < b and not estimate["within_dense_limits"]:
            raise LaplacianSizeError(
                "Persistent harmonic localization requires a dense Schur-complement "
                "Laplacian, and this request exceeds the matrix guard. Harmonic "
                "localization has a sparse oversized path only for ordinary a == b "
                "calculations."
            )
        feature_target = max_features
        if feature_target is None and not estimate["within_dense_limits"]:
            feature_target = 10
        if a == b and (not estimate["within_dense_limits"] or self._eigs_algorithm == "sparse"):
            recovery_target = feature_target or 0
            if authoritative is not None and authoritative < _SPARSE_BLOCK_MAX_EIGENVALUES:
                recovery_target = authoritative
            requested = max(
                self._num_eigenvalues,
                min(recovery_target + 3, _SPARSE_BLOCK_MAX_EIGENVALUES),
            )
            sparse_result = self._sparse_ordinary_eigenpairs_result(
                dim,
                a,
                requested,
                augment_for_betti=False,
                eigenvalue_order="SM",
            )
            values_np = sparse_result.values
            vectors_np = sparse_result.vectors
        else:
            sparse_result = None
            values, vectors = self.eigenpairs(dim, a, b)
            values_np = np.asarray(values, dtype=np.float64)
            vectors_np = vectors.detach().cpu().numpy()

        tolerance = self._zero_tolerance(values_np)
        harmonic_indices = np.flatnonzero(np.abs(values_np) <= tolerance)
        numerical_nullity = len(harmonic_indices)
        kernel_complete = sparse_result is None or sparse_result.diagnostics["kernel_complete"]
        full_nullity = (
            numerical_nullity
            if kernel_complete
            else sparse_result.diagnostics.get("full_spectral_nullity")
            if sparse_result is not None
            else None
        )
        if feature_target is not None:
            harmonic_indices = harmonic_indices[:feature_target]
        complete = bool(kernel_complete and len(harmonic_indices) == numerical_nullity)
        calculation_status = "complete"
        if not complete:
            calculation_status = (
                "truncated_for_scale"
                if not estimate["within_dense_limits"]
                else "truncated"
                if len(harmonic_indices) < numerical_nullity
                else "partial_harmonic_space"
            )
        if sparse_result is not None and not (
            sparse_result.diagnostics["residuals_pass"]
            and sparse_result.diagnostics["orthogonality_pass"]
        ):
            calculation_status = "sparse_spectrum_unverified"
        metadata = {
            "dimension": dim,
            "filtration_a": float(a),
            "filtration_b": float(b),
            "betti": authoritative,
            "homology_coeff_field": 11 if authoritative is not None else None,
            "spectral_coeff_field": "real",
            "homology_spectral_agreement": (
                full_nullity == authoritative
                if full_nullity is not None and authoritative is not None
                else None
            ),
            "spectral_nullity": full_nullity,
            "recovered_nullity": numerical_nullity,
            "returned_features": len(harmonic_indices),
            "features_complete": complete,
            "calculation_status": calculation_status,
            "zero_tolerance": tolerance,
        }
        return metadata, values_np[harmonic_indices], vectors_np[:, harmonic_indices]

    def harmonic_features(
        self,
        dim: int,
        a: float,
        b: float | None = None,
        coefficient_atol: float = 0.0,
        max_features: int | None = None,
    ) -> dict[str, Any]:
        """Return a numerical real harmonic basis mapped to simplices.

        Individual vectors are not canonical when the kernel is multidimensional.
        Use :meth:`harmonic_participation` for basis-invariant localization.
        ``features_complete`` describes recovery of the real numerical kernel,
        independently of the F_11 Betti count. Coefficient filtering affects only
        the displayed vectors, not the recovered subspace or its completeness.
        """
        if not np.isfinite(coefficient_atol) or coefficient_atol < 0:
            raise ValueError("coefficient_atol must be finite and non-negative")
        metadata, values, basis = self._harmonic_basis(dim, a, b, max_features)
        simplex_count = self._laplacian_rows(dim, a)
        simplices = self.simplices_by_dimension[dim][:simplex_count]
        labels = (
            self.simplex_labels_by_dimension[dim][:simplex_count]
            if self.simplex_labels_by_dimension is not None
            else None
        )
        features = []
        for eigen_index, eigenvalue in enumerate(values):
            coefficients = []
            for simplex_index, (simplex, coefficient) in enumerate(
                zip(simplices, basis[:, eigen_index])
            ):
                coefficient_float = float(coefficient)
                if abs(coefficient_float) < coefficient_atol:
                    continue
                item: dict[str, Any] = {
                    "simplex_index": simplex_index,
                    "simplex": list(simplex),
                    "coefficient": coefficient_float,
                }
                if labels is not None:
                    item["labels"] = list(labels[simplex_index])
                coefficients.append(item)
            features.append(
                {
                    "eigenvalue": float(eigenvalue),
                    "simplex_coefficients": coefficients,
                }
            )
        return {**metadata, "features": features}

    def harmonic_participation(
        self,
        dim: int,
        a: float,
        b: float | None = None,
        *,
        max_features: int | None = None,
    ) -> dict[str, Any]:
        """Localize the harmonic space using diag(H H.T) for orthonormal H.

        Scores are invariant to signs and orthogonal rotations of a complete
        harmonic basis. They are unnormalized: their sum is the recovered
        subspace dimension. No dense projector is formed. Each simplex's score
        is shared equally among its vertices in ``point_participation``; labels
        are retained when present (e.g. molecule identifiers).

        Check ``participation_complete`` before treating scores as invariants of
        the full harmonic space. With a truncated or unverified sparse solve,
        they describe only the computed subspace, whose choice can vary. This
        method has the same allocation guards as :meth:`harmonic_features`.
        """
        metadata, _, basis = self._harmonic_basis(dim, a, b, max_features)
        scores = np.einsum("ij,ij->i", basis, basis)
        simplices = self.simplices_by_dimension[dim][: len(scores)]
        simplex_labels = self.simplex_labels_by_dimension
        point_scores = {
            simplex[0]: 0.0
            for simplex in self.simplices_by_dimension[0][: self._laplacian_rows(0, a)]
        }
        participation = []
        for index, (simplex, score) in enumerate(zip(simplices, scores)):
            item: dict[str, Any] = {
                "simplex_index": index,
                "simplex": list(simplex),
                "participation": float(score),
            }
            if simplex_labels is not None:
                item["labels"] = list(simplex_labels[dim][index])
            participation.append(item)
            for vertex in simplex:
                point_scores[vertex] += float(score) / len(simplex)
        points = []
        for vertex, score in point_scores.items():
            point: dict[str, Any] = {"vertex": vertex, "participation": score}
            if self.point_labels is not None:
                point["label"] = self.point_labels[vertex]
            points.append(point)
        complete = metadata["features_complete"]
        return {
            **metadata,
            "participation_complete": complete,
            "participation_scope": "full_harmonic_space" if complete else "computed_subspace",
            "total_participation": float(scores.sum()),
            "simplex_participation": participation,
            "point_participation": points,
        }

    def nonzero_spectra(
        self,
        dim: int,
        a: float,
        b: float,
        PH_basis=None,
        use_dummy_harmonic_basis: bool = True,
    ):
        """Return the complete positive spectrum using this object's zero test.

        An eigenvalue is retained exactly when ``lambda > zero_atol +
        zero_rtol * max(abs(full_spectrum))``. Multiplicity and ascending order
        are preserved. The configured partial solver does not truncate this
        operation.

        ``PH_basis`` may contain real harmonic vectors as columns (a vector is
        treated as one column). Redundant and zero columns are allowed; the
        numerical column space must lie in the kernel within the zero tolerance
        or floating-point roundoff, whichever is larger. Invalid vectors raise
        ``ValueError`` instead of projecting away positive modes. A homology
        cycle is not necessarily a harmonic vector.

        ``use_dummy_harmonic_basis`` is retained for compatibility. Both values
        now filter the same complete spectrum directly: projecting out a true
        kernel cannot change the positive eigenvalues.
        """
        from petls_pytorch.core.eigenvalues import solve_eigenvalues

        L = self.get_L(dim, a, b)
        values = solve_eigenvalues(L)
        values_np = values.detach().cpu().numpy()
        tolerance = self._zero_tolerance(values_np)

        if PH_basis is not None:
            raw_basis = torch.as_tensor(
                PH_basis if isinstance(PH_basis, torch.Tensor) else np.asarray(PH_basis),
                device=self.device,
            )
            if raw_basis.is_complex():
                raise ValueError("PH_basis must contain real harmonic vectors")
            basis = raw_basis.to(dtype=self.dtype)
            if basis.ndim == 1:
                basis = basis[:, None]
            if basis.ndim != 2 or basis.shape[0] != L.shape[0]:
                raise ValueError("PH_basis must have one row per Laplacian coordinate")
            if not bool(torch.isfinite(basis).all()):
                raise ValueError("PH_basis must contain only finite values")
            if basis.numel():
                # Normalize columns before determining their span: changing the
                # scale of a basis vector must not hide a non-harmonic direction.
                column_scale = basis.abs().amax(dim=0)
                basis = basis[:, column_scale > 0] / column_scale[column_scale > 0]
                if basis.shape[1]:
                    u, singular_values, _ = torch.linalg.svd(basis, full_matrices=False)
                    rank_tolerance = (
                        torch.finfo(self.dtype).eps * max(basis.shape) * singular_values[0]
                    )
                    Q = u[:, singular_values > rank_tolerance]
                    spectral_scale = float(np.max(np.abs(values_np)))
                    roundoff = torch.finfo(self.dtype).eps * L.shape[0] * spectral_scale
                    residual = torch.linalg.matrix_norm(L @ Q, ord=2)
                    if float(residual) > max(tolerance, roundoff):
                        raise ValueError("PH_basis must span harmonic vectors in the kernel of L")

        return cast(list[float], values_np[values_np > tolerance].tolist())

    def store_L(self, dim: int, a: float, b: float, prefix: str) -> None:
        """Save the Laplacian matrix L^{dim}(a,b) to a Matrix Market file.

        File is written to ``{prefix}.mtx``.
        """
        import scipy.io

        L = self.get_L(dim, a, b)
        L_np = L.cpu().numpy()
        scipy.io.mmwrite(f"{prefix}.mtx", scipy.sparse.csr_matrix(L_np))

    def store_spectra(self, spectra_list, file_prefix: str) -> None:
        """Store eigenvalues to text files.

        One file per dimension: ``{file_prefix}_spectra_{dim}.txt``. Each line
        contains the eigenvalues for one (dim, a, b) record, space-separated,
        matching the original PETLS format.
        """
        by_dim: dict[int, list[list[float]]] = {}
        for item in spectra_list:
            if isinstance(item, (list, tuple)) and len(item) >= 4:
                dim, eigs = int(item[0]), item[3]
                by_dim.setdefault(dim, []).append(eigs)

        for dim, entries in by_dim.items():
            with open(f"{file_prefix}_spectra_{dim}.txt", "w") as fh:
                for eigs in entries:
                    line = " ".join(str(x) for x in eigs) + "\n"
                    fh.write(line)

    def store_spectra_summary(self, spectra_list, file_prefix: str) -> None:
        """Store eigenvalue summaries to a text file.

        File is written to ``{file_prefix}_spectra_summary.txt``. Each line
        corresponds to a unique (a, b) pair and contains Betti numbers and
        least nonzero eigenvalues for every dimension, matching the original
        PETLS format.
        """
        top_dim = self.top_dim
        items_per_line = 2 + 2 * (top_dim + 1)

        unique_pairs: list[tuple[float, float]] = []
        pair_index: dict[tuple[float, float], int] = {}
        for item in spectra_list:
            if isinstance(item, (list, tuple)) and len(item) >= 4:
                a, b = float(item[1]), float(item[2])
                pair = (a, b)
                if pair not in pair_index:
                    pair_index[pair] = len(unique_pairs)
                    unique_pairs.append(pair)

        output_lines = []
        for a, b in unique_pairs:
            line = [0.0] * items_per_line
            line[0] = a
            line[1] = b
            output_lines.append(line)

        for item in spectra_list:
            if isinstance(item, (list, tuple)) and len(item) >= 4:
                dim = int(item[0])
                a, b = float(item[1]), float(item[2])
                eigs = item[3]
                betti, lam = self.eigenvalues_summarize(eigs)
                idx = pair_index[(a, b)]
                output_lines[idx][2 + dim] = float(betti)
                output_lines[idx][3 + top_dim + dim] = float(lam)

        with open(f"{file_prefix}_spectra_summary.txt", "w") as fh:
            header = ["a", "b"]
            for d in range(top_dim + 1):
                header.append(f"betti_{d}")
            for d in range(top_dim + 1):
                header.append(f"lambda_{d}")
            fh.write("\t".join(header) + "\n")

            for line in output_lines:
                fh.write("\t".join(str(x) for x in line) + "\n")

    def time_to_csv(self, filename: str) -> None:
        """Store profiling data to a CSV file."""
        self.profile.to_csv(filename)

    def get_all_filtrations(
        self,
        merge_tolerance: float = 1e-10,
        include_vertex_filtrations: bool = True,
    ) -> List[float]:
        """Return sorted filtration values, optionally merging near duplicates.

        Values within ``merge_tolerance`` of the preceding retained value are
        represented by the first value in that cluster.  Vertex births are
        included by default and may be negative for weighted alpha complexes.
        """
        if merge_tolerance < 0:
            raise ValueError("merge_tolerance must be non-negative")
        values: list[float] = []
        if include_vertex_filtrations and self.filtered_boundaries:
            values.extend(self.filtered_boundaries[0].domain_filtrations.cpu().tolist())
        for fbm in self.filtered_boundaries[1:]:
            values.extend(fbm.domain_filtrations.cpu().tolist())
        if not values:
            return []
        ordered = sorted(set(float(value) for value in values))
        merged = [ordered[0]]
        for value in ordered[1:]:
            if value - merged[-1] > merge_tolerance:
                merged.append(value)
        return merged

    def filtration_list_to_spectra_request(
        self, filtrations: List[float], dims: List[int]
    ) -> List[Tuple[int, float, float]]:
        """Generate (dim, a, b) for successive filtrations."""
        if not filtrations:
            return []
        requests = []
        for i in range(len(filtrations) - 1):
            a, b = filtrations[i], filtrations[i + 1]
            for dim in dims:
                requests.append((dim, a, b))
        # Final (a, a) case
        a = filtrations[-1]
        for dim in dims:
            requests.append((dim, a, a))
        return requests

    def filtration_list_to_spectra_request_allpairs(
        self, filtrations: List[float], dims: List[int]
    ) -> List[Tuple[int, float, float]]:
        """Generate (dim, a, b) for all filtration pairs with b >= a."""
        requests = []
        for i in range(len(filtrations)):
            for j in range(i, len(filtrations)):
                a, b = filtrations[i], filtrations[j]
                for dim in dims:
                    requests.append((dim, a, b))
        return requests

    def print_boundaries(self) -> None:
        """Print boundary matrices and their filtrations for debugging."""
        for i, fbm in enumerate(self.filtered_boundaries):
            print(f"\n--- d_{i} ---")
            print(fbm)
            print(f"Domain filtrations: {fbm.domain_filtrations[:10]}...")
            print(f"Range filtrations:  {fbm.range_filtrations[:10]}...")
