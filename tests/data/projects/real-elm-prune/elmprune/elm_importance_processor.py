from typing import Dict, Iterable, List
from tqdm.auto import tqdm
import torch
from torch import nn
from .utils import get_all_conv_layer_names, compute_constant_baseline_loss, dump_dict, load_dict
from .elm import ELMRegressor
from .importance_processor_config import ImportanceProcessorConfig
from .feature_extractor import FeatureExtractor


class ELMImportanceProcessor:

    IMPORTANCES_RELATIVE_FOLDER = "importances"
    IMPORTANCES_GLOBAL_CACHE_FILENAME = "importances_elm_global.json"
    IMPORTANCES_LAYERWISE_CACHE_FILENAME = "importances_elm_layerwise.json"
    IMPORTANCES_FILTERWISE_CACHE_FILENAME = "importances_elm_filterwise.json"

    def __init__(self, config: ImportanceProcessorConfig, model: nn.Module, dataloader: Iterable):
        self.config = config 
        self.layer_names = get_all_conv_layer_names(model) if config.layer_names == "" else config.layer_names
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        
        self.importances_path = config.abs_path / ELMImportanceProcessor.IMPORTANCES_RELATIVE_FOLDER
        self.importances_path.mkdir(parents=True, exist_ok=True)

        self.has_global_cache, self.has_layerwise_cache, self.has_filterwise_cache = self.__verify_cache()
        if not config.use_cache or not self.has_global_cache or not self.has_layerwise_cache or not self.has_filterwise_cache:
            feature_extractor = FeatureExtractor(config, model, dataloader, self.layer_names)
            self.features_by_layer, self.targets = feature_extractor.extract_feature_and_targets()

            # Fallback for backbones such as EfficientNet:
            # keep only layers that actually produced features during the forward pass.
            original_layer_names = list(self.layer_names)

            self.layer_names = [
                layer_name
                for layer_name in original_layer_names
                if layer_name in self.features_by_layer
            ]

            missing_layer_names = [
                layer_name
                for layer_name in original_layer_names
                if layer_name not in self.features_by_layer
            ]

            if len(self.layer_names) == 0:
                raise RuntimeError(
                    "No valid layer produced features for ELM. "
                    "Check whether config.layer_names is compatible with the current backbone."
                )

            if len(missing_layer_names) > 0:
                print(
                    "[ELMImportanceProcessor] Warning: some layers did not produce features "
                    "and will be ignored:"
                )

                for layer_name in missing_layer_names:
                    print(f"  - {layer_name}")

        else:
            print("[ELMImportanceProcessor] Not necessary to extract features here! Using cache for all importances type.")

    def __to_float_list(self, values):
        if torch.is_tensor(values):
            return values.detach().cpu().float().tolist()

        return [float(v) for v in values]

    def __verify_cache(self):
        has_global_cache = (self.importances_path / ELMImportanceProcessor.IMPORTANCES_GLOBAL_CACHE_FILENAME).exists()
        has_layerwise_cache = (self.importances_path / ELMImportanceProcessor.IMPORTANCES_LAYERWISE_CACHE_FILENAME).exists()
        has_filterwise_cache = (self.importances_path / ELMImportanceProcessor.IMPORTANCES_FILTERWISE_CACHE_FILENAME).exists()
        return has_global_cache, has_layerwise_cache, has_filterwise_cache

    def compute_elm_global_importances(self) -> Dict[str, List[float]]:
        """
        One single ELM trained with features from all selected layers concatenated.
        Importance of each filter = increase in ELM loss when that feature is neutralized.
        """
        print("[ELMImportanceProcessor] Getting importances for global...")

        if self.has_global_cache:
            print("[ELMImportanceProcessor] Not necessary to calculate importances here! Using cache for this importance type.")
            result = load_dict(self.importances_path / ELMImportanceProcessor.IMPORTANCES_GLOBAL_CACHE_FILENAME)
            return result
        
        if len(self.features_by_layer) == 0:
            raise RuntimeError("No features were collected for ELM global importance.")

        X_parts = [self.features_by_layer[layer_name] for layer_name in self.layer_names]
        X = torch.cat(X_parts, dim=1)
        Y = self.targets

        elm_model = ELMRegressor(
            hidden_dim=self.config.hidden_dim,
            reg_lambda=self.config.reg_lambda,
            activation_name=self.config.activation,
            seed=self.config.seed,
            eps=self.config.eps,
            use_double_for_solver=self.config.use_double_for_solver,
        )

        elm_model.fit(X, Y)
        importances = elm_model.compute_ablation_importance(X, Y)

        result: Dict[str, List[float]] = {}
        offset = 0
        for layer_name in tqdm(self.layer_names, desc="ELM global feature ranking processing", dynamic_ncols=True, position=1, leave=False):
            channels = self.features_by_layer[layer_name].shape[1]
            result[layer_name] = self.__to_float_list(importances[offset: offset + channels])
            offset += channels

        importances_dump_path = self.importances_path / ELMImportanceProcessor.IMPORTANCES_GLOBAL_CACHE_FILENAME
        dump_dict(result, importances_dump_path)

        return result

    def compute_elm_layerwise_importances(self) -> Dict[str, List[float]]:
        """
        One ELM per layer.
        Importance of each filter = increase in ELM loss when that feature is neutralized.
        """
        print("[ELMImportanceProcessor] Getting importances for layerwise...")

        if self.has_layerwise_cache:
            print("[ELMImportanceProcessor]: Not necessary to calculate importances here! Using cache for this importance type.")
            result = load_dict(self.importances_path / ELMImportanceProcessor.IMPORTANCES_LAYERWISE_CACHE_FILENAME)
            return result

        result: Dict[str, List[float]] = {}
        Y = self.targets.to(self.device)

        for layer_name in tqdm(self.layer_names, desc="ELM layerwise feature ranking processing", dynamic_ncols=True, position=1, leave=False):
            X = self.features_by_layer[layer_name].to(self.device)

            elm_model = ELMRegressor(
                hidden_dim=self.config.hidden_dim,
                reg_lambda=self.config.reg_lambda,
                activation_name=self.config.activation,
                seed=self.config.seed,
                eps=self.config.eps,
                use_double_for_solver=self.config.use_double_for_solver,
            )

            elm_model.fit(X, Y)
            importances = elm_model.compute_ablation_importance(X, Y)
            result[layer_name] = self.__to_float_list(importances)

        importances_dump_path = self.importances_path / ELMImportanceProcessor.IMPORTANCES_LAYERWISE_CACHE_FILENAME
        dump_dict(result, importances_dump_path)

        return result

    def compute_elm_filterwise_importances(self) -> Dict[str, List[float]]:
        """
        One tiny ELM per filter.
        Importance of one filter = how much that single filter alone reduces target reconstruction loss
        compared with a constant baseline.
        """
        print("[ELMImportanceProcessor] Getting importances for filterwise...")

        if self.has_filterwise_cache:
            print("[ELMImportanceProcessor]: Not necessary to calculate importances here! Using cache for this importance type.")
            result = load_dict(self.importances_path / ELMImportanceProcessor.IMPORTANCES_FILTERWISE_CACHE_FILENAME)
            return result
        
        result: Dict[str, List[float]] = {}
        Y = self.targets.to(self.device)
        baseline_loss = compute_constant_baseline_loss(Y)

        for layer_name in tqdm(self.layer_names, desc="ELM filterwise feature ranking processing", dynamic_ncols=True, position=1, leave=False):
            X_layer = self.features_by_layer[layer_name].to(self.device)
            layer_importances: List[float] = []

            for filter_idx in range(X_layer.shape[1]):
                X_filter = X_layer[:, filter_idx:filter_idx + 1]

                elm_model = ELMRegressor(
                    hidden_dim=self.config.hidden_dim_per_filter,
                    reg_lambda=self.config.reg_lambda,
                    activation_name=self.config.activation,
                    seed=self.config.seed + filter_idx,
                    eps=self.config.eps,
                    use_double_for_solver=self.config.use_double_for_solver,
                )

                elm_model.fit(X_filter, Y)
                pred = elm_model.predict(X_filter)
                filter_loss = elm_model.calculate_loss(pred, Y).item()

                # Higher reduction => more important
                importance = max(baseline_loss - filter_loss, 0.0)
                layer_importances.append(float(importance))

            result[layer_name] = self.__to_float_list(layer_importances)

        importances_dump_path = self.importances_path / ELMImportanceProcessor.IMPORTANCES_FILTERWISE_CACHE_FILENAME
        dump_dict(result, importances_dump_path)

        return result