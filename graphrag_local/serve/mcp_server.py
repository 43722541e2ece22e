"""`graphrag-local mcp`: the index as a Model Context Protocol server over stdio (the
official `mcp` SDK), for agents and MCP-aware tools. It answers from the same warm
service as `serve` (`service.py`), in the process the MCP client starts.

Tools:
- query(question, method="global", level="auto"): the answer and its sources;
- entity(name): an entity by its name or an alias: type, description, aliases,
  relationships, communities, sources;
- reports(level=None, id=""): the community reports of a level (titles), or one report;
- status(): what the index holds and how it was built."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from ..errors import GraphragError
from .service import IndexService


@contextmanager
def _told():
    """A user-facing error (no such entity, unknown method, busy) goes back to the client
    as the tool's error with its message; the SDK would hide it as a crash."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        yield
    except GraphragError as exc:
        raise ToolError(str(exc)) from None


def make_server(service: IndexService):
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        from ..errors import ConfigError

        raise ConfigError("`graphrag-local mcp` needs the MCP Python SDK 2 or later "
                          "(mcp.server.mcpserver): pip install -U 'mcp>=2'") from None

    from .. import api
    from ..browse import show
    from ..query import result_dict

    server = MCPServer(name="graphrag-local", instructions=(
        "Answers questions from a private document collection indexed by graphrag-local "
        "(GraphRAG). Use `query` with method global for questions about the whole "
        "collection, local or drift for questions about specific people, places or "
        "organisations; `entity` looks one up by name; `reports` lists the themes."))

    @server.tool()
    def query(question: str, method: str = "global", level: str = "auto") -> dict:
        """Answer a question from the document collection, with its sources. method:
        global (themes of the whole collection), local (entities and their neighbourhood),
        drift (the most relevant themes, then local follow-ups), basic (nearest
        passages) or ts (by document)."""
        with _told():
            result = service.ask(question, method, level)
        d = result_dict(result, "")
        return {"answer": result.answer, "method": method, "level": d["level"],
                "sources": [c for c in d["citations"] if c["cited"]] or d["citations"]}

    @server.tool()
    def entity(name: str) -> dict:
        """An entity by its name or one of its aliases: type, description, aliases,
        relationships, communities and the passages that mention it."""
        with _told():
            return service.run(lambda s: show(s.data, "entities", name))["entity"]

    @server.tool()
    def reports(level: int | None = None, id: str = "") -> dict:  # noqa: A002 - the tool's word
        """The community reports (the collection's themes) of one level, or, with `id`
        (R3, or a community id), one report in full."""
        with _told():
            return service.run(lambda s: show(s.data, "reports", id, level))

    @server.tool()
    def status() -> dict:
        """What the index holds (documents, entities, communities, reports) and how it was
        built (model, method, content mode)."""
        with _told():
            st = api.status(service.index_dir)
        return {"tables": st["tables"], "complete": st["complete"],
                "model": st["manifest"].get("model", {}).get("preset"),
                "method": st["manifest"].get("method"), "content": st["manifest"].get("content"),
                "build_running": bool(st["build_running"])}

    return server


def run_stdio(index_dir: Path, *, config: Path | None = None, model: str | None = None) -> None:
    service = IndexService(index_dir, config=config, model=model)
    service.session()  # a clear error now if the index cannot be read
    try:
        make_server(service).run("stdio")
    finally:
        service.close()
