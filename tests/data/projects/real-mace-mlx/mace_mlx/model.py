"""Complete MACE model implementation for MLX.

Implements MACE and ScaleShiftMACE models with the same architecture
as the PyTorch MACE, enabling direct weight transfer from trained models.

Precision policy (matters for float16/bfloat16 inference):
    The geometric front-end is always computed in float32 — positions,
    edge vectors, lengths, spherical harmonics, radial basis, cutoff,
    atomic baseline energies (E0), and the final energy accumulation.
    Only the heavy per-edge/per-node feature path (interactions, products,
    readouts) runs in the compute dtype. Casting absolute positions to
    half precision before taking differences loses ~0.03 Å (fp16) to
    ~0.25 Å (bf16) of resolution at typical cell sizes and corrupts
    forces; computing edge vectors in float32 first avoids this.
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn

from mace_mlx.blocks import (
    AtomicEnergiesBlock,
    EquivariantProductBasisBlock,
    LinearNodeEmbeddingBlock,
    LinearReadoutBlock,
    NonLinearReadoutBlock,
    RealAgnosticDensityInteractionBlock,
    RealAgnosticDensityResidualInteractionBlock,
    RealAgnosticInteractionBlock,
    RealAgnosticResidualInteractionBlock,
    RealAgnosticResidualNonLinearInteractionBlock,
)
from mace_mlx.irreps import Irreps
from mace_mlx.radial import RadialEmbeddingBlock, ZBLBasis
from mace_mlx.spherical_harmonics import spherical_harmonics
from mace_mlx.utils import get_edge_vectors_and_lengths, graph_sum


class MACE(nn.Module):
    """MACE equivariant message passing neural network.

    Architecture:
    1. Compute edge vectors/lengths from positions + edge_index + shifts
    2. e0 = atomic_energies(node_attrs) -> per-atom baseline
    3. node_feats = node_embedding(node_attrs)
    4. edge_attrs = spherical_harmonics(vectors) (rotated to e3nn basis)
    5. edge_feats = radial_embedding(lengths)
    6. For each interaction layer:
       a. node_feats, sc = interaction(node_feats, node_attrs, edge_attrs, edge_feats, edge_index)
       b. node_feats = product(node_feats, node_attrs, sc)
       c. node_energy = readout(node_feats)
    7. total_energy = e0 + [pair_repulsion] + sum(readout_energies)
    """

    def __init__(
        self,
        r_max: float,
        num_bessel: int = 10,
        num_polynomial_cutoff: int = 5,
        max_ell: int = 3,
        num_interactions: int = 2,
        hidden_irreps: str = "128x0e",
        correlation: int | list[int] = 3,
        num_elements: int = 89,
        atomic_energies: mx.array | None = None,
        avg_num_neighbors: float = 1.0,
        radial_MLP: list[int] | None = None,
        gate: str = "silu",
        first_interaction_nonresidual: bool = False,
        distance_transform: dict | None = None,
        use_density_normalization: bool = False,
        heads: list[str] | None = None,
        interaction_cls: str = "RealAgnosticResidualInteractionBlock",
        edge_irreps: str | None = None,
        use_agnostic_product: bool = False,
        apply_cutoff: bool = True,
        pair_repulsion: dict | None = None,
    ):
        super().__init__()
        self.r_max = r_max

        self.max_ell = max_ell
        self.num_interactions = num_interactions

        # Multi-head support
        self.heads = heads or ["Default"]
        self.num_heads = len(self.heads)
        # Active head index (set by calculator or user)
        self._head_idx = 0

        # Feature-path compute dtype; float32 unless load_model switches it.
        self._compute_dtype = mx.float32

        if radial_MLP is None:
            radial_MLP = [64, 64, 64]

        hidden_irreps = Irreps(hidden_irreps)

        # Correlation can be a single int or per-layer list
        if isinstance(correlation, int):
            correlation = [correlation] * num_interactions

        # Node attributes irreps (one-hot encoding)
        node_attrs_irreps = Irreps(f"{num_elements}x0e")

        # Spherical harmonics irreps
        sh_irreps = Irreps.spherical_harmonics(max_ell)

        # Interaction output irreps: same multiplicity as hidden but all l values
        # For hidden_irreps = "128x0e", interaction_irreps = "128x0e + 128x1o + 128x2e + 128x3o"
        num_features = hidden_irreps[0].mul  # multiplicity of first (scalar) block
        interaction_irreps = Irreps(
            [(num_features, ir) for _, ir in sh_irreps]
        )

        # Scalar-only hidden irreps (for the last layer and node_embedding)
        hidden_irreps_scalar = Irreps(
            [(mul, ir) for mul, ir in hidden_irreps if ir.l == 0]
        )

        # Per-layer hidden_irreps:
        # All layers except the last use the full hidden_irreps (may include L>0).
        # The last layer uses only the scalar part.
        hidden_irreps_per_layer = []
        for i in range(num_interactions):
            if i < num_interactions - 1:
                hidden_irreps_per_layer.append(hidden_irreps)
            else:
                hidden_irreps_per_layer.append(hidden_irreps_scalar)

        # Readout output irreps: num_heads x 0e for multi-head, 0e for single-head
        readout_out_irreps = Irreps(f"{self.num_heads}x0e")
        # MLP hidden irreps for the NonLinearReadoutBlock: scale by num_heads
        mlp_hidden_mul = 16 * self.num_heads
        mlp_irreps = Irreps(f"{mlp_hidden_mul}x0e")

        # Parse edge_irreps for NonLinear interaction blocks
        edge_irreps_parsed = Irreps(edge_irreps) if edge_irreps is not None else None

        # 1. Atomic energies
        if atomic_energies is None:
            atomic_energies = mx.zeros(num_elements)
        self.atomic_energies_fn = AtomicEnergiesBlock(atomic_energies)

        # 2. Node embedding (always outputs scalars only)
        self.node_embedding = LinearNodeEmbeddingBlock(
            node_attrs_irreps, hidden_irreps_scalar
        )

        # 3. Radial embedding (with optional distance transform for 0b family)
        self._has_distance_transform = distance_transform is not None
        self._apply_cutoff = apply_cutoff
        self.radial_embedding = RadialEmbeddingBlock(
            r_max=r_max,
            num_bessel=num_bessel,
            num_polynomial_cutoff=num_polynomial_cutoff,
            distance_transform=distance_transform,
            apply_cutoff=apply_cutoff,
        )
        # Placeholder for atomic numbers (set by load_model via z_table).
        # Required by AgnesiTransform and ZBLBasis to map one-hot -> element.
        self._atomic_numbers: mx.array | None = None

        # Optional ZBL pair repulsion (mpa-0/0b/0b2/0b3 family).
        # pair_repulsion is a dict like {"p": 5, "a_exp": 0.3, "a_prefactor": 0.4543}.
        if pair_repulsion:
            self.pair_repulsion_fn = ZBLBasis(**pair_repulsion)
        else:
            self.pair_repulsion_fn = None

        # Resolve interaction block class
        use_nonlinear_interaction = (
            interaction_cls == "RealAgnosticResidualNonLinearInteractionBlock"
        )

        # 4. Interaction blocks + product blocks + readout blocks
        self.interactions = []
        self.products = []
        self.readouts = []

        # Track input irreps for each layer: starts as scalar from node_embedding,
        # then becomes the output of the previous layer's product block.
        layer_input_irreps = hidden_irreps_scalar

        for i in range(num_interactions):
            layer_hidden = hidden_irreps_per_layer[i]

            if use_nonlinear_interaction:
                # NonLinear interaction block (mh-1 family)
                # First layer uses scalar-only edge_irreps when input is scalar-only
                if i == 0 and edge_irreps_parsed is not None:
                    layer_edge_irreps = Irreps(
                        [(mul, ir) for mul, ir in edge_irreps_parsed if ir.l == 0]
                    )
                else:
                    layer_edge_irreps = edge_irreps_parsed

                inter = RealAgnosticResidualNonLinearInteractionBlock(
                    irreps_in=layer_input_irreps,
                    irreps_out=interaction_irreps,
                    irreps_sh=sh_irreps,
                    num_radial=num_bessel,
                    radial_MLP=radial_MLP,
                    avg_num_neighbors=avg_num_neighbors,
                    num_species=num_elements,
                    hidden_irreps=layer_hidden,
                    edge_irreps=str(layer_edge_irreps) if layer_edge_irreps else None,
                )
            elif i == 0 and first_interaction_nonresidual:
                # Use non-residual block for first interaction when flagged
                # (0b/0b2/mpa-0 family); all other layers use residual block.
                # Density variants use per-node density normalization instead
                # of dividing by avg_num_neighbors (0b2/mpa-0 family).
                NonResBlock = (
                    RealAgnosticDensityInteractionBlock
                    if use_density_normalization
                    else RealAgnosticInteractionBlock
                )
                inter = NonResBlock(
                    irreps_in=layer_input_irreps,
                    irreps_out=interaction_irreps,
                    irreps_sh=sh_irreps,
                    num_radial=num_bessel,
                    radial_MLP=radial_MLP,
                    avg_num_neighbors=avg_num_neighbors,
                    num_species=num_elements,
                )
            else:
                ResBlock = (
                    RealAgnosticDensityResidualInteractionBlock
                    if use_density_normalization
                    else RealAgnosticResidualInteractionBlock
                )
                inter = ResBlock(
                    irreps_in=layer_input_irreps,
                    irreps_out=interaction_irreps,
                    irreps_sh=sh_irreps,
                    num_radial=num_bessel,
                    radial_MLP=radial_MLP,
                    avg_num_neighbors=avg_num_neighbors,
                    num_species=num_elements,
                    hidden_irreps=layer_hidden,
                )
            self.interactions.append(inter)

            # Product basis: contracts interaction_irreps -> layer_hidden
            # Agnostic product uses num_elements=1 (element-independent weights)
            prod_num_elements = 1 if use_agnostic_product else num_elements
            prod = EquivariantProductBasisBlock(
                irreps_in=interaction_irreps,
                irreps_out=layer_hidden,
                correlation=correlation[i],
                num_elements=prod_num_elements,
            )
            self.products.append(prod)

            # Readout: linear for all but last, nonlinear for last
            if i < num_interactions - 1:
                readout = LinearReadoutBlock(
                    irreps_in=layer_hidden,
                    irreps_out=readout_out_irreps,
                )
            else:
                readout = NonLinearReadoutBlock(
                    irreps_in=layer_hidden,
                    MLP_irreps=mlp_irreps,
                    gate_fn=nn.silu,
                    irreps_out=readout_out_irreps,
                    num_heads=self.num_heads,
                )
            self.readouts.append(readout)

            # Next layer's input is this layer's output
            layer_input_irreps = layer_hidden

    def _embed_radial(
        self,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
    ) -> tuple[mx.array, mx.array | None]:
        """Compute radial embedding, forwarding extra args for distance transforms.

        Returns:
            (edge_feats, cutoff_or_None) tuple. cutoff is None when
            apply_cutoff=True (cutoff already baked into edge_feats).
        """
        if self._has_distance_transform:
            result = self.radial_embedding(
                lengths, node_attrs, edge_index, self._atomic_numbers
            )
        else:
            result = self.radial_embedding(lengths)
        if isinstance(result, tuple):
            return result
        return result, None

    def _readout_select_head(self, readout_output: mx.array) -> mx.array:
        """Select the active head from readout output.

        Args:
            readout_output: (num_atoms, num_heads) from readout block

        Returns:
            (num_atoms,) selected head energy
        """
        if self.num_heads == 1:
            return readout_output.squeeze(-1)
        return readout_output[:, self._head_idx]

    def _e0_select_head(self, e0_output: mx.array) -> mx.array:
        """Select the active head from atomic energies output.

        Args:
            e0_output: (num_atoms, num_heads) from AtomicEnergiesBlock

        Returns:
            (num_atoms,) selected head e0
        """
        if self.num_heads == 1:
            return e0_output.squeeze(-1)
        return e0_output[:, self._head_idx]

    # ------------------------------------------------------------------ #
    # Shared forward machinery
    # ------------------------------------------------------------------ #

    def _edge_features(
        self,
        vectors: mx.array,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
    ) -> tuple[mx.array, mx.array, mx.array | None]:
        """Spherical harmonics + radial embedding.

        Computed in float32 (vectors/lengths precision), then cast to the
        compute dtype for the interaction/product feature path. The SH are
        produced directly in the e3nn basis (the basis change is folded into
        the recursion's l=1 seed — the trained weights live in that basis).
        """
        edge_attrs = spherical_harmonics(
            self.max_ell, vectors, normalize=True, normalization="component",
            basis="e3nn",
        )
        edge_feats, cutoff = self._embed_radial(lengths, node_attrs, edge_index)

        dt = self._compute_dtype
        if dt != mx.float32:
            edge_attrs = edge_attrs.astype(dt)
            edge_feats = edge_feats.astype(dt)
            if cutoff is not None:
                cutoff = cutoff.astype(dt)
        return edge_attrs, edge_feats, cutoff

    def _pair_energy(
        self,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
    ) -> mx.array | None:
        """Per-node ZBL pair repulsion energy (float32), or None."""
        if self.pair_repulsion_fn is None:
            return None
        return self.pair_repulsion_fn(
            lengths, node_attrs, edge_index, self._atomic_numbers
        )

    def _run_layers(
        self,
        node_attrs: mx.array,
        edge_attrs: mx.array,
        edge_feats: mx.array,
        edge_index: mx.array,
        cutoff: mx.array | None,
    ) -> list[mx.array]:
        """Interaction/product stack + readouts -> per-layer node energies."""
        node_feats = mx.stop_gradient(self.node_embedding(node_attrs))

        node_feats_list = []
        for i in range(self.num_interactions):
            node_feats, sc = self.interactions[i](
                node_feats, node_attrs, edge_attrs, edge_feats, edge_index,
                cutoff=cutoff,
            )
            node_feats = self.products[i](node_feats, node_attrs, sc=sc)
            node_feats_list.append(node_feats)

        node_es_list = []
        for i, readout in enumerate(self.readouts):
            feat_idx = -1 if len(self.readouts) == 1 else i
            if hasattr(readout, '_num_heads') and readout._num_heads > 1:
                raw = readout(node_feats_list[feat_idx], head_idx=self._head_idx)
            else:
                raw = readout(node_feats_list[feat_idx])
            node_es_list.append(self._readout_select_head(raw))
        return node_es_list

    def _forward_core(
        self,
        vectors: mx.array,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
        batch: mx.array,
        num_graphs: int,
    ) -> tuple[mx.array, mx.array, dict]:
        """Shared forward: (per-graph energy, node_energy, extra outputs)."""
        node_attrs = mx.stop_gradient(node_attrs)

        node_e0 = self._e0_select_head(self.atomic_energies_fn(node_attrs))
        pair_e = self._pair_energy(lengths, node_attrs, edge_index)

        edge_attrs, edge_feats, cutoff = self._edge_features(
            vectors, lengths, node_attrs, edge_index
        )
        node_es_list = self._run_layers(
            node_attrs, edge_attrs, edge_feats, edge_index, cutoff
        )

        # Accumulate energies (float32 upcast for numerical stability).
        # Plain MACE: pair repulsion enters unscaled, alongside e0.
        all_es = [node_e0]
        if pair_e is not None:
            all_es.append(pair_e)
        all_es.extend(node_es_list)
        node_energy = mx.stack(
            [e.astype(mx.float32) for e in all_es], axis=0
        ).sum(axis=0)

        energy = graph_sum(
            node_energy[:, None], batch, num_graphs
        ).squeeze(-1)
        return energy, node_energy, {}

    def __call__(
        self,
        positions: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
        shifts: mx.array,
        cell: mx.array | None = None,
        batch: mx.array | None = None,
        num_graphs: int = 1,
    ) -> dict:
        """Forward pass.

        Args:
            positions: (num_atoms, 3) atom positions (float32)
            node_attrs: (num_atoms, num_elements) one-hot encoding
            edge_index: (2, num_edges) [senders, receivers]
            shifts: (num_edges, 3) periodic shift vectors (float32)
            cell: (3, 3) unit cell or None (float32)
            batch: (num_atoms,) graph membership indices or None
            num_graphs: number of graphs in the batch (avoids batch.max().item())

        Returns:
            dict with 'energy', 'node_energy' (+ 'interaction_energy' for
            ScaleShiftMACE)
        """
        num_atoms = positions.shape[0]
        if batch is None:
            batch = mx.zeros(num_atoms, dtype=mx.int32)

        # stop_gradient on inputs that don't depend on positions —
        # prevents autograd from tracking unnecessary computation branches
        shifts = mx.stop_gradient(shifts)
        if cell is not None:
            cell = mx.stop_gradient(cell)

        # Edge vectors and lengths — always float32 (see module docstring)
        vectors, lengths = get_edge_vectors_and_lengths(
            positions, edge_index, shifts, cell
        )

        energy, node_energy, extra = self._forward_core(
            vectors, lengths, node_attrs, edge_index, batch, num_graphs
        )
        return {"energy": energy, "node_energy": node_energy, **extra}

    def _forward_from_vectors_with_node_energy(
        self,
        vectors: mx.array,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
        batch: mx.array,
        num_graphs: int = 1,
    ) -> tuple[mx.array, mx.array]:
        """Compute total energy from pre-computed edge vectors and lengths.

        Used by the calculator for stress computation where vectors/lengths
        already incorporate strain and must remain differentiable.

        Returns:
            (scalar_energy, node_energy) tuple.
        """
        energy, node_energy, _ = self._forward_core(
            vectors, lengths, node_attrs, edge_index, batch, num_graphs
        )
        return energy.sum(), node_energy


class ScaleShiftMACE(MACE):
    """MACE with scale-shift applied to interaction energies.

    The scale and shift are applied to the sum of readout energies
    (excluding the atomic baseline e0):
        interaction_energy = scale * sum(readout_energies) + shift * num_atoms

    When the model has ZBL pair repulsion, the pair energy is included in
    the scaled sum (matching PyTorch MACE).

    For multi-head models, scale and shift can be vectors (one per head).
    """

    def __init__(
        self,
        scale: float | list[float] = 1.0,
        shift: float | list[float] = 0.0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        # Store as lists for multi-head indexing; scalars become 1-element lists
        if isinstance(scale, (int, float)):
            self._scale_list = [float(scale)]
        else:
            self._scale_list = [float(s) for s in scale]
        if isinstance(shift, (int, float)):
            self._shift_list = [float(shift)]
        else:
            self._shift_list = [float(s) for s in shift]

    @property
    def scale_val(self) -> float:
        """Return scale for the active head."""
        idx = self._head_idx if self._head_idx < len(self._scale_list) else 0
        return self._scale_list[idx]

    @property
    def shift_val(self) -> float:
        """Return shift for the active head."""
        idx = self._head_idx if self._head_idx < len(self._shift_list) else 0
        return self._shift_list[idx]

    def _forward_core(
        self,
        vectors: mx.array,
        lengths: mx.array,
        node_attrs: mx.array,
        edge_index: mx.array,
        batch: mx.array,
        num_graphs: int,
    ) -> tuple[mx.array, mx.array, dict]:
        node_attrs = mx.stop_gradient(node_attrs)

        node_e0 = self._e0_select_head(self.atomic_energies_fn(node_attrs))
        pair_e = self._pair_energy(lengths, node_attrs, edge_index)

        edge_attrs, edge_feats, cutoff = self._edge_features(
            vectors, lengths, node_attrs, edge_index
        )
        node_es_list = self._run_layers(
            node_attrs, edge_attrs, edge_feats, edge_index, cutoff
        )

        # Scale-shift on interaction energies (float32 upcast).
        # ZBL pair energy is part of the scaled sum (matches PyTorch MACE).
        scaled_es = ([pair_e] if pair_e is not None else []) + node_es_list
        node_inter_es = mx.stack(
            [e.astype(mx.float32) for e in scaled_es], axis=0
        ).sum(axis=0)
        node_inter_es = self.scale_val * node_inter_es + self.shift_val

        # Total node energy = e0 + scaled interaction
        node_energy = node_e0.astype(mx.float32) + node_inter_es
        e0 = graph_sum(
            node_e0.astype(mx.float32)[:, None], batch, num_graphs
        ).squeeze(-1)
        inter_e = graph_sum(
            node_inter_es[:, None], batch, num_graphs
        ).squeeze(-1)
        total_energy = e0 + inter_e

        return total_energy, node_energy, {"interaction_energy": inter_e}


_DTYPE_MAP = {
    "float32": mx.float32,
    "float16": mx.float16,
    "bfloat16": mx.bfloat16,
}


def _convert_private_arrays(model: nn.Module, dtype: mx.Dtype) -> None:
    """Convert all private mx.array attributes in the model tree to target dtype.

    nn.Module.set_dtype only converts 'valid parameters' (public attrs).
    This function also converts private attrs (prefixed with '_') that are
    mx.array with a floating dtype -- e.g. precomputed CG coefficients,
    U matrices, rotation matrices.

    MLX Module inherits from dict, so attributes are stored in the module's
    dict (module.keys()) and also in __dict__. We check both.
    """
    def _convert_value(val):
        """Convert a single value, returning the converted version."""
        if isinstance(val, mx.array) and mx.issubdtype(val.dtype, mx.floating):
            return val.astype(dtype) if val.dtype != dtype else val
        return val

    for _, module in model.named_modules():
        # Check module dict items (MLX Module is a dict subclass)
        for key in list(module.keys()):
            val = module[key]
            if isinstance(val, mx.array) and mx.issubdtype(val.dtype, mx.floating):
                if val.dtype != dtype:
                    module[key] = val.astype(dtype)
            elif isinstance(val, dict):
                for k, v in val.items():
                    converted = _convert_value(v)
                    if converted is not v:
                        val[k] = converted
            elif isinstance(val, list):
                for i, v in enumerate(val):
                    converted = _convert_value(v)
                    if converted is not v:
                        val[i] = converted

        # Also check __dict__ (instance attributes not in the module dict)
        for attr_name in list(module.__dict__.keys()):
            val = module.__dict__[attr_name]
            if isinstance(val, mx.array) and mx.issubdtype(val.dtype, mx.floating):
                if val.dtype != dtype:
                    module.__dict__[attr_name] = val.astype(dtype)


def _pin_float32(model: MACE) -> None:
    """Re-pin amplitude-sensitive arrays to float32 after a dtype conversion.

    These quantities either carry large absolute magnitudes (atomic baseline
    energies), feed the float32 geometric front-end (SH rotation, Bessel
    frequencies, covalent radii), or otherwise must not be quantized.
    """
    ae_blk = model.atomic_energies_fn
    ae_blk.atomic_energies = ae_blk.atomic_energies.astype(mx.float32)

    bessel = model.radial_embedding.bessel_fn
    bessel.bessel_weights = bessel.bessel_weights.astype(mx.float32)

    if getattr(model.radial_embedding, "_has_transform", False):
        transform = model.radial_embedding.distance_transform
        transform._covalent_radii = transform._covalent_radii.astype(mx.float32)

    if model.pair_repulsion_fn is not None:
        pr = model.pair_repulsion_fn
        pr._covalent_radii = pr._covalent_radii.astype(mx.float32)


def load_model(
    model_dir: str, dtype: str = "float32"
) -> MACE | ScaleShiftMACE:
    """Load a converted MACE model from a directory.

    Expects:
        model_dir/config.json — model hyperparameters
        model_dir/weights.npz — converted weight arrays

    Args:
        model_dir: path to directory with config.json and weights.npz
        dtype: "float32", "float16", or "bfloat16"

    Returns:
        Instantiated MACE or ScaleShiftMACE with loaded weights.
    """
    model_dir = Path(model_dir)

    with open(model_dir / "config.json") as f:
        config = json.load(f)

    model_type = config.pop("model_type", "ScaleShiftMACE")
    scale = config.pop("scale", 1.0)
    shift = config.pop("shift", 0.0)
    z_table = config.pop("z_table", None)
    heads = config.get("heads", None)

    # Convert atomic_energies back to mx.array
    if "atomic_energies" in config and config["atomic_energies"] is not None:
        config["atomic_energies"] = mx.array(config["atomic_energies"])

    if model_type == "ScaleShiftMACE":
        model = ScaleShiftMACE(scale=scale, shift=shift, **config)
    else:
        model = MACE(**config)

    # Load weights
    weights = mx.load(str(model_dir / "weights.npz"))
    # Convert flat key dict to nested dict for model.load_weights
    model.load_weights(list(weights.items()))

    # Convert model parameters to target dtype
    if dtype in ("float16", "bfloat16"):
        mx_dtype = _DTYPE_MAP[dtype]
        model.set_dtype(mx_dtype)
        # Also convert private constant arrays (CG coefficients, U matrices, etc.)
        _convert_private_arrays(model, mx_dtype)
        # Amplitude-sensitive arrays stay float32 (see module docstring)
        _pin_float32(model)

    # Store z_table and compute dtype on model for calculator use
    if z_table is not None:
        model.z_table = z_table
        model._atomic_numbers = mx.array(z_table, dtype=mx.int32)
    model._compute_dtype = _DTYPE_MAP.get(dtype, mx.float32)

    return model
