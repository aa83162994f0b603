#!/usr/bin/env python

"""Module to download and load pre-trained ALIGNN models."""
import requests
import os
import zipfile
from tqdm import tqdm
from alignn.models.alignn import ALIGNN, ALIGNNConfig
from torch.utils.data import DataLoader
import tempfile
import torch
import sys
import json
import argparse
from jarvis.core.atoms import Atoms
from alignn.graphs import Graph
from jarvis.db.jsonutils import loadjson, dumpjson
import pandas as pd
from alignn.dataset import get_torch_dataset
import numpy as np
from alignn.models.alignn_atomwise import (
    ALIGNNAtomWise,
    ALIGNNAtomWiseConfig,
)
from jarvis.core.utils import get_cache_dir
# from jarvis.core.graphs import Graph

tqdm.pandas()

"""
Name of the model, figshare link, number of outputs,
extra config params (optional)
"""
# See also, alignn/ff/ff.py
# Both alignn and alignn_atomwise
# models are shared

# See: alignn/ff/all_models_alignn.json
# to load as a calculator
all_models = {
    "jv_formation_energy_peratom_alignn": [
        "https://ndownloader.figshare.com/files/31458679",
        1,
    ],
    "jv_optb88vdw_total_energy_alignn": [
        "https://ndownloader.figshare.com/files/31459642",
        1,
    ],
    "jv_optb88vdw_bandgap_alignn": [
        "https://ndownloader.figshare.com/files/31459636",
        1,
    ],
    "jv_mbj_bandgap_alignn": [
        "https://ndownloader.figshare.com/files/31458694",
        1,
    ],
    "jv_spillage_alignn": [
        "https://ndownloader.figshare.com/files/31458736",
        1,
    ],
    "jv_slme_alignn": ["https://ndownloader.figshare.com/files/31458727", 1],
    "jv_bulk_modulus_kv_alignn": [
        "https://ndownloader.figshare.com/files/31458649",
        1,
    ],
    "jv_shear_modulus_gv_alignn": [
        "https://ndownloader.figshare.com/files/31458724",
        1,
    ],
    "jv_n-Seebeck_alignn": [
        "https://ndownloader.figshare.com/files/31458718",
        1,
    ],
    "jv_n-powerfact_alignn": [
        "https://ndownloader.figshare.com/files/31458712",
        1,
    ],
    "intermat_cbm": [
        "https://ndownloader.figshare.com/files/45392908",
        1,
    ],
    "intermat_vbm": [
        "https://ndownloader.figshare.com/files/45392914",
        1,
    ],
    "intermat_phi": [
        "https://ndownloader.figshare.com/files/45392911",
        1,
    ],
    "jv_magmom_oszicar_alignn": [
        "https://ndownloader.figshare.com/files/31458685",
        1,
    ],
    "jv_kpoint_length_unit_alignn": [
        "https://ndownloader.figshare.com/files/31458682",
        1,
    ],
    "jv_avg_elec_mass_alignn": [
        "https://ndownloader.figshare.com/files/31458643",
        1,
    ],
    "jv_avg_hole_mass_alignn": [
        "https://ndownloader.figshare.com/files/31458646",
        1,
    ],
    "jv_epsx_alignn": ["https://ndownloader.figshare.com/files/31458667", 1],
    "jv_mepsx_alignn": ["https://ndownloader.figshare.com/files/31458703", 1],
    "jv_max_efg_alignn": [
        "https://ndownloader.figshare.com/files/31458691",
        1,
    ],
    "jv_ehull_alignn": ["https://ndownloader.figshare.com/files/31458658", 1],
    "jv_dfpt_piezo_max_dielectric_alignn": [
        "https://ndownloader.figshare.com/files/31458652",
        1,
    ],
    "jv_dfpt_piezo_max_dij_alignn": [
        "https://ndownloader.figshare.com/files/31458655",
        1,
    ],
    "jv_exfoliation_energy_alignn": [
        "https://ndownloader.figshare.com/files/31458676",
        1,
    ],
    "jv_supercon_tc_alignn": [
        "https://ndownloader.figshare.com/files/38789199",
        1,
    ],
    "jv_supercon_edos_alignn": [
        "https://ndownloader.figshare.com/files/39946300",
        1,
    ],
    "jv_supercon_debye_alignn": [
        "https://ndownloader.figshare.com/files/39946297",
        1,
    ],
    "jv_supercon_a2F_alignn": [
        "https://ndownloader.figshare.com/files/38801886",
        100,
    ],
    "mp_e_form_alignn": [
        "https://ndownloader.figshare.com/files/31458811",
        1,
    ],
    "mp_gappbe_alignn": [
        "https://ndownloader.figshare.com/files/31458814",
        1,
    ],
    "tinnet_O_alignn": ["https://ndownloader.figshare.com/files/41962800", 1],
    "tinnet_N_alignn": ["https://ndownloader.figshare.com/files/41962797", 1],
    "tinnet_OH_alignn": ["https://ndownloader.figshare.com/files/41962803", 1],
    "AGRA_O_alignn": ["https://ndownloader.figshare.com/files/41966619", 1],
    "AGRA_OH_alignn": ["https://ndownloader.figshare.com/files/41966610", 1],
    "AGRA_CHO_alignn": ["https://ndownloader.figshare.com/files/41966643", 1],
    "AGRA_CO_alignn": ["https://ndownloader.figshare.com/files/41966634", 1],
    "AGRA_COOH_alignn": ["https://ndownloader.figshare.com/41966646", 1],
    "qm9_U0_alignn": ["https://ndownloader.figshare.com/files/31459054", 1],
    "qm9_U_alignn": ["https://ndownloader.figshare.com/files/31459051", 1],
    "qm9_alpha_alignn": ["https://ndownloader.figshare.com/files/31459027", 1],
    "qm9_gap_alignn": ["https://ndownloader.figshare.com/files/31459036", 1],
    "qm9_G_alignn": ["https://ndownloader.figshare.com/files/31459033", 1],
    "qm9_HOMO_alignn": ["https://ndownloader.figshare.com/files/31459042", 1],
    "qm9_LUMO_alignn": ["https://ndownloader.figshare.com/files/31459045", 1],
    "qm9_ZPVE_alignn": ["https://ndownloader.figshare.com/files/31459057", 1],
    "hmof_co2_absp_alignn": [
        "https://ndownloader.figshare.com/files/31459198",
        5,
    ],
    "hmof_max_co2_adsp_alignn": [
        "https://ndownloader.figshare.com/files/31459207",
        1,
    ],
    "hmof_surface_area_m2g_alignn": [
        "https://ndownloader.figshare.com/files/31459222",
        1,
    ],
    "hmof_surface_area_m2cm3_alignn": [
        "https://ndownloader.figshare.com/files/31459219",
        1,
    ],
    "hmof_pld_alignn": ["https://ndownloader.figshare.com/files/31459216", 1],
    "hmof_lcd_alignn": ["https://ndownloader.figshare.com/files/31459201", 1],
    "hmof_void_fraction_alignn": [
        "https://ndownloader.figshare.com/files/31459228",
        1,
    ],
    "ocp2020_all": ["https://ndownloader.figshare.com/files/41411025", 1],
    "ocp2020_100k": ["https://ndownloader.figshare.com/files/41967303", 1],
    "ocp2020_10k": ["https://ndownloader.figshare.com/files/41967330", 1],
    "jv_pdos_alignn": [
        "https://ndownloader.figshare.com/files/36757005",
        66,
        {"alignn_layers": 6, "gcn_layers": 6},
    ],
    "jv_raman_alignn": [
        "https://ndownloader.figshare.com/files/62805487",
        200,
    ],
}


