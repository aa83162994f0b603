from euclid.settings import xp
import json
from pathlib import Path
from euclid.neural_network.layers.layer import Layer


def _normalize_path(path, suffix):
    if path is None:
        raise ValueError("Path cannot be None")
    path = str(path)
    if path.endswith(suffix):
        return path
    return f"{path}{suffix}"


def save_model(model, npz_path, architecture_path):
    parameters = model.parameters()
    weights_path = _normalize_path(npz_path, ".npz")
    arch_path = _normalize_path(architecture_path, ".json")

    xp.savez_compressed(
        weights_path,
        **{
            f"param_{i}": param.data
            for i, param in enumerate(parameters)
        }
    )

    layers = []
    for i in model.layers:
        a = i.get_config()
        layers.append({
            "name": i.name,
            "config": a
        })

    with open(arch_path, "w") as f:
        json.dump({"layers": layers}, f, indent=4)

    print(f"Model saved to {weights_path} and {arch_path}")


import numpy as np

from euclid.settings import xp
from euclid.neural_network.layers.layer import Layer
from euclid.neural_network.networks.sequential import Sequential


def load_model(npz_path, architecture_path):
    weights_path = _normalize_path(npz_path, ".npz")
    arch_path = _normalize_path(architecture_path, ".json")

    with open(arch_path, "r") as f:
        architecture = json.load(f)

    layers = []

    for layer_data in architecture["layers"]:
        layer_name = layer_data["name"]
        layer_config = layer_data["config"]

        if layer_name not in Layer.registry:
            raise ValueError(
                f"Unknown layer '{layer_name}'"
            )

        layer_class = Layer.registry[layer_name]

        layers.append(
            layer_class(**layer_config)
        )

    model = Sequential(layers)

    loaded_params = np.load(weights_path)

    model_parameters = model.parameters()

    saved_keys = [
        key
        for key in loaded_params.files
        if key.startswith("param_")
    ]

    if len(model_parameters) != len(saved_keys):
        raise ValueError(
            f"Parameter count mismatch:\n"
            f"  Model: {len(model_parameters)}\n"
            f"  Saved: {len(saved_keys)}"
        )

    for i, param in enumerate(model_parameters):
        key = f"param_{i}"

        if key not in loaded_params.files:
            raise KeyError(
                f"Missing parameter '{key}'"
            )

        saved_data = loaded_params[key]

        if param.data.shape != saved_data.shape:
            raise ValueError(
                f"Shape mismatch for {key}:\n"
                f"  Model: {param.data.shape}\n"
                f"  Saved: {saved_data.shape}"
            )

        param.data = xp.asarray(saved_data)

    loaded_params.close()

    print(
        f"Model loaded from {weights_path} and {arch_path}"
    )

    return model