"""Module to prepare LMDB ALIGNN dataset."""

from __future__ import annotations

import os
import numpy as np
import lmdb
from jarvis.core.atoms import Atoms
from jarvis.db.figshare import data
from alignn.graphs import Graph
import pickle as pk
from torch.utils.data import Dataset
import torch
from tqdm import tqdm
from typing import List, Tuple

try:
    import dgl
except ImportError:
    dgl = None


# How often to commit the LMDB write transaction during a fresh build.
# Holding a single transaction across all entries keeps every dirty page
# resident in RAM until commit; flushing periodically caps peak memory.
LMDB_COMMIT_EVERY = 5000


def prepare_line_graph_batch(
    batch: Tuple[Tuple[dgl.DGLGraph, dgl.DGLGraph], torch.Tensor],
    device=None,
    non_blocking=False,
):
    """Send line graph batch to device.

    Note: the batch is a nested tuple, with the graph and line graph together
    """
    g, lg, t, id = batch
    batch = (
        (
            g.to(device, non_blocking=non_blocking),
            lg.to(device, non_blocking=non_blocking),
        ),
        t.to(device, non_blocking=non_blocking),
    )

    return batch


class TorchLMDBDataset(Dataset):
    """Dataset of crystal DGLGraphs using LMDB."""

    def __init__(self, lmdb_path="", line_graph=True, ids=[]):
        """Intitialize with path and ids array."""
        super(TorchLMDBDataset, self).__init__()
        self.lmdb_path = lmdb_path
        self.ids = ids
        self.line_graph = line_graph
        self.env = lmdb.open(self.lmdb_path, readonly=True, lock=False)
        with self.env.begin() as txn:
            self.length = txn.stat()["entries"]
        self.prepare_batch = prepare_line_graph_batch

    def __len__(self):
        """Get length."""
        return self.length

    def __getitem__(self, idx):
        """Get sample."""
        with self.env.begin() as txn:
            serialized_data = txn.get(f"{idx}".encode())
        if self.line_graph:
            graph, line_graph, lattice, label = pk.loads(serialized_data)
            return graph, line_graph, lattice, label
        else:
            graph, lattice, label = pk.loads(serialized_data)
            return graph, lattice, label

    def close(self):
        """Close connection."""
        self.env.close()

    def __del__(self):
        """Delete connection."""
        self.close()

    @staticmethod
    def collate(samples: List[Tuple[dgl.DGLGraph, torch.Tensor]]):
        """Dataloader helper to batch graphs cross `samples`."""
        # print('samples',samples)
        graphs, lattices, labels = map(list, zip(*samples))
        # graphs, lgs, labels = map(list, zip(*samples))
        batched_graph = dgl.batch(graphs)
        if len(labels[0].size()) > 0:
            return batched_graph, torch.stack(lattices), torch.stack(labels)
        else:
            return batched_graph, torch.stack(lattices), torch.tensor(labels)

    @staticmethod
    def collate_line_graph(
        samples: List[Tuple[dgl.DGLGraph, dgl.DGLGraph, torch.Tensor]],
    ):
        """Dataloader helper to batch graphs cross `samples`."""
        graphs, line_graphs, lattices, labels = map(list, zip(*samples))
        batched_graph = dgl.batch(graphs)
        batched_line_graph = dgl.batch(line_graphs)
        if len(labels[0].size()) > 0:
            return (
                batched_graph,
                batched_line_graph,
                torch.stack(lattices),
                torch.stack(labels),
            )
        else:
            return (
                batched_graph,
                batched_line_graph,
                torch.stack(lattices),
                torch.tensor(labels),
            )


def _mem_gb():
    """Resident memory of the current process in GB (for diagnostics)."""
    try:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss / 1e9
    except Exception:
        return float("nan")


