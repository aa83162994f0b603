from gridfm_graphkit.datasets.globals import (
    # Bus feature indices
    PD_H,
    QD_H,
    QG_H,
    VM_H,
    VA_H,
    # Generator feature indices
    PG_H,
    MIN_VM_H,
    MAX_VM_H,
    MIN_QG_H,
    MAX_QG_H,
    # Output feature indices
    VM_OUT,
    VA_OUT,
    PG_OUT,
    QG_OUT,
)

from gridfm_graphkit.datasets.masking import RemovePFMask
from gridfm_graphkit.tasks.reconstruction_tasks import ReconstructionTask
from gridfm_graphkit.io.registries import TASK_REGISTRY
from gridfm_graphkit.tasks.utils import (
    embedding_table_from_tensor,
    local_index_per_graph,
    plot_correlation_by_node_type,
    plot_residuals_histograms,
    residual_stats_by_type,
    compute_branch_predictions,
)
import torch
import torch.distributed as dist
import torch.nn.functional as F

try:
    from torch_scatter import scatter_add
except ImportError:
    scatter_add = None

from torch_geometric.nn import global_mean_pool
from gridfm_graphkit.models.utils import (
    ComputeBranchFlow,
    ComputeNodeInjection,
    ComputeNodeResiduals,
)
from lightning.pytorch.loggers import MLFlowLogger
import os
import pandas as pd


def _build_bus_target(batch, num_bus):
    """Build a 4-column bus-level target tensor [VM, VA, PG_agg, QG].

    Generator PG is aggregated onto buses via scatter_add so that the
    target layout matches the bus head output columns.
    """
    _, gen_to_bus_index = batch.edge_index_dict[("gen", "connected_to", "bus")]
    agg_gen_on_bus = scatter_add(
        batch.y_dict["gen"],
        gen_to_bus_index,
        dim=0,
        dim_size=num_bus,
    )
    target = torch.stack(
        [
            batch.y_dict["bus"][:, VM_H],
            batch.y_dict["bus"][:, VA_H],
            agg_gen_on_bus.squeeze(),
            batch.y_dict["bus"][:, QG_H],
        ],
        dim=1,
    )
    return target, gen_to_bus_index, agg_gen_on_bus


def _clamp_known_to_ground_truth(output_bus, target, batch, gen_to_bus_index, num_bus):
    """Replace predicted values with ground truth for known (unmasked) quantities.

    During both training (PBELoss) and evaluation, the model is only
    responsible for predicting masked unknowns.  Known quantities (e.g.
    VM at PV buses, VA at REF, PG at non-slack generators) are clamped to
    ground truth so that prediction errors on non-target outputs do not
    pollute the power-balance residual.
    """
    mask_bus = batch.mask_dict["bus"]
    eval_bus = output_bus.clone()
    eval_bus[:, VM_OUT] = torch.where(
        mask_bus[:, VM_H],
        output_bus[:, VM_OUT],
        target[:, VM_OUT],
    )
    eval_bus[:, VA_OUT] = torch.where(
        mask_bus[:, VA_H],
        output_bus[:, VA_OUT],
        target[:, VA_OUT],
    )
    gen_pg_masked = batch.mask_dict["gen"][:, PG_H].float()
    any_gen_masked = (
        scatter_add(gen_pg_masked, gen_to_bus_index, dim=0, dim_size=num_bus) > 0
    )
    eval_bus[:, PG_OUT] = torch.where(
        any_gen_masked,
        output_bus[:, PG_OUT],
        target[:, PG_OUT],
    )
    eval_bus[:, QG_OUT] = torch.where(
        mask_bus[:, QG_H],
        output_bus[:, QG_OUT],
        target[:, QG_OUT],
    )
    return eval_bus


