"""Prompt files: loaded from the packaged prompts/ folder, or from a project's own
prompts folder (made by `graphrag-local init --prompts`), which wins file by file.
Placeholders are `{name}`; `render` insists that exactly the declared ones are given."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from . import resources
from .errors import ConfigError

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

BUILD_PROMPTS = (
    "extract_entities",
    "glean_check",
    "glean_continue",
    "extract_relationships",
    "extract_claims",
    "summarize_descriptions",
    "community_report",
    "type_entities",
    "glean_check_spans",
)
QUERY_PROMPTS = (
    "global_map", "global_reduce", "local_search", "basic_search", "global_map_score",
    "answer_lead", "drift_primer", "drift_followup", "community_relevance", "write_answer",
)
EVAL_PROMPTS = ("eval_describe", "eval_personas", "eval_tasks", "eval_questions", "eval_judge")
PROMPT_NAMES = BUILD_PROMPTS + QUERY_PROMPTS + EVAL_PROMPTS


@dataclass(frozen=True)
class Prompts:
    texts: dict[str, str]

    def render(self, prompt: str, /, **values: str) -> str:
        template = self.texts[prompt]
        wanted = set(PLACEHOLDER.findall(template))
        if wanted != set(values):
            raise ConfigError(
                f"prompt '{prompt}' expects placeholders {sorted(wanted)}, got {sorted(values)}"
            )
        return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)

    def digest(self, *names: str) -> str:
        h = hashlib.sha256()
        for name in names or sorted(self.texts):
            h.update(name.encode() + b"\x00" + self.texts[name].encode() + b"\x00")
        return h.hexdigest()[:16]


def load_prompts(override_dir: Path | None = None) -> Prompts:
    texts: dict[str, str] = {}
    for name in PROMPT_NAMES:
        path = resources.prompts_dir() / f"{name}.txt"
        if override_dir is not None and (override_dir / f"{name}.txt").is_file():
            path = override_dir / f"{name}.txt"
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"prompt file missing or unreadable: {path} ({exc})") from None
    return Prompts(texts)