def get_torch_dataset(
    dataset=[],
    id_tag="jid",
    target="",
    target_atomwise="",
    target_grad="",
    target_stress="",
    target_additional_output="",
    neighbor_strategy="k-nearest",
    atom_features="cgcnn",
    use_canonize="",
    name="",
    line_graph=True,
    cutoff=8.0,
    cutoff_extra=3.0,
    max_neighbors=12,
    three_body_cutoff=None,
    classification=False,
    sampler=None,
    output_dir=".",
    tmp_name="dataset",
    map_size=1e12,
    read_existing=False,
    dtype="float32",
):
    """Get Torch Dataset with LMDB."""
    vals = np.array([ii[target] for ii in dataset])  # df[target].values
    print("data range", np.max(vals), np.min(vals))
    print("line_graph", line_graph)
    f = open(os.path.join(output_dir, tmp_name + "_data_range"), "w")
    line = "Max=" + str(np.max(vals)) + "\n"
    f.write(line)
    line = "Min=" + str(np.min(vals)) + "\n"
    f.write(line)
    f.close()

    print(f"[MEM] {tmp_name}: entry: {_mem_gb():.2f} GB")

    ids = []
    if os.path.exists(tmp_name) and read_existing:
        # Validate the cache backend matches (DGL). A previous run with
        # model.name="alignn_atomwise_pure" would have left TorchGraph
        # pickles here, which dgl.batch can't consume.
        _env = lmdb.open(tmp_name, readonly=True, lock=False)
        with _env.begin() as _txn:
            _probe = _txn.get(b"0")
        _env.close()
        if _probe is not None:
            _sample = pk.loads(_probe)
            _graph = _sample[0]
            if dgl is None or not isinstance(_graph, dgl.DGLGraph):
                raise RuntimeError(
                    f"LMDB cache at '{tmp_name}' contains "
                    f"{type(_graph).__name__} records, not DGLGraph. "
                    "Delete the stale cache (e.g. `rm -rf "
                    f"{tmp_name}`) and rerun — it was built for a "
                    "different model backend."
                )
        for idx, (d) in tqdm(enumerate(dataset), total=len(dataset)):
            ids.append(d[id_tag])
        dat = TorchLMDBDataset(
            lmdb_path=tmp_name, line_graph=line_graph, ids=ids
        )
        print("Reading dataset", tmp_name)
        print(
            f"[MEM] {tmp_name}: after TorchLMDBDataset (cached): "
            f"{_mem_gb():.2f} GB"
        )
        return dat

    ids = []
    # Fresh build: wipe any pre-existing cache dir to avoid mixing old
    # records (possibly from a different model backend) with new writes.
    if os.path.exists(tmp_name):
        import shutil

        shutil.rmtree(tmp_name)
    env = lmdb.open(tmp_name, map_size=int(map_size))

    print(f"[MEM] {tmp_name}: before write loop: {_mem_gb():.2f} GB")

    # Use periodic commits instead of one giant transaction. A single
    # write txn around 1.5M put() calls keeps every dirty page in RAM
    # until commit and was the cause of OOM on 62 GB hosts.
    txn = env.begin(write=True)
    try:
        for idx, (d) in tqdm(enumerate(dataset), total=len(dataset)):
            ids.append(d[id_tag])
            atoms = Atoms.from_dict(d["atoms"])
            g = Graph.atom_dgl_multigraph(
                atoms,
                cutoff=float(cutoff),
                max_neighbors=max_neighbors,
                atom_features=atom_features,
                compute_line_graph=line_graph,
                use_canonize=use_canonize,
                cutoff_extra=cutoff_extra,
                neighbor_strategy=neighbor_strategy,
                three_body_cutoff=three_body_cutoff,
                dtype=dtype,
            )
            if line_graph:
                g, lg = g
            lattice = torch.tensor(atoms.lattice_mat).type(
                torch.get_default_dtype()
            )
            label = torch.tensor(d[target]).type(torch.get_default_dtype())
            natoms = len(d["atoms"]["elements"])
            if classification:
                label = label.long()
            if "extra_features" in d:
                g.ndata["extra_features"] = torch.tensor(
                    [d["extra_features"] for n in range(natoms)]
                ).type(torch.get_default_dtype())
            if target_atomwise is not None and target_atomwise != "":
                g.ndata[target_atomwise] = torch.tensor(
                    np.array(d[target_atomwise])
                ).type(torch.get_default_dtype())
            if target_grad is not None and target_grad != "":
                arr = np.array(d[target_grad])
                try:
                    g.ndata[target_grad] = torch.tensor(arr).type(
                        torch.get_default_dtype()
                    )
                except Exception:
                    arr = arr.reshape(1, -1)
                    g.ndata[target_grad] = torch.tensor(arr).type(
                        torch.get_default_dtype()
                    )
            if target_stress is not None and target_stress != "":
                stress = np.array(d[target_stress])
                g.ndata[target_stress] = torch.tensor(
                    np.array([stress for ii in range(g.number_of_nodes())])
                ).type(torch.get_default_dtype())
            if (
                target_additional_output is not None
                and target_additional_output != ""
            ):
                additional_output = np.array(d[target_additional_output])
                g.ndata[target_additional_output] = torch.tensor(
                    ([additional_output for ii in range(natoms)])
                ).type(torch.get_default_dtype())

            if line_graph:
                serialized_data = pk.dumps((g, lg, lattice, label))
            else:
                serialized_data = pk.dumps((g, lattice, label))
            txn.put(f"{idx}".encode(), serialized_data)

            # Flush dirty pages to disk every LMDB_COMMIT_EVERY entries.
            if (idx + 1) % LMDB_COMMIT_EVERY == 0:
                txn.commit()
                txn = env.begin(write=True)
                if (idx + 1) % (LMDB_COMMIT_EVERY * 20) == 0:
                    print(
                        f"[MEM] {tmp_name}: after {idx + 1} entries: "
                        f"{_mem_gb():.2f} GB"
                    )
    finally:
        # Commit whatever is left in the final partial batch.
        txn.commit()

    env.close()

    print(f"[MEM] {tmp_name}: after write loop: {_mem_gb():.2f} GB")

    lmdb_dataset = TorchLMDBDataset(
        lmdb_path=tmp_name, line_graph=line_graph, ids=ids
    )

    print(
        f"[MEM] {tmp_name}: after TorchLMDBDataset wrap: "
        f"{_mem_gb():.2f} GB"
    )

    return lmdb_dataset


if __name__ == "__main__":
    dataset = data("dft_2d")
    lmdb_dataset = get_torch_dataset(
        dataset=dataset, target="formation_energy_peratom"
    )
    print(lmdb_dataset)