parser = argparse.ArgumentParser(
    description="Atomistic Line Graph Neural Network Pretrained Models"
)
parser.add_argument(
    "--model_name",
    default="jv_formation_energy_peratom_alignn",
    help="Choose a model from these "
    + str(len(list(all_models.keys())))
    + " models:"
    + ", ".join(list(all_models.keys())),
)

parser.add_argument(
    "--file_format", default="poscar", help="poscar/cif/xyz/pdb file format."
)

parser.add_argument(
    "--file_path",
    default="alignn/examples/sample_data/POSCAR-JVASP-10.vasp",
    help="Path to file.",
)

parser.add_argument(
    "--cutoff",
    default=8,
    help="Distance cut-off for graph constuction"
    + ", usually 8 for solids and 5 for molecules.",
)

parser.add_argument(
    "--max_neighbors",
    default=12,
    help="Maximum number of nearest neighbors in the periodic atomistic graph"
    + " construction.",
)

parser.add_argument(
    "--pure_torch",
    action="store_true",
    help="Use the DGL-free pure-torch model path (ALIGNNAtomWisePure). "
    "Model names come from all_models_alignn_atomwise.json, e.g. 'mps', "
    "'formation_energy_peratom', 'mbj_bandgap'. Auto-enabled if DGL is "
    "not installed.",
)


device = "cpu"
if torch.cuda.is_available():
    device = torch.device("cuda")

