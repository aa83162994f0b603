"""
Copyright (c) Meta Platforms, Inc. and affiliates.

This source code is licensed under the MIT license found in the
LICENSE file in the root directory of this source tree.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import torch
import torch.nn as nn
from torch.profiler import record_function
from typing_extensions import Literal

from fairchem.core.common import gp_utils
from fairchem.core.common.parallelism.graph_parallel_a2a import (
    GPContext,
    all_to_all_collect,
)
from fairchem.core.models.uma.nn.activation import (
    GateActivation,
    SeparableS2Activation_M,
)
from fairchem.core.models.uma.nn.layer_norm import (
    get_normalization_layer,
)
from fairchem.core.models.uma.nn.mole import MOLE
from fairchem.core.models.uma.nn.so2_layers import SO2_Convolution
from fairchem.core.models.uma.nn.so3_layers import SO3_Linear

if TYPE_CHECKING:
    from fairchem.core.models.uma.common.so3 import CoefficientMapping, SO3_Grid
    from fairchem.core.models.uma.nn.execution_backends import ExecutionBackend


def set_mole_ac_start_index(module: nn.Module, index: int) -> None:
    for submodule in module.modules():
        if isinstance(submodule, MOLE):
            submodule.global_mole_tensors.ac_start_idx = index


class Edgewise(torch.nn.Module):
    def __init__(
        self,
        sphere_channels: int,
        hidden_channels: int,
        lmax: int,
        mmax: int,
        edge_channels_list: list[int],
        mappingReduced: CoefficientMapping,
        SO3_grid: SO3_Grid,
        cutoff: float,
        # Enables activation checkpointing of edges in
        # activation_checkpoint_chunk_size size edge blocks
        activation_checkpoint_chunk_size: int | None,
        backend: ExecutionBackend,
        act_type: Literal["gate", "s2"] = "gate",
    ):
        super().__init__()

        self.sphere_channels = sphere_channels
        self.hidden_channels = hidden_channels
        self.lmax = lmax
        self.mmax = mmax
        self.activation_checkpoint_chunk_size = activation_checkpoint_chunk_size
        self.backend = backend

        self.mappingReduced = mappingReduced
        self.SO3_grid = SO3_grid
        self.act_type = act_type

        if self.act_type == "gate":
            self.act = GateActivation(
                lmax=self.lmax,
                mmax=self.mmax,
                num_channels=self.hidden_channels,
                m_prime=True,
            )
            extra_m0_output_channels = self.lmax * self.hidden_channels
        elif self.act_type == "s2":
            # NOTE: this is the only place where the SO3 grid of the
            # edges (lmax/mmax) is used
            self.act = SeparableS2Activation_M(
                lmax=self.lmax,
                mmax=self.mmax,
                SO3_grid=self.SO3_grid,
                to_m=self.mappingReduced.to_m,
            )
            extra_m0_output_channels = self.hidden_channels
        else:
            raise ValueError(f"Unknown activation type {self.act_type}")

        self.so2_conv_1 = SO2_Convolution(
            2 * self.sphere_channels,
            self.hidden_channels,
            self.lmax,
            self.mmax,
            self.mappingReduced,
            internal_weights=False,
            edge_channels_list=copy.deepcopy(edge_channels_list),
            extra_m0_output_channels=extra_m0_output_channels,
        )
        self.so2_conv_2 = SO2_Convolution(
            self.hidden_channels,
            self.sphere_channels,
            self.lmax,
            self.mmax,
            self.mappingReduced,
            internal_weights=True,
            edge_channels_list=None,
            extra_m0_output_channels=None,
        )

    def forward(
        self,
        x,
        x_edge,
        edge_index,
        wigner,
        wigner_inv_envelope,
        total_atoms_across_gp_ranks,
        scatter_target: torch.Tensor | None = None,
        gp_ctx: GPContext | None = None,
    ):
        """
        Forward pass with support for both all-gather and all-to-all GP.

        When gp_ctx is provided, uses all-to-all to collect only the
        needed remote embeddings. Otherwise falls back to all-gather.

        Args:
            scatter_target: Pre-computed local target indices [E] for
                scattering edge messages to nodes. For allgather, this
                is ``edge_index[1]`` mapped to local partition space.
                For A2A, derived from ``gp_ctx.edge_index_local[1]``.
                If None, defaults to ``edge_index[1]`` (no GP).
        """
        if gp_utils.initialized():
            if gp_utils.get_gp_config().mode == "all_to_all":
                with record_function("a2a_collect"):
                    x_received = all_to_all_collect(x, gp_ctx)
                    x_full = torch.cat([x, x_received], dim=0)
                    edge_index_local = gp_ctx.edge_index_local
            else:
                with record_function("allgather_collect"):
                    x_full = gp_utils.gather_from_model_parallel_region_sum_grad(
                        x, total_atoms_across_gp_ranks
                    )
                edge_index_local = edge_index
        else:
            x_full = x
            edge_index_local = edge_index

        if self.activation_checkpoint_chunk_size is None:
            return self.forward_chunk(
                x_full,
                x.shape[0],
                x_edge,
                edge_index_local,
                wigner,
                wigner_inv_envelope,
                scatter_target,
            )
        edge_index_partitions = edge_index_local.split(
            self.activation_checkpoint_chunk_size, dim=1
        )
        scatter_target_partitions = scatter_target.split(
            self.activation_checkpoint_chunk_size
        )
        wigner_partitions = wigner.split(self.activation_checkpoint_chunk_size, dim=0)
        wigner_inv_partitions = wigner_inv_envelope.split(
            self.activation_checkpoint_chunk_size, dim=0
        )
        x_edge_partitions = x_edge.split(self.activation_checkpoint_chunk_size, dim=0)
        new_embeddings = []
        # when chunking, we need to keep track of the start index
        # of the chunk and give this information to the mole layers
        ac_mole_start_idx = 0

        for idx in range(len(edge_index_partitions)):
            new_embeddings.append(
                torch.utils.checkpoint.checkpoint(
                    self.forward_chunk,
                    x_full,
                    x.shape[0],
                    x_edge_partitions[idx],
                    edge_index_partitions[idx],
                    wigner_partitions[idx],
                    wigner_inv_partitions[idx],
                    scatter_target_partitions[idx],
                    ac_mole_start_idx,
                    use_reentrant=False,
                )
            )
            ac_mole_start_idx += edge_index_partitions[idx].shape[1]

            if len(new_embeddings) > 8:
                new_embeddings = [torch.stack(new_embeddings).sum(axis=0)]
        return torch.stack(new_embeddings).sum(axis=0)

    def forward_chunk(
        self,
        x_full,
        x_original_shape,
        x_edge,
        edge_index,
        wigner,
        wigner_inv_envelope,
        scatter_target: torch.Tensor | None = None,
        ac_mole_start_idx: int = 0,
    ):
        # here we need to update the ac_start_idx of the mole layers
        # under here for this chunking to work properly with MoLE
        set_mole_ac_start_index(self, ac_mole_start_idx)

        with record_function("SO2Conv"):
            # Both paths scatter via the caller-provided ``scatter_target``,
            # which the outer forward() pre-remaps for whichever GP mode is
            # active (A2A, allgather, or no GP). That keeps the fused fast
            # path usable in every configuration.
            if getattr(self.backend, "supports_fused_edgewise", False):
                new_embedding = self._forward_chunk_fused(
                    x_full,
                    x_original_shape,
                    x_edge,
                    edge_index,
                    wigner,
                    wigner_inv_envelope,
                    scatter_target,
                )
            else:
                x_message = self.backend.node_to_edge_wigner_permute(
                    x_full, edge_index, wigner
                )
                x_message, x_0_gating = self.so2_conv_1(x_message, x_edge)
                x_message = self.act(x_0_gating, x_message)
                x_message = self.so2_conv_2(x_message)
                new_embedding = self.backend.permute_wigner_inv_edge_to_node(
                    x_message,
                    wigner_inv_envelope,
                    scatter_target,
                    x_original_shape,
                )

        # reset ac start index
        set_mole_ac_start_index(self, 0)
        return new_embedding

    def _forward_chunk_fused(
        self,
        x_full,
        x_original_shape,
        x_edge,
        edge_index,
        wigner,
        wigner_inv_envelope,
        scatter_target: torch.Tensor,
    ):
        # Fused edgewise path for the umas_fast_gpu backend. Mirrors the
        # non-fused path but keeps the [E,9,2C]/[E,9,C] M-major intermediates
        # out of DRAM via the producer (conv1) and consumer (conv2 inv) fusions,
        # the fusions only touch wigner/pack/unpack/rotate.
        sphere_channels = x_full.shape[2]

        m0_buf, m1_buf, m2_buf = self.backend.fused_node_to_edge_conv1_pack(
            x_full, edge_index, wigner, x_edge, sphere_channels
        )
        if self.act_type == "gate":
            x0, x1, x2 = self.so2_conv_1.gemm_outputs_from_packed(
                m0_buf, m1_buf, m2_buf
            )
            x_blocks = self.backend.gate_activation(
                x0, x1, x2, self.hidden_channels, self.act
            )
            g0, g1, g2 = self.so2_conv_2.gemms_from_blocks(x_blocks)
        else:
            x_message, x_0_gating = self.so2_conv_1.gemms_from_packed(
                m0_buf, m1_buf, m2_buf
            )
            x_message = self.act(x_0_gating, x_message)
            g0, g1, g2 = self.so2_conv_2.gemms_to_buffers(x_message)
        return self.backend.fused_conv2_inv_edge_to_node(
            g0,
            g1,
            g2,
            wigner_inv_envelope,
            scatter_target,
            x_original_shape,
            sphere_channels,
        )


class SpectralAtomwise(torch.nn.Module):
    def __init__(
        self,
        sphere_channels: int,
        hidden_channels: int,
        lmax: int,
        mmax: int,
        SO3_grid: SO3_Grid,
    ):
        super().__init__()
        self.sphere_channels = sphere_channels
        self.hidden_channels = hidden_channels
        self.lmax = lmax
        self.mmax = mmax
        self.SO3_grid = SO3_grid

        self.scalar_mlp = nn.Sequential(
            nn.Linear(
                self.sphere_channels,
                self.lmax * self.hidden_channels,
                bias=True,
            ),
            nn.SiLU(),
        )

        self.so3_linear_1 = SO3_Linear(
            self.sphere_channels, self.hidden_channels, lmax=self.lmax
        )
        self.act = GateActivation(
            lmax=self.lmax, mmax=self.lmax, num_channels=self.hidden_channels
        )
        self.so3_linear_2 = SO3_Linear(
            self.hidden_channels, self.sphere_channels, lmax=self.lmax
        )

    def forward(self, x):
        gating_scalars = self.scalar_mlp(x.narrow(1, 0, 1))
        x = self.so3_linear_1(x)
        x = self.act(gating_scalars, x)
        x = self.so3_linear_2(x)
        return x


class GridAtomwise(torch.nn.Module):
    def __init__(
        self,
        sphere_channels: int,
        hidden_channels: int,
        lmax: int,
        mmax: int,
        SO3_grid: SO3_Grid,
    ):
        super().__init__()
        self.sphere_channels = sphere_channels
        self.hidden_channels = hidden_channels
        self.lmax = lmax
        self.mmax = mmax
        self.SO3_grid = SO3_grid

        self.grid_mlp = nn.Sequential(
            nn.Linear(self.sphere_channels, self.hidden_channels, bias=False),
            nn.SiLU(),
            nn.Linear(self.hidden_channels, self.hidden_channels, bias=False),
            nn.SiLU(),
            nn.Linear(self.hidden_channels, self.sphere_channels, bias=False),
        )

    def forward(self, x):
        # Project to grid
        x_grid = self.SO3_grid["lmax_lmax"].to_grid(x, self.lmax, self.lmax)
        # Perform point-wise operations
        x_grid = self.grid_mlp(x_grid)
        # Project back to spherical harmonic coefficients
        x = self.SO3_grid["lmax_lmax"].from_grid(x_grid, self.lmax, self.lmax)
        return x


class eSCNMD_Block(torch.nn.Module):
    def __init__(
        self,
        sphere_channels: int,
        hidden_channels: int,
        lmax: int,
        mmax: int,
        mappingReduced: CoefficientMapping,
        SO3_grid: SO3_Grid,
        edge_channels_list: list[int],
        cutoff: float,
        norm_type: Literal["layer_norm", "layer_norm_sh", "rms_norm_sh"],
        act_type: Literal["gate", "s2"],
        ff_type: Literal["spectral", "grid"],
        activation_checkpoint_chunk_size: int | None,
        backend: ExecutionBackend,
    ) -> None:
        super().__init__()
        self.sphere_channels = sphere_channels
        self.hidden_channels = hidden_channels
        self.lmax = lmax
        self.mmax = mmax

        self.norm_1 = get_normalization_layer(
            norm_type, lmax=self.lmax, num_channels=sphere_channels
        )

        self.edge_wise = Edgewise(
            sphere_channels=sphere_channels,
            hidden_channels=hidden_channels,
            lmax=lmax,
            mmax=mmax,
            edge_channels_list=edge_channels_list,
            mappingReduced=mappingReduced,
            SO3_grid=SO3_grid,
            cutoff=cutoff,
            act_type=act_type,
            activation_checkpoint_chunk_size=activation_checkpoint_chunk_size,
            backend=backend,
        )

        self.norm_2 = get_normalization_layer(
            norm_type, lmax=self.lmax, num_channels=sphere_channels
        )

        if ff_type == "spectral":
            self.atom_wise = SpectralAtomwise(
                sphere_channels=sphere_channels,
                hidden_channels=hidden_channels,
                lmax=lmax,
                mmax=mmax,
                SO3_grid=SO3_grid,
            )
        elif ff_type == "grid":
            self.atom_wise = GridAtomwise(
                sphere_channels=sphere_channels,
                hidden_channels=hidden_channels,
                lmax=lmax,
                mmax=mmax,
                SO3_grid=SO3_grid,
            )

    def forward(
        self,
        x,
        x_edge,
        edge_index,
        wigner,
        wigner_inv_envelope,
        total_atoms_across_gp_ranks,
        sys_node_embedding=None,
        scatter_target: torch.Tensor | None = None,
        gp_ctx: GPContext | None = None,
    ):
        x_res = x
        x = self.norm_1(x)

        if sys_node_embedding is not None:
            x[:, 0, :] = x[:, 0, :] + sys_node_embedding

        with record_function("edgewise"):
            x = self.edge_wise(
                x,
                x_edge,
                edge_index,
                wigner,
                wigner_inv_envelope,
                total_atoms_across_gp_ranks=total_atoms_across_gp_ranks,
                scatter_target=scatter_target,
                gp_ctx=gp_ctx,
            )
            x = x + x_res

        x_res = x
        x = self.norm_2(x)

        with record_function("atomwise"):
            x = self.atom_wise(x)
            x = x + x_res

        return x
