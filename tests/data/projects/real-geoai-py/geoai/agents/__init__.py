from .catalog_tools import CatalogTools
from .data_tools import DataTools
from .geo_agents import (
    CatalogAgent,
    GeoAgent,
    STACAgent,
    create_ollama_model,
    create_anthropic_model,
    create_openai_model,
    create_gemini_model,
    create_bedrock_model,
    create_minimax_model,
)
from .map_tools import MapTools
from .stac_tools import STACTools
