"""The library surface: every CLI command is one call here, returning plain data.
This module resolves settings, presets and paths into the arguments the pipeline
needs; heavy libraries are imported only when a function needs them."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, IndexStateError
from .model_info import ModelInfo
from .models import presets as presets_mod
from .models.protocol import Sampling
from .private import make_private_dir, writes_private
from .prompts import Prompts, load_prompts
from .schema import OUTPUT_TABLES
from .settings import CONFIG_FILE_NAME, Settings, load_settings, settings_to_toml

if TYPE_CHECKING:  # the pipeline (networkx, the stages) is imported by builds, not queries
    from .pipeline import Progress


def _config_path(config: Path | None) -> Path | None:
    """The config file in use: the one given, else ./graphrag-local.toml if present."""
    if config is None and Path(CONFIG_FILE_NAME).is_file():
        return Path(CONFIG_FILE_NAME)
    return config


def resolve_settings(
    config: Path | None = None, model: str | None = None, method: str | None = None
) -> Settings:
    """Defaults <- config file <- flags."""
    return load_settings(_config_path(config), model=model, method=method)


def project_prompts(config: Path | None = None) -> Prompts:
    """The packaged prompts, overridden file by file by a `prompts/` folder beside the
    config file."""
    config = _config_path(config)
    if config is not None and (config.parent / "prompts").is_dir():
        return load_prompts(config.parent / "prompts")
    return load_prompts()


def model_info(settings: Settings, *, check: bool = True) -> ModelInfo:
    """The model `settings` name, its file found and (with `check`) its GGUF header read
    now, so a build fails before any work. A query session passes `check=False`: an
    extractive answer loads no model, and `open_chat_model` checks before loading."""
    preset = presets_mod.get_preset(settings.model or None)
    if settings.parallel:
        preset = replace(preset, parallel=settings.parallel)
    if preset.source == "server":
        from .models.server import RemoteChatModel

        remote = RemoteChatModel(  # checks every URL now, before any work
            [u.strip() for u in preset.url.split(",") if u.strip()], preset.model,
            api=preset.api, api_key_env=preset.api_key_env or None, n_ctx=preset.n_ctx,
            parallel=preset.parallel, timeout=preset.timeout, name=preset.name,
            sampling=Sampling(preset.temperature, settings.seed, preset.top_k, preset.top_p,
                              preset.repeat_penalty),
        )
        digest = hashlib.sha256(remote.model_key().encode("utf-8")).hexdigest()
        return ModelInfo(preset, None, digest, remote)
    path = presets_mod.locate(preset)
    if path is None:
        if not check:  # a query session over an index built with a model since removed: an
            # extractive answer loads none; one that loads it says then what is missing
            return ModelInfo(preset, None, "")
        path = presets_mod.require(preset)  # not found: raises, saying how to get it
    if check:
        presets_mod.check_gguf(path)
    return ModelInfo(preset, path, presets_mod.sha256_file(path))


def open_chat_model(info: ModelInfo, seed: int):
    """The chat model of `info`: the checked server, or the GGUF loaded in-process."""
    from .models.llama import load_chat_model

    if info.remote is not None:
        return info.remote
    path = info.path or presets_mod.require(info.preset)  # (not found when the session began)
    presets_mod.check_gguf(path)
    return load_chat_model(info.preset, path, seed)


@writes_private
def build(
    docs_dir: Path,
    index_dir: Path,
    *,
    config: Path | None = None,
    model: str | None = None,
    method: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Build (or resume, or update) the index of `docs_dir` in `index_dir`."""
    from .models.embed import MiniLMEmbedder
    from .pipeline import Build, _no_progress, run_build
    from .recipe import make_recipe
    from .store import Store

    settings = resolve_settings(config, model, method)
    info = model_info(settings)
    if settings.private and index_dir.is_dir():
        make_private_dir(index_dir)  # made before `private`; a new one is created 0700
    b = Build(
        docs_dir=docs_dir,
        settings=settings,
        recipe=make_recipe(settings, info.preset),
        store=Store(index_dir, create=True),
        prompts=project_prompts(config),
        model_info=info,
        get_model=lambda: open_chat_model(info, settings.seed),
        get_embedder=lambda: MiniLMEmbedder(settings.embed.batch_size),
        progress=progress or _no_progress,
    )
    try:
        return run_build(b)
    finally:
        b.close()