# device = "cpu"


def get_all_models():
    """Return the figshare links for models."""
    return all_models


def get_figshare_model(model_name="jv_formation_energy_peratom_alignn"):
    """Get ALIGNN torch models from figshare."""
    # https://figshare.com/projects/ALIGNN_models/126478

    tmp = all_models[model_name]
    url = tmp[0]
    # output_features = tmp[1]
    # if len(tmp) > 2:
    #    config_params = tmp[2]
    # else:
    #    config_params = {}
    zfile = model_name + ".zip"
    # path = str(os.path.join(os.path.dirname(__file__), zfile))
    path = os.path.join(get_cache_dir("alignn_models"), zfile)
    if not os.path.isfile(path):
        response = requests.get(url, stream=True)
        total_size_in_bytes = int(response.headers.get("content-length", 0))
        block_size = 1024  # 1 Kibibyte
        progress_bar = tqdm(
            total=total_size_in_bytes, unit="iB", unit_scale=True
        )
        with open(path, "wb") as file:
            for data in response.iter_content(block_size):
                progress_bar.update(len(data))
                file.write(data)
        progress_bar.close()
    zp = zipfile.ZipFile(path)
    names = zp.namelist()
    chks = []
    cfg = []
    for i in names:
        if "checkpoint_" in i and "pt" in i:
            tmp = i
            chks.append(i)
        if "config.json" in i:
            cfg = i
        if "best_model.pt" in i:
            tmp = i
            chks.append(i)

    print("Using chk file", tmp, "from ", chks)
    print("Path", os.path.abspath(path))
    print("Config", os.path.abspath(cfg))
    config = json.loads(zipfile.ZipFile(path).read(cfg))
    print("config", config, type(config))
    # print("Loading the zipfile...", zipfile.ZipFile(path).namelist())
    data = zipfile.ZipFile(path).read(tmp)
    # model = ALIGNN(
    #    ALIGNNConfig(
    #        name="alignn", output_features=output_features, **config_params
    #    )
    # )
    print(config, type(config))
    if config["model"]["name"] == "alignn":
        model = ALIGNN(ALIGNNConfig(**config["model"]))
        new_file, filename = tempfile.mkstemp()
        with open(filename, "wb") as f:
            f.write(data)
        model.load_state_dict(
            torch.load(filename, map_location=device, weights_only=False)[
                "model"
            ]
        )
        model.to(device)
        model.eval()
        if os.path.exists(filename):
            os.remove(filename)
    if config["model"]["name"] == "alignn_atomwise":
        model = ALIGNNAtomWise(ALIGNNAtomWiseConfig(**config["model"]))
        new_file, filename = tempfile.mkstemp()
        with open(filename, "wb") as f:
            f.write(data)
        model.load_state_dict(
            torch.load(filename, map_location=device, weights_only=False)
        )
        model.to(device)
        model.eval()
        if os.path.exists(filename):
            os.remove(filename)

    return model


def _dgl_available():
    """Return True if DGL can be imported."""
    try:
        import dgl  # noqa: F401

        return True
    except Exception:
        return False


def _atom_features_from_config(config):
    """Best-effort atom_features string for the pure-torch graph builder."""
    af = config.get("atom_features")
    if af:
        return af
    n = config.get("model", {}).get("atom_input_features", 92)
    return "atomic_number" if int(n) == 1 else "cgcnn"


def load_pure_torch_model(model_dir, device="cpu"):
    """Load a pure-torch ALIGNN model (+ config) from a directory.

    The directory must contain ``config.json`` and ``best_model.pt``
    (the layout produced by ``alignn.ff.ff.get_figshare_model_ff``).
    """
    config = loadjson(os.path.join(model_dir, "config.json"))
    mcfg = dict(config["model"])
    name = mcfg.get("name", "alignn_atomwise_pure")
    state = torch.load(
        os.path.join(model_dir, "best_model.pt"),
        map_location=device,
        weights_only=False,
    )
    if isinstance(state, dict) and "model" in state:
        state = state["model"]
    if name == "alignn_atomwise_pure_smooth":
        from alignn.models.alignn_atomwise_pure_smooth import (
            ALIGNNAtomWisePureSmooth,
            ALIGNNAtomWisePureSmoothConfig,
        )

        model = ALIGNNAtomWisePureSmooth(
            ALIGNNAtomWisePureSmoothConfig(**mcfg)
        )
    else:
        from alignn.models.alignn_atomwise_pure import (
            ALIGNNAtomWisePure,
            ALIGNNAtomWisePureConfig,
        )

        mcfg["name"] = "alignn_atomwise_pure"
        model = ALIGNNAtomWisePure(ALIGNNAtomWisePureConfig(**mcfg))
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        print(
            f"[pure_torch] load_state_dict: missing={len(missing)} "
            f"unexpected={len(unexpected)}"
        )
    model = model.to(device).eval()
    return model, config


