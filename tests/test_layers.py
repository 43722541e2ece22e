"""Who may import what: one module imports llama_cpp, one sentence_transformers, and the
stages and searches see the models only through the Protocol layer."""

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "graphrag_local"
# what stages/ and search/ may import of models/: the Protocol and model-agnostic helpers
PROTOCOL_LAYER = {"models", "models.protocol", "models.structured", "models.grammar"}


def imports(path: Path) -> set[str]:
    """The modules a file imports, absolute, relative ones as paths inside the package
    ("models.protocol"); lazy imports inside functions included."""
    package = path.relative_to(PACKAGE).parent.parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module)
                continue
            base = list(package[: len(package) - node.level + 1])
            module = [*base, *(node.module or "").split(".")] if node.module else base
            names = [".".join(module)] if node.module else [
                ".".join([*module, a.name]) for a in node.names]
            found |= set(names)
    return found


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_one_module_imports_llama_cpp_and_one_sentence_transformers():
    for library, owner in [("llama_cpp", "models/llama.py"),
                           ("sentence_transformers", "models/embed.py")]:
        importers = [str(p.relative_to(PACKAGE)) for p in modules()
                     if any(m.split(".")[0] == library for m in imports(p))]
        assert importers == [owner], library


def test_stages_and_searches_import_only_the_protocol_layer_of_models():
    for folder in ("stages", "search"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            used = {m for m in imports(path) if m == "models" or m.startswith("models.")}
            assert used <= PROTOCOL_LAYER, (path.name, used - PROTOCOL_LAYER)


def test_the_old_module_paths_are_gone():
    for old in ("llm", "remote", "decode", "grammar", "structured", "presets", "embed"):
        assert not (PACKAGE / f"{old}.py").exists(), old
