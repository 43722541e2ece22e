"""How a build works, resolved once from the settings and the model preset: the indexing
method, the content mode, and the options each stage receives. The pipeline, `build
--dry-run` and `eval extraction` all take it from here, so they cannot disagree.

- method "standard": the model extracts (the paper); "fast": entities are the chunk's
  candidate spans, relationships their co-occurrence, no model before the reports.
- content "extractive" (the tiny presets): every stored description, summary and finding
  is a sentence of the documents with its source; the model chooses (types, YES/NO,
  scores) but writes nothing. "abstractive" (3B-8B presets): the paper's free writing."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .llm import ChatModel
from .presets import Preset
from .prompts import Prompts
from .schema import Chunk, ChunkExtraction, Sentence
from .settings import Settings
from .stages.classify import ClassifyOptions, classify_chunk
from .stages.extract import ExtractOptions, extract_chunk
from .stages.mentions import fast_extraction

ABSTRACTIVE_EXTRACT_PROMPTS = (
    "extract_entities", "glean_check", "glean_continue", "extract_relationships", "extract_claims",
)
EXTRACTIVE_EXTRACT_PROMPTS = ("type_entities", "glean_check_spans")


@dataclass(frozen=True)
class Recipe:
    method: str
    content: str
    extract: ExtractOptions
    classify: ClassifyOptions

    @property
    def uses_model_to_extract(self) -> bool:
        return self.method == "standard"

    @property
    def extractive(self) -> bool:
        return self.content == "extractive"

    @property
    def extract_prompts(self) -> tuple[str, ...]:
        if self.method == "fast":
            return ()
        return EXTRACTIVE_EXTRACT_PROMPTS if self.extractive else ABSTRACTIVE_EXTRACT_PROMPTS

    def extraction_options(self) -> dict:
        """What an extraction depends on besides the chunk, model and prompts (its key)."""
        if self.method == "fast":
            return {"method": "fast", "entity_types": list(self.extract.entity_types)}
        if self.extractive:
            return {"method": "standard", "content": "extractive", **asdict(self.classify)}
        return {"method": "standard", "content": "abstractive", **asdict(self.extract)}

    def extract_chunk(self, model: ChatModel | None, prompts: Prompts, chunk: Chunk,
                      sentences: list[Sentence], key: str) -> ChunkExtraction:
        if self.method == "fast":
            return fast_extraction(chunk, sentences, self.extract.entity_types, key)
        if self.extractive:
            return classify_chunk(model, prompts, chunk, sentences, self.classify, key)
        return extract_chunk(model, prompts, chunk, self.extract, key)


def make_recipe(settings: Settings, preset: Preset) -> Recipe:
    e = settings.extract
    return Recipe(
        method=settings.method,
        content=settings.content or preset.content,
        extract=ExtractOptions(
            entity_types=e.entity_types, max_gleanings=e.max_gleanings,
            max_entities=e.max_entities, max_relationships=e.max_relationships,
            max_name_chars=e.max_name_chars, max_description_chars=e.max_description_chars,
            names=e.names or preset.names, grounding=e.grounding, claims=e.claims,
            max_claims=e.max_claims, claim_types=e.claim_types,
        ),
        classify=ClassifyOptions(
            entity_types=e.entity_types, max_gleanings=e.max_gleanings,
            not_entity_bias=e.not_entity_bias,
            doubtful_not_entity_bias=e.doubtful_not_entity_bias,
        ),
    )