@TASK_REGISTRY.register("PowerFlow")
class PowerFlowTask(ReconstructionTask):
    """
    Concrete Power Flow task.
    Extends ReconstructionTask and adds PF-specific evaluation metrics
    (power balance residuals, per-bus-type RMSE).
    """

    def __init__(self, args, data_normalizers):
        super().__init__(args, data_normalizers)

    def test_step(self, batch, batch_idx, dataloader_idx=0):
        output, loss_dict = self.shared_step(batch)
        dataset_name = self.args.data.networks[dataloader_idx]

        self.data_normalizers[dataloader_idx].inverse_transform(batch)
        self.data_normalizers[dataloader_idx].inverse_output(output, batch)
        RemovePFMask()(batch)

        branch_flow_layer = ComputeBranchFlow()
        node_injection_layer = ComputeNodeInjection()
        node_residuals_layer = ComputeNodeResiduals()

        num_bus = batch.x_dict["bus"].size(0)
        bus_edge_index = batch.edge_index_dict[("bus", "connects", "bus")]
        bus_edge_attr = batch.edge_attr_dict[("bus", "connects", "bus")]

        target, gen_to_bus_index, agg_gen_on_bus = _build_bus_target(batch, num_bus)
        eval_bus = _clamp_known_to_ground_truth(
            output["bus"],
            target,
            batch,
            gen_to_bus_index,
            num_bus,
        )

        Pft, Qft = branch_flow_layer(eval_bus, bus_edge_index, bus_edge_attr)
        P_in, Q_in = node_injection_layer(Pft, Qft, bus_edge_index, num_bus)
        residual_P, residual_Q = node_residuals_layer(
            P_in,
            Q_in,
            eval_bus,
            batch.x_dict["bus"],
        )

        bus_batch = batch.batch_dict["bus"]  # shape: [num_bus_total]

        mask_PQ = batch.mask_dict["PQ"]  # PQ buses
        mask_PV = batch.mask_dict["PV"]  # PV buses
        mask_REF = batch.mask_dict["REF"]  # Reference buses

        if self.args.verbose:
            mean_res_P_PQ, max_res_P_PQ = residual_stats_by_type(
                residual_P,
                mask_PQ,
                bus_batch,
            )
            mean_res_Q_PQ, max_res_Q_PQ = residual_stats_by_type(
                residual_Q,
                mask_PQ,
                bus_batch,
            )

            mean_res_P_PV, max_res_P_PV = residual_stats_by_type(
                residual_P,
                mask_PV,
                bus_batch,
            )
            mean_res_Q_PV, max_res_Q_PV = residual_stats_by_type(
                residual_Q,
                mask_PV,
                bus_batch,
            )

            mean_res_P_REF, max_res_P_REF = residual_stats_by_type(
                residual_P,
                mask_REF,
                bus_batch,
            )
            mean_res_Q_REF, max_res_Q_REF = residual_stats_by_type(
                residual_Q,
                mask_REF,
                bus_batch,
            )
            self.test_outputs[dataloader_idx].append(
                {
                    "dataset": dataset_name,
                    "pred": output["bus"].detach().cpu(),
                    "target": target.detach().cpu(),
                    "mask_PQ": mask_PQ.cpu(),
                    "mask_PV": mask_PV.cpu(),
                    "mask_REF": mask_REF.cpu(),
                    "mean_residual_P_PQ": mean_res_P_PQ.detach().cpu(),
                    "max_residual_P_PQ": max_res_P_PQ.detach().cpu(),
                    "mean_residual_Q_PQ": mean_res_Q_PQ.detach().cpu(),
                    "max_residual_Q_PQ": max_res_Q_PQ.detach().cpu(),
                    "mean_residual_P_PV": mean_res_P_PV.detach().cpu(),
                    "max_residual_P_PV": max_res_P_PV.detach().cpu(),
                    "mean_residual_Q_PV": mean_res_Q_PV.detach().cpu(),
                    "max_residual_Q_PV": max_res_Q_PV.detach().cpu(),
                    "mean_residual_P_REF": mean_res_P_REF.detach().cpu(),
                    "max_residual_P_REF": max_res_P_REF.detach().cpu(),
                    "mean_residual_Q_REF": mean_res_Q_REF.detach().cpu(),
                    "max_residual_Q_REF": max_res_Q_REF.detach().cpu(),
                },
            )

        final_residual_real_bus = torch.mean(torch.abs(residual_P))
        final_residual_imag_bus = torch.mean(torch.abs(residual_Q))

        loss_dict["Active Power Loss"] = final_residual_real_bus.detach()
        loss_dict["Reactive Power Loss"] = final_residual_imag_bus.detach()

        # Power Balance Error (PBE) metrics
        delta_PQ_2 = residual_P**2 + residual_Q**2
        delta_PQ_magn = torch.sqrt(delta_PQ_2)
        pbe_mean_per_graph = global_mean_pool(delta_PQ_magn, bus_batch)  # [num_graphs]
        pbe_mean = pbe_mean_per_graph.mean()
        pbe_max = delta_PQ_magn.max()

        loss_dict["PBE Mean"] = pbe_mean.detach()

        # Slice output to the 4 target columns [VM, VA, PG, QG] so that
        # models with wider bus output (e.g. GRIT with output_bus_dim=6)
        # are compared correctly against the 4-column target.
        output_bus_metrics = output["bus"][:, [VM_OUT, VA_OUT, PG_OUT, QG_OUT]]

        mse_PQ = F.mse_loss(
            output_bus_metrics[mask_PQ],
            target[mask_PQ],
            reduction="none",
        )
        mse_PV = F.mse_loss(
            output_bus_metrics[mask_PV],
            target[mask_PV],
            reduction="none",
        )
        mse_REF = F.mse_loss(
            output_bus_metrics[mask_REF],
            target[mask_REF],
            reduction="none",
        )

        mse_PQ = mse_PQ.mean(dim=0)
        mse_PV = mse_PV.mean(dim=0)
        mse_REF = mse_REF.mean(dim=0)

        loss_dict["MSE PQ nodes - PG"] = mse_PQ[PG_OUT]
        loss_dict["MSE PV nodes - PG"] = mse_PV[PG_OUT]
        loss_dict["MSE REF nodes - PG"] = mse_REF[PG_OUT]

        loss_dict["MSE PQ nodes - QG"] = mse_PQ[QG_OUT]
        loss_dict["MSE PV nodes - QG"] = mse_PV[QG_OUT]
        loss_dict["MSE REF nodes - QG"] = mse_REF[QG_OUT]

        loss_dict["MSE PQ nodes - VM"] = mse_PQ[VM_OUT]
        loss_dict["MSE PV nodes - VM"] = mse_PV[VM_OUT]
        loss_dict["MSE REF nodes - VM"] = mse_REF[VM_OUT]

        loss_dict["MSE PQ nodes - VA"] = mse_PQ[VA_OUT]
        loss_dict["MSE PV nodes - VA"] = mse_PV[VA_OUT]
        loss_dict["MSE REF nodes - VA"] = mse_REF[VA_OUT]

        loss_dict["Test loss"] = loss_dict.pop("loss").detach()
        for metric, value in loss_dict.items():
            metric_name = f"{dataset_name}/{metric}"
            self.log(
                metric_name,
                value,
                batch_size=batch.num_graphs,
                add_dataloader_idx=False,
                sync_dist=True,
                logger=False,
            )
        # Log PBE Max separately with max reduction across batches
        self.log(
            f"{dataset_name}/PBE Max",
            pbe_max.detach(),
            batch_size=batch.num_graphs,
            add_dataloader_idx=False,
            sync_dist=True,
            logger=False,
            reduce_fx="max",
        )
        return

    def on_test_end(self):
        # In DDP, gather verbose test outputs from all ranks to rank 0
        # so that plots and detailed analysis cover the full test set.
        if self.args.verbose and dist.is_available() and dist.is_initialized():
            world_size = dist.get_world_size()
            gathered = [None] * world_size if dist.get_rank() == 0 else None
            dist.gather_object(self.test_outputs, gathered, dst=0)
            if dist.get_rank() == 0:
                merged = {i: [] for i in range(len(self.args.data.networks))}
                for rank_data in gathered:
                    for dl_idx, batches in rank_data.items():
                        merged[dl_idx].extend(batches)
                self.test_outputs = merged

        # Only rank 0 proceeds with logging, CSV writing, and plotting
        if dist.is_available() and dist.is_initialized() and dist.get_rank() != 0:
            self.test_outputs.clear()  # clear the test outputs for other ranks
            return

        if isinstance(self.logger, MLFlowLogger):
            artifact_dir = os.path.join(
                self.logger.save_dir,
                self.logger.experiment_id,
                self.logger.run_id,
                "artifacts",
            )
        else:
            artifact_dir = self.logger.save_dir

        final_metrics = self.trainer.callback_metrics
        grouped_metrics = {}

        for full_key, value in final_metrics.items():
            try:
                value = value.item()
            except AttributeError:
                pass

            if "/" in full_key:
                dataset_name, metric = full_key.split("/", 1)
                if dataset_name not in grouped_metrics:
                    grouped_metrics[dataset_name] = {}
                grouped_metrics[dataset_name][metric] = value

        for dataset, metrics in grouped_metrics.items():
            # RMSE metrics
            rmse_PQ = [
                metrics.get(f"MSE PQ nodes - {label}", float("nan")) ** 0.5
                for label in ["PG", "QG", "VM", "VA"]
            ]
            rmse_PV = [
                metrics.get(f"MSE PV nodes - {label}", float("nan")) ** 0.5
                for label in ["PG", "QG", "VM", "VA"]
            ]
            rmse_REF = [
                metrics.get(f"MSE REF nodes - {label}", float("nan")) ** 0.5
                for label in ["PG", "QG", "VM", "VA"]
            ]

            # Residuals and generator metrics
            avg_active_res = metrics.get("Active Power Loss", " ")
            avg_reactive_res = metrics.get("Reactive Power Loss", " ")
            pbe_mean_val = metrics.get("PBE Mean", " ")
            pbe_max_val = metrics.get("PBE Max", " ")

            # --- Main RMSE metrics file ---
            data_main = {
                "Metric": ["RMSE-PQ", "RMSE-PV", "RMSE-REF"],
                "Pg (MW)": [rmse_PQ[0], rmse_PV[0], rmse_REF[0]],
                "Qg (MVar)": [rmse_PQ[1], rmse_PV[1], rmse_REF[1]],
                "Vm (p.u.)": [rmse_PQ[2], rmse_PV[2], rmse_REF[2]],
                "Va (radians)": [rmse_PQ[3], rmse_PV[3], rmse_REF[3]],
            }
            df_main = pd.DataFrame(data_main)

            # --- Residuals / generator metrics file ---
            data_residuals = {
                "Metric": [
                    "Avg. active res. (MW)",
                    "Avg. reactive res. (MVar)",
                    "PBE Mean",
                    "PBE Max",
                ],
                "Value": [avg_active_res, avg_reactive_res, pbe_mean_val, pbe_max_val],
            }
            df_residuals = pd.DataFrame(data_residuals)

            # --- Save CSVs ---
            test_dir = os.path.join(artifact_dir, "test")
            os.makedirs(test_dir, exist_ok=True)

            main_csv_path = os.path.join(test_dir, f"{dataset}_RMSE.csv")
            residuals_csv_path = os.path.join(test_dir, f"{dataset}_metrics.csv")

            df_main.to_csv(main_csv_path, index=False)
            df_residuals.to_csv(residuals_csv_path, index=False)

        if self.args.verbose:
            for dataset_idx, outputs in self.test_outputs.items():
                dataset_name = self.args.data.networks[dataset_idx]

                plot_dir = os.path.join(artifact_dir, "test_plots", dataset_name)
                os.makedirs(plot_dir, exist_ok=True)

                # Concatenate predictions and targets across all batches
                all_preds = torch.cat([d["pred"] for d in outputs])
                all_targets = torch.cat([d["target"] for d in outputs])
                all_masks = {
                    "PQ": torch.cat([d["mask_PQ"] for d in outputs]),
                    "PV": torch.cat([d["mask_PV"] for d in outputs]),
                    "REF": torch.cat([d["mask_REF"] for d in outputs]),
                }

                plot_residuals_histograms(outputs, dataset_name, plot_dir)

                plot_correlation_by_node_type(
                    preds=all_preds,
                    targets=all_targets,
                    masks=all_masks,
                    feature_labels=["Vm", "Va", "Pg", "Qg"],
                    plot_dir=plot_dir,
                    prefix=dataset_name,
                )

        self.test_outputs.clear()

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        # Predict only needs the forward pass; shared_step would also compute a
        # loss that is discarded here (and would require targets to be present).
        if getattr(self.args, "get_embeddings", False):
            output, embeddings = self.model(batch, return_embeddings=True)
        else:
            output, embeddings = self.model(batch), None

        self.data_normalizers[dataloader_idx].inverse_transform(
            batch,
        )  # normalize the batch data back to the original scale
        self.data_normalizers[dataloader_idx].inverse_output(
            output,
            batch,
        )  # inverse transform the predicted output back to the original scale
        RemovePFMask()(batch)

        branch_flow_layer = ComputeBranchFlow()  # layer to compute the branch flows
        node_injection_layer = (
            ComputeNodeInjection()
        )  # layer to compute the node injections
        node_residuals_layer = (
            ComputeNodeResiduals()
        )  # layer to compute the node residuals

        num_bus = batch.x_dict["bus"].size(0)  # number of buses in the batch
        bus_edge_index = batch.edge_index_dict[
            ("bus", "connects", "bus")
        ]  # from and to buses
        bus_edge_attr = batch.edge_attr_dict[
            ("bus", "connects", "bus")
        ]  # edge attributes (admittance) of the bus connections

        target, gen_to_bus_index, agg_gen_on_bus = _build_bus_target(batch, num_bus)
        eval_bus = _clamp_known_to_ground_truth(
            output["bus"],
            target,
            batch,
            gen_to_bus_index,
            num_bus,
        )

        Pft, Qft = branch_flow_layer(
            eval_bus,
            bus_edge_index,
            bus_edge_attr,
        )  # compute the branch flows
        P_in, Q_in = node_injection_layer(
            Pft,
            Qft,
            bus_edge_index,
            num_bus,
        )  # compute the node injections
        residual_P, residual_Q = node_residuals_layer(  # compute the node residuals
            P_in,
            Q_in,
            eval_bus,
            batch.x_dict["bus"],
        )
        residual_P = torch.abs(residual_P)
        residual_Q = torch.abs(residual_Q)
        residual_mva = torch.sqrt(residual_P**2 + residual_Q**2)

        bus_batch = batch.batch_dict["bus"]
        scenario_ids = batch["scenario_id"][bus_batch]
        local_bus_idx = local_index_per_graph(bus_batch)
        # this is based on the assumptions that the buses within a graph are ordered and indexed as 0 ... n_nodes-1.
        # todo: we should remove this assert and store the bus idx in the tensors
        # right now we need the increasing order and we have an assert in the dataset to check it.
        bus_x = batch.x_dict["bus"]
        bus_y = batch.y_dict["bus"]
        mask_PQ = batch.mask_dict["PQ"]
        mask_PV = batch.mask_dict["PV"]
        mask_REF = batch.mask_dict["REF"]

        bus_predictions = {
            "scenario": scenario_ids.cpu().numpy(),
            "bus": local_bus_idx.cpu().numpy(),
            "Pd": bus_x[:, PD_H].cpu().numpy(),
            "Qd": bus_x[:, QD_H].cpu().numpy(),
            "Vm_min": bus_x[:, MIN_VM_H].cpu().numpy(),
            "Vm_max": bus_x[:, MAX_VM_H].cpu().numpy(),
            "Qg_min": bus_x[:, MIN_QG_H].cpu().numpy(),
            "Qg_max": bus_x[:, MAX_QG_H].cpu().numpy(),
            "Vm_target": bus_y[:, VM_H].cpu().numpy(),
            "Va_target": bus_y[:, VA_H].cpu().numpy(),
            "Pg_target": agg_gen_on_bus.squeeze().cpu().numpy(),
            "Qg_target": bus_y[:, QG_H].cpu().numpy(),
            "PQ": mask_PQ.cpu().numpy().astype(int),
            "PV": mask_PV.cpu().numpy().astype(int),
            "REF": mask_REF.cpu().numpy().astype(int),
            "Vm_pred": output["bus"][:, VM_OUT].detach().cpu().numpy(),
            "Va_pred": output["bus"][:, VA_OUT].detach().cpu().numpy(),
            "Pg_pred": output["bus"][:, PG_OUT].detach().cpu().numpy(),
            "Qg_pred": output["bus"][:, QG_OUT].detach().cpu().numpy(),
            "active res. (MW)": residual_P.detach().cpu().numpy(),
            "reactive res. (MVar)": residual_Q.detach().cpu().numpy(),
            "PBE": residual_mva.detach().cpu().numpy(),
        }

        branch_predictions = compute_branch_predictions(
            eval_bus,
            target,
            bus_edge_index,
            bus_edge_attr,
            scenario_ids,
            local_bus_idx,
        )
        if embeddings is None or "bus" not in embeddings:
            return {
                "bus": bus_predictions,
                "branch": branch_predictions,
            }
        return {
            "bus": bus_predictions,
            "branch": branch_predictions,
            "bus_embeddings": embedding_table_from_tensor(
                embeddings["bus"],
                id_columns={
                    "scenario": scenario_ids.cpu().numpy(),
                    "bus": local_bus_idx.cpu().numpy(),
                },
            ),
        }
