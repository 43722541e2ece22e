"""graphrag-local: the GraphRAG method (Edge et al. 2024) run entirely on your machine.

The public entry points live in `graphrag_local.api`; the CLI in `graphrag_local.cli`
only parses options and renders what the API returns.
"""

__version__ = "0.1.0"