def get_figshare_model_pure(model_name="mps", device="cpu"):
    """Download a pure-torch ALIGNN model from figshare and load it.

    ``model_name`` must be a key of
    ``alignn/ff/all_models_alignn_atomwise.json`` (e.g. ``mps``,
    ``formation_energy_peratom``, ``mbj_bandgap``, ``bulk_modulus_kv``).
    """
    from alignn.ff.ff import get_figshare_model_ff

    model_dir = get_figshare_model_ff(model_name=model_name)
    return load_pure_torch_model(model_dir, device=device)


def get_prediction_pure(
    model_name="mps",
    atoms=None,
    cutoff=None,
    max_neighbors=None,
    device="cpu",
):
    """Single-structure prediction using the DGL-free (pure-torch) path."""
    from alignn.torch_graph_builder import build_pure_torch_graph

    if os.path.isdir(model_name):
        model, config = load_pure_torch_model(
            model_dir=model_name, device=device
        )
    else:
        model, config = get_figshare_model_pure(model_name, device=device)

    # Prefer the model's training cutoff / max_neighbors (correct for an
    # ML potential); fall back to the supplied values.
    cut = float(config.get("cutoff", cutoff if cutoff is not None else 8.0))
    mn = int(
        config.get(
            "max_neighbors", max_neighbors if max_neighbors is not None else 12
        )
    )
    atom_features = _atom_features_from_config(config)
    print(
        f"[pure_torch] cutoff={cut} max_neighbors={mn} "
        f"atom_features={atom_features}"
    )
    g, lg = build_pure_torch_graph(
        atoms=atoms,
        two_body_cutoff=cut,
        max_neighbors=mn,
        atom_features=atom_features,
        compute_line_graph=True,
        device=device,
    )
    lat = (
        torch.tensor(atoms.lattice_mat)
        .type(torch.get_default_dtype())
        .to(device)
    )
    out = model([g, lg, lat])
    out_data = out["out"] if isinstance(out, dict) else out
    out_data = out_data.detach().cpu().numpy().flatten().tolist()
    return out_data


def get_prediction(
    model_name="jv_formation_energy_peratom_alignn",
    atoms=None,
    cutoff=8,
    max_neighbors=12,
    pure_torch=False,
):
    """Get model prediction on a single structure.

    If ``pure_torch`` is True, or if DGL is not installed, the DGL-free
    ``ALIGNNAtomWisePure`` path is used (models from
    ``all_models_alignn_atomwise.json``, e.g. ``mps``,
    ``formation_energy_peratom``).
    """
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if pure_torch or not _dgl_available():
        if not pure_torch:
            print("DGL not available; using pure-torch model path.")
        return get_prediction_pure(
            model_name=model_name,
            atoms=atoms,
            cutoff=cutoff,
            max_neighbors=max_neighbors,
            device=device,
        )
    if os.path.isdir(model_name):

        # import torch
        # from jarvis.db.jsonutils import loadjson

        config = loadjson(os.path.join(model_name, "config.json"))
        model_path = os.path.join(model_name, "best_model.pt")
        tmp = ALIGNNAtomWiseConfig(**config["model"])
        model = ALIGNNAtomWise(tmp)
        model.load_state_dict(torch.load(model_path, map_location=device))
        model = model.to(device)
        print(model)
    else:
        model = get_figshare_model(model_name)
    # print("Loading completed.")
    g, lg = Graph.atom_dgl_multigraph(
        atoms,
        cutoff=float(cutoff),
        max_neighbors=max_neighbors,
    )
    lat = torch.tensor(atoms.lattice_mat)
    out_data = model([g.to(device), lg.to(device), lat.to(device)])
    if isinstance(out_data, dict):
        out_data = out_data["out"]
    print("out_data", out_data)
    out_data = out_data.detach().cpu().numpy().flatten().tolist()
    return out_data