def dry_run(
    docs_dir: Path, index_dir: Path, *, config: Path | None = None, model: str | None = None,
    method: str | None = None,
) -> dict[str, Any]:
    """Chunk the corpus and estimate LLM calls and time, with no model loaded."""
    from .recipe import make_recipe
    from .stages.chunk import chunk_documents, chunk_sentences
    from .stages.ground import candidate_names, doubtful_names
    from .stages.load import load_documents
    from .tokenizer import corpus_encoding
    from .work import extraction_key

    settings = resolve_settings(config, model, method)
    info = model_info(settings)
    recipe = make_recipe(settings, info.preset)
    prompts = project_prompts(config)
    docs, warnings = load_documents(
        docs_dir, settings.input.extensions, settings.input.csv_text_column
    )
    enc = corpus_encoding()
    chunks = chunk_documents(docs, enc, settings.chunks.size, settings.chunks.overlap)
    done_keys: set[str] = set()
    if (index_dir / "lancedb").is_dir():
        from .store import Store

        done_keys = {r["key"] for r in Store(index_dir).read("extractions")}
    digest = prompts.digest(*recipe.extract_prompts)
    options = recipe.extraction_options()
    todo = [c for c in chunks
            if extraction_key(info.key, c.text, digest, options) not in done_keys]
    p = info.preset
    if recipe.method == "fast":
        calls, seconds = 0, 0.0
    elif recipe.content == "extractive":
        # one choice per candidate span, in its sentence (about 30 new tokens each), and the
        # gleaning round (and its check, where the preset asks it) where a chunk has
        # doubtful spans
        sentences = chunk_sentences(docs, chunks)
        spans = sum(len(candidate_names(c.text, language=c.language))
                    + len(doubtful_names(c.text, language=c.language)) for c in todo)
        todo_ids = {c.id for c in todo}
        sentence_tokens = sum(len(enc.encode(s.text)) for s in sentences if s.chunk_id in todo_ids)
        gleans = min(1, settings.extract.max_gleanings) * (1 + p.glean_check)  # check, typing
        calls = len(todo) * (1 + gleans)
        seconds = (sentence_tokens + 30 * spans) / p.prompt_tok_s + spans * 0.02
    else:
        prompt_overhead = len(enc.encode(prompts.texts["extract_entities"]))
        opts = recipe.extract
        per_chunk = 1 + 2 * opts.max_gleanings + (opts.names == "spans") + bool(opts.claims)
        calls = len(todo) * per_chunk
        # rough: ~1 summary per chunk, ~1 report per 2 chunks (measured on the sample corpus)
        est_summaries, est_reports = len(todo), (max(1, len(todo) // 2) if todo else 0)
        prompt_tokens = sum(c.n_tokens + prompt_overhead for c in todo) * (1 + opts.max_gleanings)
        gen_tokens = len(todo) * 300 * (1 + opts.max_gleanings) + est_summaries * 60 + est_reports * 500
        seconds = prompt_tokens / p.prompt_tok_s + gen_tokens / p.gen_tok_s
        seconds += (est_summaries * 250 + est_reports * 1500) / p.prompt_tok_s
        calls += est_summaries + est_reports
    return {
        "documents": len(docs),
        "chunks": len(chunks),
        "chunks_to_extract": len(todo),
        "chunks_already_extracted": len(chunks) - len(todo),
        "estimated_llm_calls": calls,
        "estimated_seconds": round(seconds),
        "model": p.name,
        "method": recipe.method,
        "content": recipe.content,
        "warnings": warnings,
    }


def session_settings(index_dir: Path, *, config: Path | None = None, model: str | None = None):
    """The settings and model a question-answering session over `index_dir` uses: the
    model that built the index unless `model` (or the config file) names another."""
    from .query import open_index

    _store, manifest = open_index(index_dir)
    built_with = manifest.get("model", {}).get("preset")
    settings = resolve_settings(config, model)
    if not model and not settings.model and built_with:
        presets, _default = presets_mod.load_presets()
        if built_with in presets:
            settings = resolve_settings(config, built_with)
    return settings, model_info(settings, check=False)


def question_embedder(batch_size: int = 32):
    """The embedder questions are embedded with: the index's model (all-MiniLM-L6-v2), run
    in numpy where its safetensors weights are installed (no torch to import: loaded in
    ~0.2 s instead of ~7 s), else through sentence-transformers. Builds keep the latter."""
    from .models import embed_np

    if embed_np.available():
        return embed_np.NumpyMiniLM(batch_size=batch_size)
    from .models.embed import MiniLMEmbedder

    return MiniLMEmbedder(batch_size)


def write_reports(index_dir: Path, *, config: Path | None = None, writer: str | None = None,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Every community report of a built extractive index written by the writer now
    (`query.Session.write_reports`): later questions read them back."""
    session = open_session(index_dir, config=config, writer=writer)
    try:
        started = time.perf_counter()
        out = session.write_reports(progress)
        out["seconds"] = round(time.perf_counter() - started, 1)
        out["writer"] = session.writer_name
        return out
    finally:
        session.close()


def open_session(
    index_dir: Path, *, config: Path | None = None, model: str | None = None,
    writer: str | None = None,
):
    """A question-answering session over a built index: `open_session(...).ask(question,
    method=...)` answers (see `query.Session`; `query.result_dict` makes it plain data).
    It answers the way the index was built (its manifest's content mode); with `writer`
    (a preset, or the config's `query.writer`) an extractive index's answers are written
    by that model from the sentences they would quote, each sentence checked."""
    from .query import Session

    settings, info = session_settings(index_dir, config=config, model=model)
    settings = with_writer(settings, writer)

    return Session(
        index_dir, settings, project_prompts(config),
        get_model=lambda: open_chat_model(info, settings.seed),
        get_embedder=lambda: question_embedder(settings.embed.batch_size),
        get_writer=lambda name: open_writer(name, config, settings.seed),
    )


def open_writer(name: str, config: Path | None, seed: int) -> LazyChatModel:
    """The writer preset `name`, found and checked now (an unknown name is model_info's
    clear error, listing the presets), loaded when it first writes."""
    return LazyChatModel(model_info(resolve_settings(config, name)), seed)


class LazyChatModel:
    """A chat model loaded on first use of what only a loaded one has (a completion, its
    context size). Its name and file are known before, and they are all a writer's request
    key needs (`search/replies.request_key`): an answer read back from `written_cache`, or
    `show reports --writer`, loads no writer (it took 0.8 s of a cached 1.0 s answer).
    `opened_seconds`: how long loading took, once loaded."""

    def __init__(self, info: ModelInfo, seed: int):
        self.name = info.remote.name if info.remote is not None else info.preset.name
        self.path = info.path  # (a server's model has none, as its client has none)
        p = info.preset  # what decides a reply besides the request (in its cache key)
        self.sampling = (info.remote.sampling if info.remote is not None else
                         Sampling(p.temperature, seed, p.top_k, p.top_p, p.repeat_penalty))
        self.opened_seconds: float | None = None
        self._info, self._seed, self._model = info, seed, None

    @property
    def calls(self) -> list:
        return self._model.calls if self._model is not None else []

    def __getattr__(self, attr: str):  # anything else is the loaded model's
        if self._model is None:
            started = time.perf_counter()
            self._model = open_chat_model(self._info, self._seed)
            self.opened_seconds = round(time.perf_counter() - started, 3)
        return getattr(self._model, attr)

    def close(self) -> None:
        if self._model is not None:
            self._model.close()


def with_writer(settings: Settings, writer: str | None) -> Settings:
    """`settings` with the query writer `writer` (None: the config's)."""
    if writer is None:
        return settings
    return replace(settings, query=replace(settings.query, writer=writer))


def show(index_dir: Path, kind: str, name: str = "", level: int | None = None, *,
         writer: str | None = None, config: Path | None = None) -> dict[str, Any]:
    """Browse a built index: communities (as a tree), reports, or entities. With `writer`
    (reports of an extractive index), each report the writer has written too (`written`:
    its title, kept lines and their sources), or None where it has not written it yet."""
    from .browse import show as browse
    from .query import load_index_data, open_index

    if kind == "reports" and writer not in (None, "", "none"):
        return _written_reports(index_dir, name, level, writer, config)
    store, manifest = open_index(index_dir)
    result = browse(load_index_data(store), kind, name, level)
    if kind == "communities":
        last = manifest.get("summary", {})
        result["quality"] = last.get("community_quality", {})
        result["partition_change"] = last.get("partition_change", {})
    return result


def _written_reports(index_dir: Path, name: str, level: int | None, writer: str,
                     config: Path | None) -> dict[str, Any]:
    """`show reports [REF] --writer P`: the reports, each with what the writer wrote of
    it, read from the index's session (its data loaded once)."""
    from .browse import chunk_sources
    from .browse import show as browse

    session = open_session(index_dir, config=config, writer=writer)
    try:
        result = browse(session.data, "reports", name, level)
        shown = [result["report"]] if "report" in result else result["reports"]
        written = session.written_reports([r["id"] for r in shown])
        for r in shown:
            r["written"] = written.get(r["id"])
        if "report" in result and result["report"]["written"]:
            lines = result["report"]["written"]["lines"]
            result["sources"] = chunk_sources(
                session.data, list(dict.fromkeys(ref for line in lines for ref in line["refs"])))
    finally:
        session.close()
    result["writer"] = writer
    return result


@writes_private
def export(index_dir: Path, fmt: str, out: Path) -> dict[str, Any]:
    """Write a finished index as microsoft/graphrag parquet, GraphML or CSV files."""
    from .export import export_index

    return export_index(index_dir, fmt, out)


def status(index_dir: Path) -> dict[str, Any]:
    from .store import Store, describe_marker, running_build

    store = Store(index_dir)  # reads the last finished build's tables, even mid-build
    manifest = store.manifest or store.read_manifest()
    running = running_build(index_dir)
    if not manifest:
        raise IndexStateError(f"{index_dir} holds no graphrag-local index (no manifest.json)"
                              + (f"; a build is running on it ({describe_marker(running)})"
                                 if running else ""))
    counts = {t: store.count(t) for t in OUTPUT_TABLES}
    work = {t: store.count(t) for t in ("extractions", "summaries", "report_cache", "llm_calls",
                                        "written_cache")}
    failed_chunks = [
        {"chunk_id": r["chunk_id"], "error": r["error"]}
        for r in store.read("extractions") if r["status"] != "ok"
    ]
    failed_reports = [
        {"community_id": r["community_id"], "level": r["level"], "error": r["error"]}
        for r in store.read("community_reports") if r["status"] != "ok"
    ]
    return {
        "index": str(index_dir),
        "complete": manifest.get("complete", False),
        "build_running": running,  # None, or the pid and start of a build running now
        "tables": counts,
        "work_tables": work,
        "manifest": {k: v for k, v in manifest.items() if k != "summary"},
        "last_build": manifest.get("summary", {}),
        "community_quality": manifest.get("summary", {}).get("community_quality", {}),
        "partition_change": manifest.get("summary", {}).get("partition_change", {}),
        "failed_chunks": failed_chunks,
        "failed_reports": failed_reports,
        # documents per language (detected at build, or `input.language`)
        "languages": dict(Counter(r["language"] or "?" for r in store.read(
            "documents", ["language"]))) if "language" in store.columns("documents") else {},
    }


def list_models() -> list[dict[str, Any]]:
    presets, default = presets_mod.load_presets()
    out = []
    for name in sorted(presets):
        p = presets[name]
        path = presets_mod.locate(p, materialise=False)
        installed: bool | None = path is not None
        if path is None and p.source in ("assemble", "parts"):
            installed = presets_mod.locate_assemble_parts(p)
        if p.source == "server":
            installed = None  # not contacted here: `build` checks the server
        # a preset that pins its file (the writers' parts) says what it will be before it
        # is assembled: its size and sha256 are the ones assembling checks
        pinned = path is None and bool(p.size and p.sha256)
        out.append(
            {
                "name": name,
                "default": name == default,
                "description": p.description,
                "available": installed,
                "path": str(path) if path else "",
                "size_mb": (round(path.stat().st_size / 1e6, 1) if path
                            else round(p.size / 1e6, 1) if pinned else None),
                "sha256": (presets_mod.sha256_file(path) if path
                           else p.sha256.lower() if pinned else ""),
                "pinned": pinned,  # size and sha256 those pinned, the file not made yet
                "n_ctx": p.n_ctx,
                "chat_format": p.chat_format,
            }
        )
    return out


def add_model(name: str, path: Path, n_ctx: int = 8192, chat_format: str = "auto") -> Path:
    presets_mod.check_name(name)
    with _writing(presets_mod.user_models_toml()):
        return presets_mod.add_user_preset(name, path, n_ctx, chat_format)


def add_server_model(name: str, url: str, model: str, *, api: str = "llama.cpp", n_ctx: int = 8192,
                     parallel: int = 0, api_key_env: str = "", content: str = "abstractive") -> Path:
    presets_mod.check_name(name)
    with _writing(presets_mod.user_models_toml()):
        return presets_mod.add_user_server(name, url, model, api=api, n_ctx=n_ctx,
                                           parallel=parallel, api_key_env=api_key_env,
                                           content=content)


@contextmanager
def _writing(target: Path):
    """An OSError while writing `target` (no permission, a file where a folder should be,
    a full disk) becomes a ConfigError naming the path."""
    try:
        yield
    except OSError as exc:
        at = f" (at {exc.filename})" if exc.filename and str(exc.filename) != str(target) else ""
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}{at}") from None


def config_text(config: Path | None = None, model: str | None = None) -> str:
    return settings_to_toml(resolve_settings(config, model))


def init_project(folder: Path, copy_prompts: bool = False) -> list[Path]:
    """Write a commented config file (and, on request, the prompts) into `folder`."""
    from . import resources

    target = folder / CONFIG_FILE_NAME
    if target.exists():
        raise ConfigError(f"{target} already exists; remove it first to start over")
    with _writing(target):
        return _write_project(folder, target, copy_prompts, resources.prompts_dir())


def _write_project(folder: Path, target: Path, copy_prompts: bool, prompts_dir: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    header = (
        "# graphrag-local configuration. Every key is optional: delete what you do not\n"
        "# change. `graphrag-local config` prints the resolved settings.\n"
        "# model: a preset from `graphrag-local models` (\"\" = the default preset)\n"
        "# [chunks] size/overlap in cl100k tokens; [extract] names: \"spans\" | \"free\" | \"\"\n"
        "# [reports] max_input_tokens = 0 derives the budget from the model's n_ctx\n"
        "# private = true: the index, exports, graph pages and eval runs are readable by you\n"
        "# only (folders 0700, files 0600); false: your umask decides\n\n"
    )
    target.write_text(header + settings_to_toml(Settings()), encoding="utf-8")
    written = [target]
    if copy_prompts:
        pdir = folder / "prompts"
        pdir.mkdir(exist_ok=True)
        for src in sorted(prompts_dir.glob("*.txt")):
            (pdir / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
            written.append(pdir / src.name)
    return written
