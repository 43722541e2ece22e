"""How a build works, resolved once from the settings and the model preset: the indexing
method, the content mode, and the options each stage receives. The pipeline, `build
--dry-run` and `eval extraction` all take it from here, so they cannot disagree.

- method "standard": the model extracts (the paper); "fast": entities are the chunk's
  candidate spans, relationships their co-occurrence, no model before the reports.
- content "extractive" (the tiny presets): every stored description, summary and finding
  is a sentence of the documents with its source; the model chooses (types, YES/NO,
  scores) but writes nothing. "abstractive" (3B-8B presets): the paper's free writing."""

from __future__ import annotations

from dataclasses import dataclass

from .content import ContentMode, content_mode, fast_extract
from .models import ChatModel
from .models.presets import Preset
from .prompts import Prompts
from .schema import Chunk, ChunkExtraction, Sentence
from .settings import Settings
from .stages.classify import ClassifyOptions
from .stages.extract import ExtractOptions

# the version of the extraction code: part of every extraction's key, so that an index
# built before a change to candidate names or typing is extracted again, not reused
EXTRACTION_VERSION = 4  # 3: names in Chinese and Japanese, sentences in every script;
# 4: a name wrapped over two lines is one name


@dataclass(frozen=True)
class Recipe:
    method: str
    mode: ContentMode
    extract: ExtractOptions
    classify: ClassifyOptions

    @property
    def content(self) -> str:
        return self.mode.name

    @property
    def uses_model_to_extract(self) -> bool:
        return self.method == "standard"

    @property
    def extract_prompts(self) -> tuple[str, ...]:
        return () if self.method == "fast" else self.mode.extract_prompts

    def extraction_options(self) -> dict:
        """What an extraction depends on besides the chunk, model and prompts (its key)."""
        if self.method == "fast":
            return {"method": "fast", "entity_types": list(self.extract.entity_types),
                    "version": EXTRACTION_VERSION}
        return {**self.mode.extraction_options(self), "version": EXTRACTION_VERSION}

    def extract_chunk(self, model: ChatModel | None, prompts: Prompts, chunk: Chunk,
                      sentences: list[Sentence], key: str) -> ChunkExtraction:
        return self.extract_chunks(model, prompts, [(chunk, sentences, key)])[0]

    def extract_chunks(self, model: ChatModel | None, prompts: Prompts,
                       items: list[tuple[Chunk, list[Sentence], str]]) -> list[ChunkExtraction]:
        """The extractions of chunks in flight ((chunk, its sentences, key) each)."""
        if self.method == "fast":
            return [fast_extract(self, c, s, k) for c, s, k in items]
        return self.mode.extract_chunks(self, model, prompts, items)


def make_recipe(settings: Settings, preset: Preset) -> Recipe:
    e = settings.extract
    return Recipe(
        method=settings.method,
        mode=content_mode(settings.content or preset.content),
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
            glean_check=preset.glean_check,
        ),
    )