def get_multiple_predictions(
    atoms_array=[],
    jids=[],
    cutoff=8,
    neighbor_strategy="k-nearest",
    max_neighbors=12,
    use_canonize=True,
    target="prop",
    atom_features="cgcnn",
    line_graph=True,
    workers=0,
    filename="pred_data.json",
    include_atoms=True,
    pin_memory=False,
    output_features=1,
    batch_size=1,
    model=None,
    model_name="jv_formation_energy_peratom_alignn",
    print_freq=100,
    # use_lmdb=True,
):
    """Use pretrained model on a number of structures."""
    # if use_lmdb:
    #    print("Using LMDB dataset.")
    #    from alignn.lmdb_dataset import get_torch_dataset
    # else:
    #    print("Not using LMDB dataset, memory footprint maybe high.")
    #    from alignn.dataset import get_torch_dataset

    # import glob
    # atoms_array=[]
    # for i in glob.glob("alignn/examples/sample_data/*.vasp"):
    #      atoms=Atoms.from_poscar(i)
    #      atoms_array.append(atoms)
    # get_multiple_predictions(atoms_array=atoms_array)
    if not jids:
        jids = ["id-" + str(i) for i in np.arange(len(atoms_array))]
    mem = []
    for i, ii in tqdm(enumerate(atoms_array), total=len(atoms_array)):
        info = {}
        if isinstance(ii, Atoms):
            ii = ii.to_dict()
        info["atoms"] = ii  # .to_dict()
        info["prop"] = -9999  # place-holder only
        info["jid"] = jids[i]  # str(i)
        mem.append(info)

    if model is None:
        try:
            model = get_figshare_model(model_name)
        except Exception as exp:
            raise ValueError(
                'Check is the model name exists using "pretrained.py -h"', exp
            )
            pass

    # Note cut-off is usually 8 for solids and 5 for molecules
    def atoms_to_graph(atoms):
        """Convert structure dict to DGLGraph."""
        structure = Atoms.from_dict(atoms)
        return Graph.atom_dgl_multigraph(
            structure,
            cutoff=cutoff,
            atom_features="atomic_number",
            max_neighbors=max_neighbors,
            compute_line_graph=True,
            use_canonize=use_canonize,
        )

    test_data = get_torch_dataset(
        dataset=mem,
        target="prop",
        neighbor_strategy=neighbor_strategy,
        atom_features=atom_features,
        use_canonize=use_canonize,
        line_graph=line_graph,
    )

    collate_fn = test_data.collate_line_graph
    test_loader = DataLoader(
        test_data,
        batch_size=batch_size,
        shuffle=False,
        collate_fn=collate_fn,
        drop_last=False,
        num_workers=workers,
        pin_memory=pin_memory,
    )

    results = []
    with torch.no_grad():
        ids = test_loader.dataset.ids
        for dat, id in zip(test_loader, ids):
            g, lg, lat, target = dat
            out_data = model([g.to(device), lg.to(device), lat.to(device)])
            out_data = out_data.cpu().numpy().tolist()
            target = target.cpu().numpy().flatten().tolist()
            info = {}
            info["id"] = id
            info["pred"] = out_data
            results.append(info)
            print_freq = int(print_freq)
            if len(results) % print_freq == 0:
                print(len(results))
    df1 = pd.DataFrame(mem)
    df2 = pd.DataFrame(results)
    df2["jid"] = df2["id"]
    df3 = pd.merge(df1, df2, on="jid")
    save = []
    for i, ii in df3.iterrows():
        info = {}
        info["id"] = ii["id"]
        info["atoms"] = ii["atoms"]
        info["pred"] = ii["pred"]
        save.append(info)

    dumpjson(data=save, filename=filename)


if __name__ == "__main__":
    args = parser.parse_args(sys.argv[1:])
    model_name = args.model_name
    file_path = args.file_path
    file_format = args.file_format
    cutoff = args.cutoff
    max_neighbors = args.max_neighbors
    if file_format == "poscar":
        atoms = Atoms.from_poscar(file_path)
    elif file_format == "cif":
        atoms = Atoms.from_cif(file_path)
    elif file_format == "xyz":
        atoms = Atoms.from_xyz(file_path, box_size=500)
    elif file_format == "pdb":
        atoms = Atoms.from_pdb(file_path, max_lat=500)
    else:
        raise NotImplementedError("File format not implemented", file_format)

    out_data = get_prediction(
        model_name=model_name,
        cutoff=float(cutoff),
        max_neighbors=int(max_neighbors),
        atoms=atoms,
        pure_torch=args.pure_torch,
    )

    print("Predicted value:", model_name, file_path, out_data)
    # import glob
    # atoms_array = []
    # for i in glob.glob("alignn/examples/sample_data/*.vasp"):
    #    atoms = Atoms.from_poscar(i)
    #    atoms_array.append(atoms)
    # get_multiple_predictions(atoms_array=atoms_array)
