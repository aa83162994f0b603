from collections.abc import Callable
from functools import partial

from einops import rearrange

import jax
import jax.numpy as jnp
from jax.tree_util import tree_map

from jax.sharding import NamedSharding, PartitionSpec as P

from netket import jax as nkjax
from netket import config
from netket.jax._jacobian.default_mode import JacobianMode
from netket.utils import timing
from netket.utils.types import Array

from netket.jax import _ntk as nt


@timing.timed
@partial(
    jax.jit,
    static_argnames=(
        "log_psi",
        "solver_fn",
        "chunk_size",
        "mode",
    ),
)
def srt_onthefly(
    log_psi,
    local_energies,
    parameters,
    model_state,
    samples,
    *,
    diag_shift: float | Array,
    solver_fn: Callable[[Array, Array], Array],
    mode: JacobianMode,
    proj_reg: float | Array | None = None,
    momentum: float | Array | None = None,
    old_updates: Array | None = None,
    chunk_size: int | None = None,
    weights: Array | None = None,
):
    if weights is not None:
        raise NotImplementedError(
            "Weighted samples are not yet supported in srt_onthefly."
        )

    N_mc = local_energies.size

    # Split all parameters into real and imaginary parts separately
    parameters_real, rss = nkjax.tree_to_real(parameters)

    # complex: (Nmc) -> (Nmc,2) - splitting real and imaginary output like 2 classes
    # real:    (Nmc) -> (Nmc,)  - no splitting
    def _apply_fn(parameters_real, samples, model_state):
        variables = {"params": rss(parameters_real), **model_state}
        log_amp = log_psi(variables, samples)

        if mode == "complex":
            re, im = log_amp.real, log_amp.imag
            return jnp.concatenate(
                (re[:, None], im[:, None]), axis=-1
            )  # shape [N_mc,2]
        else:
            return log_amp.real  # shape [N_mc, ]

    def jvp_f_chunk(parameters, model_state, vector, samples):
        r"""
        Creates the jvp of the function `_apply_fn` with respect to the parameters.
        This jvp is then evaluated in chunks of `chunk_size` samples.
        """
        f = lambda params: _apply_fn(params, samples, model_state=model_state)
        _, acc = jax.jvp(f, (parameters,), (vector,))
        return acc

    # compute rhs of the linear system
    local_energies = local_energies.flatten()
    de = local_energies - jnp.mean(local_energies)

    # At the moment the final vjp is centered by centering the auxiliary vector a.
    # This is the same as centering the jacobian but may have larger variance.
    dv = 2.0 * de / jnp.sqrt(N_mc)  # shape [N_mc,]
    if mode == "complex":
        dv = jnp.stack([jnp.real(dv), jnp.imag(dv)], axis=-1)  # shape [N_mc,2]
    else:
        dv = jnp.real(dv)  # shape [N_mc,]

    if momentum is not None:
        if old_updates is None:
            old_updates = tree_map(jnp.zeros_like, parameters_real)
        else:
            acc = nkjax.apply_chunked(
                jvp_f_chunk, in_axes=(None, None, None, 0), chunk_size=chunk_size
            )(parameters_real, model_state, old_updates, samples)

            avg = jnp.mean(acc, axis=0)
            acc = (acc - avg) / jnp.sqrt(N_mc)
            dv -= momentum * acc

    if mode == "complex":
        dv = jax.lax.collapse(dv, 0, 2)  # shape [2*N_mc,] or [N_mc, ] if not complex

    # Collect all samples on all MPI ranks, those label the columns of the T matrix
    all_samples = samples
    if config.netket_sharding:
        samples = jax.lax.with_sharding_constraint(
            samples, NamedSharding(jax.sharding.get_abstract_mesh(), P("S", None))
        )
        all_samples = jax.lax.with_sharding_constraint(
            samples, NamedSharding(jax.sharding.get_abstract_mesh(), P())
        )

    # The NTK is centred only after the contraction below. If the per-sample
    # Jacobians share a large common component, that centring cancels it away in
    # single precision, losing the small eigenvalues of the centred NTK. We
    # therefore subtract an estimate c of the mean Jacobian from every block
    # before contracting. This does not change the centred NTK for any constant
    # shift (P (J - 1cᵀ)(J - 1cᵀ)ᵀ P = P J Jᵀ P with P 1 = 0), so c only needs to
    # remove the bulk of the common part: the mean over a few samples is enough.
    jacobian_shift = _mean_jacobian_estimate(
        _apply_fn, parameters_real, all_samples, model_state, n_subset=32
    )

    _jacobian_contraction = nt.empirical_ntk_by_jacobian(
        f=_apply_fn,
        trace_axes=(),
        vmap_axes=0,
    )

    def jacobian_contraction(
        samples, all_samples, parameters_real, model_state, jacobian_shift
    ):
        if config.netket_sharding:
            parameters_real = nkjax.lax.pcast(parameters_real, "S", to="varying")
            jacobian_shift = nkjax.lax.pcast(jacobian_shift, "S", to="varying")
        if chunk_size is None:
            # STRUCTURED_DERIVATIVES returns a complex array, but the imaginary part is zero
            # shape [N_mc/p.size, N_mc, 2, 2]
            return _jacobian_contraction(
                samples,
                all_samples,
                parameters_real,
                model_state=model_state,
                jacobian_shift=jacobian_shift,
            ).real
        else:
            _all_samples, _ = nkjax.chunk(all_samples, chunk_size=chunk_size)
            ntk_local = jax.lax.map(
                lambda batch_lattice: _jacobian_contraction(
                    samples,
                    batch_lattice,
                    parameters_real,
                    model_state=model_state,
                    jacobian_shift=jacobian_shift,
                ).real,
                _all_samples,
            )
            if mode == "complex":
                return rearrange(ntk_local, "nbatches i j z w -> i (nbatches j) z w")
            else:
                return rearrange(ntk_local, "nbatches i j -> i (nbatches j)")

    # If we are sharding, use shard_map manually
    if config.netket_sharding:
        mesh = jax.sharding.get_abstract_mesh()
        # SAMPLES, ALL_SAMPLES, PARAMETERS_REAL, MODEL_STATE, JACOBIAN_SHIFT
        in_specs = (P("S", None), P(), P(), P(), P())
        out_specs = P("S", None)

        # By default, I'm not sure whether the jacobian_contraction of NeuralTangents
        # Is correctly automatically sharded across devices. So we force it to be
        # sharded with shard map to be sure

        jacobian_contraction = jax.shard_map(
            jacobian_contraction,
            mesh=mesh,
            in_specs=in_specs,
            out_specs=out_specs,
        )

    # This disables the nkjax.sharding_decorator in here, which might appear
    # in the apply function inside.
    with nkjax.sharding._increase_SHARD_MAP_STACK_LEVEL():
        ntk_local = jacobian_contraction(
            samples, all_samples, parameters_real, model_state, jacobian_shift
        ).real

    # shape [N_mc, N_mc, 2, 2] or [N_mc, N_mc]
    if config.netket_sharding:
        # this sharding constraint should be useless, but let's keep it for safety.
        ntk = jax.lax.with_sharding_constraint(
            ntk_local, NamedSharding(jax.sharding.get_abstract_mesh(), P("S", None))
        )
    else:
        ntk = ntk_local
    if mode == "complex":
        # shape [2*N_mc, 2*N_mc] checked with direct calculation of J^T J
        ntk = rearrange(ntk, "i j z w -> (i z) (j w)")

    # Center the NTK by avoiding the construction of a big dense matrix to lower memory pressure.
    # Equivalent to the 'old'  delta = jnp.eye(N_mc) - 1 / N_mc
    # ntk = (delta_conc @ (ntk @ delta_conc)) / N_mc
    if mode == "complex":
        ntk = ntk.reshape(N_mc, 2, N_mc, 2)
        col_means = ntk.mean(axis=0, keepdims=True)  # all-reduce
        row_means = ntk.mean(axis=2, keepdims=True)  # all-reduce
        global_mean = col_means.mean(axis=2, keepdims=True)  # local, reuse mean_0
        ntk = ntk - col_means - row_means + global_mean
        ntk = ntk.reshape(2 * N_mc, 2 * N_mc)
    else:
        row_means = ntk.mean(axis=1, keepdims=True)  # local: mean over columns
        col_means = ntk.mean(axis=0, keepdims=True)  # all-reduce: mean over rows
        global_mean = col_means.mean()  # local: col_means is already replicated
        ntk = ntk - col_means - row_means + global_mean

    ntk = ntk / N_mc

    # Create identity matrix with same sharding as ntk: P("S", None)
    if config.netket_sharding:
        local_size = ntk.shape[0]
        identity = jnp.eye(local_size, dtype=ntk.dtype)
        identity = jax.lax.with_sharding_constraint(
            identity, NamedSharding(jax.sharding.get_abstract_mesh(), P("S", None))
        )
    else:
        identity = jnp.eye(ntk.shape[0], dtype=ntk.dtype)

    # add diag shift
    ntk_shifted = ntk + diag_shift * identity

    # add projection regularization
    if proj_reg is not None:
        ntk_shifted = ntk_shifted + proj_reg / N_mc

    # some solvers return a tuple, some others do not.
    aus_vector = solver_fn(ntk_shifted, dv)

    if isinstance(aus_vector, tuple):
        aus_vector, info = aus_vector
        if info is None:
            info = {}
    else:
        info = {}

    if config.netket_sharding:
        aus_vector = jax.lax.with_sharding_constraint(
            aus_vector,
            NamedSharding(jax.sharding.get_abstract_mesh(), P("S")),
        )

    aus_vector = jnp.squeeze(aus_vector)
    if mode == "complex":
        aus_vector = aus_vector.reshape((N_mc, 2))

    # Center the vector, equivalent to centering the Jacobian
    # This is equivalent to: aus_vector = delta_conc @ aus_vector
    aus_vector = (aus_vector - jnp.mean(aus_vector, axis=0, keepdims=True)) / jnp.sqrt(
        N_mc
    )
    # shape [N_mc // p.size,2]
    if config.netket_sharding:
        aus_vector = jax.lax.with_sharding_constraint(
            aus_vector,
            NamedSharding(
                jax.sharding.get_abstract_mesh(),
                P("S", *(None,) * (aus_vector.ndim - 1)),
            ),
        )

    # _, vjp_fun = jax.vjp(f, parameters_real)
    vjp_fun = nkjax.vjp_chunked(
        _apply_fn,
        parameters_real,
        samples,
        model_state,
        chunk_size=chunk_size,
        chunk_argnums=1,
        nondiff_argnums=(1, 2),
    )

    (updates,) = vjp_fun(aus_vector)  # pytree [N_params,]

    if momentum is not None:
        updates = tree_map(lambda x, y: x + momentum * y, updates, old_updates)
        old_updates = updates

    return rss(updates), old_updates, info


def _mean_jacobian_estimate(apply_fn, parameters, samples, model_state, *, n_subset):
    """
    Mean per-sample Jacobian of `apply_fn`, estimated on `n_subset` evenly strided
    samples. Leaves have shape `[*out, *param_shape]`, where `out` is the output
    shape of a single sample.
    """
    n = samples.shape[0]
    k = min(n, n_subset)
    subset = samples[jnp.arange(k) * (n // k)]

    out, vjp_fun = jax.vjp(lambda p: apply_fn(p, subset, model_state), parameters)
    if out.ndim == 1:
        (mean,) = vjp_fun(jnp.full(out.shape, 1.0 / k, out.dtype))
    else:
        # one mean per output component: cotangent i selects component i
        cotangents = jnp.broadcast_to(
            jnp.eye(out.shape[1], dtype=out.dtype)[:, None, :] / k,
            (out.shape[1], *out.shape),
        )
        (mean,) = jax.vmap(vjp_fun)(cotangents)
    return jax.lax.stop_gradient(mean)
