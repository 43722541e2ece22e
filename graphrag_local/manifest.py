"""What a build records about itself: the manifest (model, prompts, tokenizer, embedder,
settings, recipe; compared with the previous build's to say what changed and so what is
redone) and the summary a build returns (counts, failures, tokens, time per stage,
faithfulness)."""

from __future__ import annotations

import json
from collections import Counter

from . import __version__
from .models.embed import EMBEDDER_NAME
from .prompts import BUILD_PROMPTS
from .store import describe_marker
from .tokenizer import ENCODING_NAME


def make_manifest(b) -> dict:
    mi = b.model_info
    return {
        "version": __version__,
        "model": {
            "preset": mi.preset.name, "file": str(mi.path or mi.preset.url), "sha256": mi.sha256,
            "chat_format": mi.preset.chat_format, "n_ctx": mi.preset.n_ctx,
        },
        "method": b.recipe.method,
        "content": b.recipe.content,
        "prompts": {name: b.prompts.digest(name) for name in BUILD_PROMPTS},
        "tokenizer": ENCODING_NAME,
        "embedder": EMBEDDER_NAME,
        "settings": _built_by(b.settings.to_dict()),
        "seed": b.settings.seed,
        "docs_dir": str(b.docs_dir),
    }


def _built_by(settings: dict) -> dict:
    """The settings that change what is built: not the query's, not file modes, not how
    many chunks are extracted together."""
    out = {k: v for k, v in settings.items() if k not in ("query", "serve", "private")}
    out["extract"] = {k: v for k, v in out["extract"].items() if k != "in_flight"}
    return out


def manifest_changes(old: dict, new: dict, interrupted: dict | None = None) -> list[str]:
    """What differs from the index's previous build, in words. `interrupted`: the marker
    (pid, start) that a build which did not finish left behind, if any."""
    changes = []
    if interrupted is not None or old.get("complete") is False:
        changes.append(
            f"previous build did not finish ({describe_marker(interrupted or {})}; killed or "
            "stopped): resuming it, finished work is reused"
        )
    if not old:
        return changes
    new = json.loads(json.dumps(new))  # compare as stored (tuples become lists)
    if old.get("model", {}).get("sha256") != new["model"]["sha256"]:
        changes.append(
            f"model changed ({old.get('model', {}).get('preset')} -> {new['model']['preset']}): "
            "extraction, summaries and reports are redone"
        )
    for key in ("method", "content"):
        if old.get(key, new[key]) != new[key]:
            changes.append(f"{key} changed ({old.get(key)} -> {new[key]}): dependent work is redone")
    for name, digest in new["prompts"].items():
        if old.get("prompts", {}).get(name) != digest:
            changes.append(f"prompt '{name}' changed: the work that uses it is redone")
    for section, value in new["settings"].items():
        if section in ("method", "content", "parallel"):
            continue
        if old.get("settings", {}).get(section) != value:
            changes.append(f"settings [{section}] changed: dependent stages are redone")
    if old.get("embedder") != new["embedder"]:
        changes.append("embedder changed: embeddings are recomputed")
    return changes


def build_summary(b, changes: list[str], resumed: bool = False) -> dict:
    by_level = Counter(c.level for c in b.clusters)
    calls = [c for _, c in b.calls]
    f = b.faithfulness
    return {
        "documents": len(b.documents),
        "chunks": len(b.chunks),
        "sentences": len(b.sentences),
        "entities": len(b.entities),
        "relationships": len(b.relationships),
        "claims": len(b.claims),
        "communities": len(b.clusters),
        "communities_per_level": {str(k): by_level[k] for k in sorted(by_level)},
        "reports": sum(r.status == "ok" for r in b.reports),
        "failed_chunks": b.counts["failed_chunks"],
        "failed_reports": b.counts["failed_reports"],
        "failures": b.counts["failed_chunks"] + b.counts["failed_reports"],
        "skipped_communities": b.counts["skipped_communities"],
        "dropped_entities": b.counts["dropped_entities"],
        "dropped_relationships": b.counts["dropped_relationships"],
        "dropped_claims": b.counts["dropped_claims"],
        "gleanings": b.counts["gleanings"],
        "llm_calls": len(calls),
        "llm_calls_by_stage": dict(Counter(stage for stage, _ in b.calls)),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "reused_prompt_tokens": sum(c.reused_tokens for c in calls),
        "tokens_in": sum(c.prompt_tokens - c.reused_tokens for c in calls),
        "tokens_out": sum(c.completion_tokens for c in calls),
        "forced_tokens": sum(c.forced_tokens for c in calls),
        "llm_seconds": round(sum(c.seconds for c in calls), 3),
        "stage_seconds": dict(b.seconds),
        "wall_seconds": round(sum(b.seconds.values()), 3),
        "faithfulness": {
            "traceable_share": f.get("traceable_share"),
            "verbatim_share": f.get("verbatim_share"),
            "sentences": f.get("sentences"),
            "duplicated_findings": f.get("duplicated_findings"),
            "findings_without_source": f.get("findings_without_source"),
        },
        "sync": b.sync,
        "community_quality": b.community_quality,
        "partition_change": b.partition_change,
        "warnings": b.warnings,
        "changes": changes,
        "resumed": resumed,  # a build that did not finish was taken over
        "model": b.model_info.preset.name,
        "parallel": b._model.parallel if b._model is not None else b.model_info.preset.parallel,
        "method": b.recipe.method,
        "content": b.recipe.content,
    }
