# Generate Job profiles using LLMs
# Assign Job profiles to agents
