from typing import Any, Type, TypeVar

from pydantic import AliasChoices, BaseModel
from pydantic.fields import FieldInfo

from modalities.registry.registry import Registry
from modalities.util import print_rank_0

BaseModelChild = TypeVar("BaseModelChild", bound=BaseModel)


class ComponentFactory:
    """Factory class to build the components from a config dictionary."""

    def __init__(self, registry: Registry) -> None:
        """Initializes the ComponentFactory with a registry.

        Args:
            registry (Registry): Registry object to get the component and config classes.
        """
        self.registry = registry

    def build_components(self, config_dict: dict, components_model_type: Type[BaseModelChild]) -> BaseModelChild:
        """Builds the components from a config dictionary. All components specified in `components_model_type`
        are built from the config dictionary in a recursive manner.

        Args:
            config_dict (dict): Dictionary with the configuration of the components.
            components_model_type (Type[BaseModelChild]): Base model type defining the components to be build.

        Returns:
            BaseModelChild: Instance of the components_model_type with the built components.
        """
        # the components instantiaton model allows for the definition of required and optional top-level components
        # for example the mfu_calculator might not always be required.
        component_names_required = [
            name for name, field in components_model_type.model_fields.items() if field.is_required()
        ]
        component_names_optional = [
            name for name, field in components_model_type.model_fields.items() if not field.is_required()
        ]

        component_dict = self._build_config(
            config_dict=config_dict,
            component_names_required=component_names_required,
            component_names_optional=component_names_optional,
        )
        components = components_model_type(**component_dict)
        return components

    def _build_config(
        self, config_dict: dict, component_names_required: list[str], component_names_optional: list[str]
    ) -> dict[str, Any]:
        component_dict_filtered = {name: config_dict[name] for name in component_names_required}
        # we only add the optional components if they are present in the config_dict
        for name in component_names_optional:
            if name in config_dict:
                component_dict_filtered[name] = config_dict[name]

        components, _ = self._build_component(
            current_component_config=component_dict_filtered,
            component_config=config_dict,
            top_level_components={},
            traversal_path=[],
        )
        return components

    def _build_component(
        self,
        current_component_config: dict | list | Any,
        component_config: dict | list | Any,
        top_level_components: dict[str, Any],
        traversal_path: list,
    ) -> Any:
        if len(traversal_path) == 1 and traversal_path[0] in top_level_components:
            # if the top level component is already built due to a referencing config,
            # we just return this component instead of building it again
            return top_level_components[traversal_path[0]], top_level_components
        # build sub components first via recursion
        if isinstance(current_component_config, dict):
            # We first traverse the config for possible sub components that need to build beforehand.
            materialized_component_config = {}
            for sub_entity_key, sub_component_config_dict in current_component_config.items():
                materialized_component_config[sub_entity_key], top_level_components = self._build_component(
                    current_component_config=sub_component_config_dict,
                    component_config=component_config,
                    top_level_components=top_level_components,
                    traversal_path=traversal_path + [sub_entity_key],
                )
            # After building all the sub components, we can now build the actual component
            # if the config is component_config then we instantiate the component
            if ComponentFactory._is_component_config(config_dict=current_component_config):
                # instantiate component config
                component_key = current_component_config["component_key"]
                variant_key = current_component_config["variant_key"]
                current_component_config = self._instantiate_component_config(
                    component_key=component_key,
                    variant_key=variant_key,
                    config_dict=materialized_component_config["config"],
                )
                # instantiate component
                component = self._instantiate_component(
                    component_key=component_key, variant_key=variant_key, component_config=current_component_config
                )
                print_rank_0(f"Instantiated {type(component)}: {' -> '.join(traversal_path)}")

                # if the component is a top level component, then we add it to the top level components dictionary
                # to make sure that we don't build it again. Building it again would mean that we work by-value
                # instead of by reference.
                if len(traversal_path) == 1:
                    entity_key = traversal_path[-1]
                    top_level_components[entity_key] = component
                return component, top_level_components

            # if the config is a reference_config then check if it exists and if not, we build it
            if ComponentFactory._is_reference_config(config_dict=current_component_config):
                referenced_entity_key = current_component_config["instance_key"]
                if referenced_entity_key not in top_level_components:
                    materialized_referenced_component, top_level_components = self._build_component(
                        current_component_config=component_config[referenced_entity_key],
                        component_config=component_config,
                        top_level_components=top_level_components,
                        traversal_path=[referenced_entity_key],
                    )
                    # we add the newly build reference config to the top level components dict
                    # so that we don't instantiate it again when we reach the respective component config
                    # in the subsequent config traversal
                    top_level_components[referenced_entity_key] = materialized_referenced_component
                return top_level_components[referenced_entity_key], top_level_components

            return materialized_component_config, top_level_components

        elif isinstance(current_component_config, list):
            materialized_component_configs = []
            for sub_entity_key, sub_component_config in enumerate(current_component_config):
                materialized_component_config, top_level_components = self._build_component(
                    current_component_config=sub_component_config,
                    component_config=component_config,
                    top_level_components=top_level_components,
                    traversal_path=traversal_path + [str(sub_entity_key)],
                )
                materialized_component_configs.append(materialized_component_config)
            return materialized_component_configs, top_level_components

        else:
            # we return the raw sub config if the sub config is not a dictionary or a list
            # i.e., just a "scalar" value (e.g., string, int, etc.), since we don't have to build it.
            return current_component_config, top_level_components

    @staticmethod
    def _is_component_config(config_dict: dict) -> bool:
        # TODO instead of field checks, we should introduce an enum for the config type.
        return "component_key" in config_dict.keys()

    @staticmethod
    def _is_reference_config(config_dict: dict) -> bool:
        # TODO instead of field checks, we should introduce an enum for the config type.
        return {"instance_key", "pass_type"} == config_dict.keys()

    def _instantiate_component_config(self, component_key: str, variant_key: str, config_dict: dict) -> BaseModel:
        component_config_type: Type[BaseModel] = self.registry.get_config(component_key, variant_key)
        self._assert_valid_config_keys(
            component_key=component_key,
            variant_key=variant_key,
            config_dict=config_dict,
            component_config_type=component_config_type,
        )
        comp_config = component_config_type.model_validate(config_dict, extra="forbid")
        return comp_config

    def _assert_valid_config_keys(
        self, component_key: str, variant_key: str, config_dict: dict, component_config_type: Type[BaseModelChild]
    ) -> None:
        # Collect required and optional keys, including aliases if defined.
        required_keys: list[str] = []
        optional_keys: list[str] = []
        # Map aliases to canonical field names for clearer error messages.
        alias_to_field: dict[str, str] = {}

        for field_name, field in component_config_type.model_fields.items():
            names_for_field = self._parse_str_aliases(alias_to_field, field_name, field)
            if field.is_required():
                required_keys.extend(names_for_field)
            else:
                optional_keys.extend(names_for_field)

        all_valid_keys = set(required_keys) | set(optional_keys)

        invalid_keys = [key for key in config_dict.keys() if key not in all_valid_keys]
        if len(invalid_keys) > 0:
            message = f"Invalid keys {invalid_keys} for config `{component_key}.{variant_key}`"
            message += f" of type {component_config_type}:\n{config_dict}\n"
            if alias_to_field:
                message += f"Alias to field mapping: {alias_to_field}\n"
            message += f"Required keys (including aliases): {required_keys}\n"
            message += f"Optional keys (including aliases): {optional_keys}\n"
            raise ValueError(message)

    def _parse_str_aliases(self, alias_to_field: dict[str, str], field_name: str, field: FieldInfo) -> set[str]:
        names_for_field = {field_name}
        if field.alias and field.alias != field_name:
            names_for_field.add(field.alias)
            alias_to_field[field.alias] = field_name
        if field.validation_alias and field.validation_alias != field_name:
            if isinstance(field.validation_alias, str):
                names_for_field.add(field.validation_alias)
                alias_to_field[field.validation_alias] = field_name
            elif isinstance(field.validation_alias, AliasChoices):
                for alias in field.validation_alias.choices:
                    if isinstance(alias, str):
                        names_for_field.add(alias)
                        alias_to_field[alias] = field_name
        return names_for_field

    def _instantiate_component(self, component_key: str, variant_key: str, component_config: BaseModel) -> Any:
        component_type: Type = self.registry.get_component(component_key, variant_key)
        component_config_dict = self._base_model_to_dict(component_config)
        component = component_type(**component_config_dict)
        return component

    @staticmethod
    def _base_model_to_dict(base_model: BaseModel) -> dict:
        # converts top level structure of base_model into dictionary while maintaining substructure
        output = {}
        for name, _ in base_model.model_fields.items():
            value = getattr(base_model, name)
            output[name] = value
        return output
