"""The index as a local service: HTTP (OpenAI-compatible chat, a query API) and MCP."""
